/**
 * Which input bytes are the operator's. Everything the user's terminal sends reaches the agent
 * as input, but not all of it was typed: a real terminal (and tmux) answers the queries agents
 * send at start-up — cursor position (CPR), device attributes (DA1/DA2), XTVERSION, colour
 * queries (OSC 10/11/4), mode reports (DECRPM), the kitty keyboard flags — and reports focus
 * changes and mouse motion on its own. A turn (session-state.ts) starts with the operator's
 * input, so those replies must not count: in tmux they arrive while the agent loads, and would
 * make the start-up work look like the answer to a prompt.
 *
 * Focus-in and mouse reports are not typing either, but they are the operator's: the pane got
 * focus, the mouse moved over it. They say someone is looking (a `done` becomes seen); a query
 * reply or a focus-out says nothing about the operator at all.
 */

/** Who an input read came from: typed keys, the operator's presence alone, or the terminal alone. */
export type InputSource = 'typed' | 'presence' | 'terminal';

const ESC = 0x1b;
const BEL = 0x07;

interface Report {
  readonly length: number;
  /** Focus-in or a mouse report: the operator is at the pane. */
  readonly isPresence: boolean;
}

const NOT_A_REPORT: Report = { length: 0, isPresence: false };

/**
 * The terminal report starting at `i` (an ESC), or length 0 when what starts there is not one
 * (a key: arrows and function keys are CSI sequences too, but end in other finals).
 */
function reportAt(bytes: Uint8Array, i: number): Report {
  const length = reportLength(bytes, i);
  if (length === 0) return NOT_A_REPORT;
  const final = bytes[i + length - 1];
  const isPresence = bytes[i + 1] === 0x5b && (final === 0x49 || (bytes[i + 2] === 0x3c && (final === 0x4d || final === 0x6d)));
  return { length, isPresence };
}

function reportLength(bytes: Uint8Array, i: number): number {
  const kind = bytes[i + 1];
  if (kind === 0x5d || kind === 0x50 || kind === 0x5f) {
    // OSC (colour replies), DCS (XTVERSION, DECRQSS), APC (kitty graphics): up to BEL or ST.
    for (let k = i + 2; k < bytes.length; k++) {
      if (bytes[k] === BEL) return k + 1 - i;
      if (bytes[k] === ESC && bytes[k + 1] === 0x5c) return k + 2 - i;
    }
    return bytes.length - i;
  }
  if (kind !== 0x5b) return 0;
  let k = i + 2;
  const first = bytes[k];
  while (k < bytes.length && (bytes[k] as number) >= 0x20 && (bytes[k] as number) <= 0x3f) k += 1;
  while (k < bytes.length && (bytes[k] as number) >= 0x20 && (bytes[k] as number) <= 0x2f) k += 1;
  const final = bytes[k];
  if (final === undefined) return 0;
  const length = k + 1 - i;
  const isPrivate = first === 0x3f || first === 0x3e; // ? or >
  const hasParams = k > i + 2;
  switch (final) {
    case 0x52: // R: cursor position report (a bare CSI R is not sent by keys with parameters)
      return hasParams && first !== 0x3c ? length : 0;
    case 0x63: // c: device attributes (DA1 `CSI ? … c`, DA2 `CSI > … c`)
      return isPrivate ? length : 0;
    case 0x79: // y (after $): DECRPM mode report
      return bytes[k - 1] === 0x24 ? length : 0;
    case 0x75: // u: kitty keyboard flags report `CSI ? flags u`
      return first === 0x3f ? length : 0;
    case 0x74: // t: window size / position reports
      return hasParams ? length : 0;
    case 0x49: // I: focus in
    case 0x4f: // O: focus out
      return hasParams ? 0 : length;
    case 0x4d: // M / m: SGR mouse reports `CSI < b;x;y M`
    case 0x6d:
      return first === 0x3c ? length : 0;
    default:
      return 0;
  }
}

/** Where `bytes` came from: any key makes them typed; else presence if any report is focus-in or mouse. */
export function inputSource(bytes: Uint8Array): InputSource {
  let source: InputSource = 'terminal';
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i] !== ESC) return 'typed';
    const report = reportAt(bytes, i);
    if (report.length === 0) return 'typed';
    if (report.isPresence) source = 'presence';
    i += report.length;
  }
  return source;
}

/**
 * What the detector takes from one input read: who it came from and whether it was an interrupt
 * key. It is all a turn needs, so a recording made without the keys keeps this instead
 * (core/recordings/recorded-evidence.ts) and replays to the same turns.
 */
export interface InputKind {
  readonly source: InputSource;
  readonly isInterrupt: boolean;
}

export function classifyInput(bytes: Uint8Array): InputKind {
  return { source: inputSource(bytes), isInterrupt: isInterruptKey(bytes) };
}

/** Whether `bytes` hold anything besides terminal reports, focus and mouse events. */
export function isOperatorInput(bytes: Uint8Array): boolean {
  return inputSource(bytes) === 'typed';
}

/**
 * Whether `bytes` are one press of an interrupt key: a bare Esc or Ctrl-C, also as the kitty
 * keyboard protocol sends them (`CSI 27 u`, `CSI 99;5 u`, with an optional event type). A turn
 * that ends right after one was stopped by the operator, who is at the keyboard: it settles to
 * idle, not done (session-state.ts).
 */
export function isInterruptKey(bytes: Uint8Array): boolean {
  if (bytes.length === 1) return bytes[0] === ESC || bytes[0] === 0x03;
  const text = String.fromCharCode(...bytes.subarray(0, 16));
  return /^\x1b\[(?:27(?:;1(?::1)?)?|99;5(?::1)?)u$/.test(text);
}
