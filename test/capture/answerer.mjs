// The outer terminal's answers to terminal queries, generated from a personality's `answers`
// (personalities.mjs) and the real state of the lab's @xterm/headless terminal.
//
// CSI queries are answered from xterm.js parser hooks, so an answer is computed at the exact
// point of the output stream where the query sits (the cursor for CPR is where the bytes before
// it left it; the size for `CSI 18 t` is the size then). OSC colour queries also go through the
// parser; their terminator (BEL or ST), which xterm answers with in kind, is tracked by a small
// scanner over the raw stream, which also answers kitty graphics queries (APC, which xterm.js
// drops without a hook). A personality with no entry for a query stays silent, as that
// terminal does. `encodeKey` turns the driver's keys into what the terminal would send under the
// kitty keyboard flags the CLI pushed.

const ESC = '\x1b';
const ST = `${ESC}\\`;

/** 8-bit hex `rrggbb` → xterm's 16-bit `rgb:rrrr/gggg/bbbb`. */
export function xtermRgb(hex) {
  const c = (i) => hex.slice(i, i + 2).repeat(2);
  return `rgb:${c(0)}/${c(2)}/${c(4)}`;
}

/** Palette entry `n` (0–255): the 16 given colours, then xterm's 6×6×6 cube and grey ramp. */
export function paletteHex(ansi, n) {
  if (n < 16) return ansi[n];
  const h = (v) => v.toString(16).padStart(2, '0');
  if (n < 232) {
    const level = (i) => (i === 0 ? 0 : 55 + 40 * i);
    const i = n - 16;
    return h(level(Math.floor(i / 36))) + h(level(Math.floor(i / 6) % 6)) + h(level(i % 6));
  }
  const grey = 8 + 10 * (n - 232);
  return h(grey).repeat(3);
}

/** DEC private modes set from the start (DECAWM, DECTCEM). */
const MODES_ON_AT_START = [7, 25];

/** A CSI's first parameter (its first sub-parameter when it has some), `dflt` when absent. */
function first(params, dflt = 0) {
  const p = params[0];
  return Array.isArray(p) ? p[0] ?? dflt : p ?? dflt;
}

/** The cursor as CPR reports it: 1-based, the column held at the right margin. */
function cursorOf(term) {
  const b = term.buffer.active;
  return { row: b.cursorY + 1, col: Math.min(b.cursorX + 1, term.cols) };
}

/**
 * Hooks `term` (an @xterm/headless Terminal) so that every query it parses is answered through
 * `reply(bytes)` as the personality's terminal would. Call `feed(data)` with each output chunk
 * before `term.write(data)`. Returns { feed, encodeKey, kittyFlags(), dispose() }.
 */
export function attachAnswerer(term, answers, reply) {
  // What each group of hooks shares: the terminal, the personality's answers, the reply, and
  // the handlers registered (disposed together).
  const hooks = { term, a: answers ?? {}, reply, disposables: [] };
  hooks.csi = (id, fn) => hooks.disposables.push(term.parser.registerCsiHandler(id, fn));
  answerDeviceReports(hooks);
  answerModes(hooks);
  answerWindowOps(hooks);
  const kitty = followKittyKeyboard(hooks);
  const oscTerminators = answerColors(hooks);
  // XTGETTCAP: answered "invalid" (`DCS 0 + r ST`) where the terminal answers at all.
  hooks.disposables.push(term.parser.registerDcsHandler({ intermediates: '+', final: 'q' }, () => {
    if (hooks.a.xtgettcap === 'invalid') reply(`${ESC}P0+r${ST}`);
    return true;
  }));
  return {
    feed: rawStreamScanner(hooks, oscTerminators),
    encodeKey: keyEncoder(hooks.a, kitty),
    kittyFlags: () => kitty.at(-1),
    dispose: () => { for (const d of hooks.disposables) d.dispose(); },
  };
}

/** Device attributes and version, device status (DSR 5), CPR and DECXCPR. */
function answerDeviceReports({ term, a, reply, csi }) {
  // Returning true keeps xterm.js's own answers out.
  csi({ final: 'c' }, (params) => {
    if (first(params) !== 0) return true;
    if (a.da1) reply(a.da1);
    return true;
  });
  csi({ prefix: '>', final: 'c' }, (params) => {
    if (first(params) === 0 && a.da2) reply(a.da2);
    return true;
  });
  csi({ prefix: '>', final: 'q' }, (params) => {
    if (first(params) === 0 && a.xtversion) reply(`${ESC}P>|${a.xtversion}${ST}`);
    return true;
  });
  csi({ final: 'n' }, (params) => {
    const which = first(params);
    if (which === 5 && a.dsr) reply(`${ESC}[0n`);
    if (which === 6 && a.cpr) { const c = cursorOf(term); reply(`${ESC}[${c.row};${c.col}R`); }
    return true;
  });
  csi({ prefix: '?', final: 'n' }, (params) => {
    if (first(params) === 6 && a.decxcpr) { const c = cursorOf(term); reply(`${ESC}[?${c.row};${c.col};1R`); }
    return true;
  });
}

/** DEC private modes: tracked here (xterm.js keeps handling them too), answered by DECRQM. */
function answerModes({ a, reply, csi }) {
  const modes = new Map(MODES_ON_AT_START.map((m) => [m, true]));
  const track = (on) => (params) => {
    for (const p of params) modes.set(Array.isArray(p) ? p[0] : p, on);
    return false;
  };
  csi({ prefix: '?', final: 'h' }, track(true));
  csi({ prefix: '?', final: 'l' }, track(false));
  csi({ prefix: '?', intermediates: '$', final: 'p' }, (params) => {
    if (!a.decrqm) return true;
    const mode = first(params);
    const status = a.decrqm.includes(mode) ? (modes.get(mode) ? 1 : 2) : 0;
    reply(`${ESC}[?${mode};${status}$y`);
    return true;
  });
}

/** Window reports: text area in pixels (14), cell size (16), text area in characters (18). */
function answerWindowOps({ term, a, reply, csi }) {
  // xterm.js passes `CSI t` to a hook only for the window options it is told to allow.
  term.options.windowOptions = { ...term.options.windowOptions, getWinSizePixels: true, getCellSizePixels: true, getWinSizeChars: true };
  csi({ final: 't' }, (params) => {
    const op = first(params);
    if (![14, 16, 18].includes(op)) return false; // title stack and the rest: xterm.js's business
    if (!(a.windowOps ?? []).includes(op)) return true;
    const cell = a.cellPixels ?? { width: 9, height: 17 };
    if (op === 14) reply(`${ESC}[4;${term.rows * cell.height};${term.cols * cell.width}t`);
    if (op === 16) reply(`${ESC}[6;${cell.height};${cell.width}t`);
    if (op === 18) reply(a.swapSizeReport ? `${ESC}[8;${term.cols};${term.rows}t` : `${ESC}[8;${term.rows};${term.cols}t`);
    return true;
  });
}

/** The kitty keyboard protocol: a stack of flags; push (>), pop (<), set (=), query (?). Returns the stack. */
function followKittyKeyboard({ a, reply, csi }) {
  const kitty = [0];
  csi({ prefix: '>', final: 'u' }, (params) => {
    if (a.kittyKeyboard) { kitty.push(first(params)); if (kitty.length > 16) kitty.shift(); }
    return true;
  });
  csi({ prefix: '<', final: 'u' }, (params) => {
    if (a.kittyKeyboard) for (let n = Math.max(1, first(params, 1)); n > 0 && kitty.length > 1; n--) kitty.pop();
    return true;
  });
  csi({ prefix: '=', final: 'u' }, (params) => {
    if (!a.kittyKeyboard) return true;
    const flags = first(params);
    const how = Array.isArray(params[1]) ? params[1][0] : params[1] ?? 1;
    const top = kitty.length - 1;
    kitty[top] = how === 2 ? kitty[top] | flags : how === 3 ? kitty[top] & ~flags : flags;
    return true;
  });
  csi({ prefix: '?', final: 'u' }, () => {
    if (a.kittyKeyboard) reply(`${ESC}[?${kitty.at(-1)}u`);
    return true;
  });
  return kitty;
}

/**
 * OSC colour queries, answered with the query's own terminator. Returns the queue of
 * terminators the raw-stream scanner fills (it sees them before the parser's handlers run).
 */
function answerColors({ term, a, reply, disposables }) {
  const oscTerminators = [];
  const colorQuery = (code, hex) => (data) => {
    const end = oscTerminators.shift() ?? ST;
    if (data === '?' && a.colors) reply(`${ESC}]${code};${xtermRgb(hex())}${end}`);
    return data === '?';
  };
  if (a.colors) {
    disposables.push(term.parser.registerOscHandler(10, colorQuery(10, () => a.colors.fg)));
    disposables.push(term.parser.registerOscHandler(11, colorQuery(11, () => a.colors.bg)));
    disposables.push(term.parser.registerOscHandler(12, colorQuery(12, () => a.colors.cursor)));
    disposables.push(term.parser.registerOscHandler(4, (data) => {
      const end = oscTerminators.shift() ?? ST;
      const parts = data.split(';');
      let any = false;
      for (let i = 0; i + 1 < parts.length; i += 2) {
        const n = Number(parts[i]);
        if (parts[i + 1] !== '?' || !Number.isInteger(n) || n < 0 || n > 255) continue;
        reply(`${ESC}]4;${n};${xtermRgb(paletteHex(a.colors.ansi, n))}${end}`);
        any = true;
      }
      return any; // colour settings go on to xterm.js
    }));
  }
  return oscTerminators;
}

const OSC_ANSWERED = /^(4|10|11|12);/;
const STRING_KINDS = { ']': 'osc', _: 'apc', P: 'dcs' };

/**
 * The raw-stream scanner: OSC terminators (for answerColors) and kitty graphics (APC G).
 * States: ground, esc (after ESC), string (inside OSC/APC/DCS: `kind`), string-esc. Returns `feed`.
 */
function rawStreamScanner({ a, reply }, oscTerminators) {
  let state = 'ground';
  let kind = '';
  let body = '';
  const finish = (end) => {
    if (kind === 'osc' && OSC_ANSWERED.test(body) && a.colors) oscTerminators.push(end);
    if (kind === 'apc' && body.startsWith('G') && a.kittyGraphics) {
      const [control = ''] = body.slice(1).split(';');
      const keys = Object.fromEntries(control.split(',').map((kv) => kv.split('=')));
      if (keys.a === 'q' && keys.i) reply(`${ESC}_Gi=${keys.i};OK${ST}`);
    }
    state = 'ground';
    body = '';
  };
  const step = (ch) => {
    if (state === 'ground') {
      if (ch === ESC) state = 'esc';
    } else if (state === 'esc') {
      kind = STRING_KINDS[ch] ?? '';
      state = kind ? 'string' : ch === ESC ? 'esc' : 'ground';
      body = '';
    } else if (state === 'string') {
      if (ch === '\x07') finish('\x07');
      else if (ch === ESC) state = 'string-esc';
      else if (body.length < 4096) body += ch;
    } else {
      finish(ST); // ESC ends a string; `ESC \\` is ST, anything else starts a new sequence
      if (ch !== '\\') { state = 'esc'; step(ch); }
    }
  };
  return (data) => { for (const ch of data) step(ch); };
}

/** A key as the terminal would send it under the current kitty keyboard flags (`kitty`'s top). */
function keyEncoder(a, kitty) {
  return (key) => {
    const flags = kitty.at(-1);
    if (!a.kittyKeyboard || (flags & 1) === 0) return key;
    const release = (flags & 2) !== 0;
    const csiU = (code, mods) => `${ESC}[${code}${mods > 1 ? `;${mods}` : ''}u` + (release ? `${ESC}[${code};${mods}:3u` : '');
    if (key === ESC) return csiU(27, 1);
    if (key.length === 1 && key.charCodeAt(0) >= 1 && key.charCodeAt(0) <= 26 && !'\r\t\b'.includes(key)) {
      return csiU(key.charCodeAt(0) + 96, 5); // Ctrl+letter
    }
    return key; // Enter, Tab, Backspace, text and arrows keep their legacy bytes under flag 1
  };
}
