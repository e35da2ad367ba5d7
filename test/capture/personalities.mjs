// Terminal personalities: the outer terminal the capture lab pretends to be, as data.
//
// The agent CLIs choose their theme and layout from the environment (TERM, COLORTERM,
// TERM_PROGRAM, TMUX) and from what the terminal answers to queries (OSC 10/11 colours, DA1/DA2,
// XTVERSION, the kitty keyboard query…). A personality is both: `env` (variables set; `null`
// removes one from the lab's base environment) and `answers` (what the terminal says back; an
// absent entry means it stays silent, as that terminal does). answerer.mjs turns `answers` into
// bytes from the outer terminal's real state (cursor, size, modes, kitty keyboard flags).
//
// Where each answer comes from:
// - tmux: TMUX/TMUX_PANE name a live throwaway server the driver starts (`tmux -L
//   agentwrap-lab-…`, removed after the run); the values above are placeholders. Measured, tmux 3.3a (`tmux -L lab -f /dev/null`, queries sent from a pane, replies
//   read raw, detached and with a client attached): DA1 `?1;2c`, DA2 `>84;0;0c`, XTVERSION
//   `tmux 3.3a`, CPR, DSR 5, and `CSI 18 t` answered as `8;<cols>;<rows>t` (3.3a swaps width
//   and height). Nothing else: no OSC 4/10/11/12, no DECRQM, no kitty keyboard or graphics,
//   no `CSI 14 t`. Its pane environment: TERM=tmux-256color, TERM_PROGRAM=tmux,
//   TERM_PROGRAM_VERSION=3.3a, TMUX, TMUX_PANE; COLORTERM only if the server inherited it.
// - xterm: XTerm(390) in its default VT420 mode (xterm's ctlseqs): DA1
//   `?64;1;2;6;9;15;16;17;18;21;22;28c`, DA2 `>41;390;0c`, XTVERSION `XTerm(390)`; OSC 4/10/11/12
//   answered as `rgb:RRRR/GGGG/BBBB` with the query's own terminator (BEL or ST); DECRQM for the
//   modes it knows (2026/2027/2031 answer 0, "not recognised"); `CSI 16 t` (cell size) only:
//   14 and 18 are in xterm's default disallowedWindowOps. XTGETTCAP answers "invalid" (`0+r`).
//   Its default colours are black on white (xterm-light); xterm-dark is `xterm -rv`.
// - kitty: kitty 0.39 (kitty's screen.c): DA1 `?62;c`, DA2 `>1;4000;39c` (4000 + major, minor),
//   XTVERSION `kitty(0.39.1)`, the kitty keyboard protocol (`CSI ? u` answers the current flags of
//   the push/pop stack) and graphics query (`a=q` answers `OK` for its id), DECRQM including
//   2026 and 2031, `CSI 14/16/18 t`, OSC colours (its default #dddddd on #000000).
// - plain-256: what every terminal answers (DA1 `?1;2c`, CPR, DSR 5) and nothing else, with
//   TERM=xterm-256color and no COLORTERM: a terminal reached over ssh or macOS Terminal, as far
//   as the agents can tell.
// - silent: the lab's historic outer terminal (node-pty + @xterm/headless, nothing answered,
//   COLORTERM=truecolor). The default, so every recording made before personalities existed is
//   reproducible; recordings made under it stay in recordings/<agent>/ directly.

/** xterm's 16 ANSI colours (its default resources), as 8-bit hex triples. */
const XTERM_ANSI = ['000000', 'cd0000', '00cd00', 'cdcd00', '0000ee', 'cd00cd', '00cdcd', 'e5e5e5', '7f7f7f', 'ff0000', '00ff00', 'ffff00', '5c5cff', 'ff00ff', '00ffff', 'ffffff'];
/** kitty's 16 default colours (kitty.conf color0…color15). */
const KITTY_ANSI = ['000000', 'cc0403', '19cb00', 'cecb00', '0d73cc', 'cb1ed1', '0dcdcd', 'dddddd', '767676', 'f2201f', '23fd00', 'fffd00', '1a8fff', 'fd28ff', '14ffff', 'ffffff'];

/** DEC private modes xterm recognises (DECRQM answers 1/2 for these, 0 for anything else). */
const XTERM_MODES = [1, 3, 4, 5, 6, 7, 8, 9, 12, 25, 40, 45, 47, 66, 67, 69, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1015, 1016, 1034, 1035, 1036, 1039, 1040, 1041, 1042, 1043, 1046, 1047, 1048, 1049, 1050, 1051, 1052, 1053, 1060, 1061, 2004];
const KITTY_MODES = [1, 5, 6, 7, 8, 9, 12, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1016, 1047, 1048, 1049, 2004, 2026, 2031];

const xtermAnswers = (fg, bg) => ({
  da1: '\x1b[?64;1;2;6;9;15;16;17;18;21;22;28c',
  da2: '\x1b[>41;390;0c',
  xtversion: 'XTerm(390)',
  cpr: true,
  dsr: true,
  decxcpr: true,
  colors: { fg, bg, cursor: fg, ansi: XTERM_ANSI },
  decrqm: XTERM_MODES,
  windowOps: [16],
  cellPixels: { width: 9, height: 17 },
  xtgettcap: 'invalid',
});

export const PERSONALITIES = {
  silent: {
    about: "the lab's historic outer terminal: answers nothing, COLORTERM=truecolor",
    env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' },
    answers: {},
  },
  tmux: {
    about: 'a pane of tmux 3.3a (default-terminal tmux-256color), server started without COLORTERM',
    env: { TERM: 'tmux-256color', COLORTERM: null, TERM_PROGRAM: 'tmux', TERM_PROGRAM_VERSION: '3.3a', TMUX: '/tmp/tmux-0/default,4242,0', TMUX_PANE: '%0' },
    // Claude Code talks to the server named by TMUX (display-message, show -gv focus-events,
    // set terminal-features), so the driver starts a throwaway server and points TMUX/TMUX_PANE
    // at it: a CLI must find a live server there, as in a real pane.
    tmuxServer: true,
    answers: {
      da1: '\x1b[?1;2c',
      da2: '\x1b[>84;0;0c',
      xtversion: 'tmux 3.3a',
      cpr: true,
      dsr: true,
      windowOps: [18],
      swapSizeReport: true,
    },
  },
  'xterm-dark': {
    about: 'XTerm(390) -rv: white on black, COLORTERM=truecolor',
    env: { TERM: 'xterm-256color', COLORTERM: 'truecolor', XTERM_VERSION: 'XTerm(390)' },
    answers: xtermAnswers('ffffff', '000000'),
  },
  'xterm-light': {
    about: "XTerm(390) with its default colours: black on white, COLORTERM=truecolor",
    env: { TERM: 'xterm-256color', COLORTERM: 'truecolor', XTERM_VERSION: 'XTerm(390)' },
    answers: xtermAnswers('000000', 'ffffff'),
  },
  'plain-256': {
    about: 'a 256-colour terminal without COLORTERM (over ssh, macOS Terminal): DA1, CPR and DSR only',
    env: { TERM: 'xterm-256color', COLORTERM: null },
    answers: { da1: '\x1b[?1;2c', cpr: true, dsr: true },
  },
  kitty: {
    about: 'kitty 0.39.1: kitty keyboard and graphics protocols, TERM=xterm-kitty',
    env: { TERM: 'xterm-kitty', COLORTERM: 'truecolor', KITTY_WINDOW_ID: '1', KITTY_PID: '4242' },
    answers: {
      da1: '\x1b[?62;c',
      da2: '\x1b[>1;4000;39c',
      xtversion: 'kitty(0.39.1)',
      cpr: true,
      dsr: true,
      colors: { fg: 'dddddd', bg: '000000', cursor: 'cccccc', ansi: KITTY_ANSI },
      decrqm: KITTY_MODES,
      windowOps: [14, 16, 18],
      cellPixels: { width: 10, height: 21 },
      kittyKeyboard: true,
      kittyGraphics: true,
      xtgettcap: 'invalid',
    },
  },
};

export const DEFAULT_PERSONALITY = 'silent';

/** The recordings folder of a habitat (a real tmux server, test/e2e/tmux-pane.mjs), beside the personalities'. */
export const habitatDir = (habitat) => `habitat-${habitat}`;

/** The variables a CLI picks its theme and layout from, as recordings' meta keeps them. */
export const TERMINAL_ENV_KEYS = ['TERM', 'COLORTERM', 'TERM_PROGRAM', 'TMUX'];
export const PERSONALITY_NAMES = Object.keys(PERSONALITIES);

/** The personality by name; throws naming the known ones. */
export function personality(name = DEFAULT_PERSONALITY) {
  const p = PERSONALITIES[name];
  if (!p) throw new Error(`unknown personality ${name} (known: ${PERSONALITY_NAMES.join(', ')})`);
  return { name, ...p };
}

/** `base` with the personality's variables applied (null removes one). */
export function applyPersonalityEnv(base, name = DEFAULT_PERSONALITY) {
  const env = { ...base };
  for (const [key, value] of Object.entries(personality(name).env)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  return env;
}
