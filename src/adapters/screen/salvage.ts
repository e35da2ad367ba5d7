/**
 * Salvage: what skipped bytes said out of band (titles, progress, notifications, marks, BEL, the
 * last alternate-screen switch), kept when flow control cuts the backlog and replayed through
 * the parser before the retained bytes, so a cut loses screen contents but not evidence.
 */
import { Buffer } from 'node:buffer';
import { BEL, CAN, ESC, SUB } from './constants.js';
import type { Chunk } from './queue.js';

/** Longest OSC payload the skip salvage keeps; longer ones are titles we bound anyway. */
const SALVAGE_OSC_MAX_BYTES = 64 * 1024;
/** OSC sequences kept from skipped bytes (the newest): enough for a title's recent changes. */
const SALVAGE_OSC_MAX_COUNT = 16;

/** What skipped bytes said out of band, replayed through the parser before the retained bytes. */
export interface Salvage {
  altScreen: boolean | undefined;
  oscs: { readonly sequence: string; readonly atMs: number }[];
  bellAtMs: number | undefined;
}

export function emptySalvage(): Salvage {
  return { altScreen: undefined, oscs: [], bellAtMs: undefined };
}

/**
 * What goes to the parser before the first retained bytes (arriving at `atMs`): CAN resets the
 * parser (so they are not read as the tail of a half-seen sequence; as a byte array, so a
 * half-seen UTF-8 character is dropped too), then the salvaged OSCs and BEL, each with its own
 * arrival time, then the last screen switch.
 */
export function salvageSequences(salvage: Salvage, atMs: number): { readonly data: Chunk; readonly atMs: number }[] {
  const sequences: { data: Chunk; atMs: number }[] = [{ data: Buffer.from([CAN]), atMs }];
  for (const osc of salvage.oscs) sequences.push({ data: osc.sequence, atMs: osc.atMs });
  if (salvage.bellAtMs !== undefined) sequences.push({ data: '\x07', atMs: salvage.bellAtMs });
  if (salvage.altScreen !== undefined) sequences.push({ data: salvage.altScreen ? '\x1b[?1049h' : '\x1b[?1049l', atMs });
  return sequences;
}

/**
 * Collects what skipped bytes said out of band: complete OSC sequences (the newest few), the
 * last BEL outside an OSC, and the last alternate-screen switch, each with the skipped write's
 * arrival time. Sequences cut by a chunk boundary are missed; this is best effort.
 *
 * Under a flood almost every byte passes through here, so every search is a native one for a
 * byte that is rare in terminal output (`]`, `?`, BEL, CAN, SUB), with each position reused
 * until passed: linear time, ~0.1 ms per MB. A search led by ESC would stop at every escape
 * sequence of a TUI (one every few bytes) and was measured 10x slower.
 */
export function salvageFrom(data: Chunk, atMs: number, salvage: Salvage): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const alt = lastAltScreenSwitch(bytes);
  if (alt !== undefined) salvage.altScreen = alt;
  const nextBel = nextFinder(bytes, BEL);
  const nextCan = nextFinder(bytes, CAN);
  const nextSub = nextFinder(bytes, SUB);
  const nextBracket = nextFinder(bytes, 0x5d);
  let scanFrom = 0;
  for (;;) {
    // The next OSC opener, ESC ]: found by its rare second byte.
    let bracket = nextBracket(Math.max(scanFrom, 1));
    while (bracket < bytes.length && bytes[bracket - 1] !== ESC) bracket = nextBracket(bracket + 1);
    const oscStart = bracket >= bytes.length ? bytes.length : bracket - 1;
    if (nextBel(scanFrom) < oscStart) salvage.bellAtMs = atMs;
    if (bracket >= bytes.length) return;
    const payloadStart = bracket + 1;
    // What ends it: BEL or ST (ESC \) complete it; CAN, SUB or any other ESC abort it, as in
    // xterm's parser. ESC is frequent, but the next one after an opener is near.
    const escAt = bytes.indexOf(ESC, payloadStart);
    const end = Math.min(nextBel(payloadStart), nextCan(payloadStart), nextSub(payloadStart), escAt === -1 ? bytes.length : escAt);
    if (end >= bytes.length) return;
    const byte = bytes[end];
    const isComplete = byte === BEL || (byte === ESC && bytes[end + 1] === 0x5c);
    if (isComplete && end - payloadStart <= SALVAGE_OSC_MAX_BYTES) {
      salvage.oscs.push({ sequence: `\x1b]${bytes.toString('utf8', payloadStart, end)}\x07`, atMs });
      if (salvage.oscs.length > SALVAGE_OSC_MAX_COUNT) salvage.oscs.shift();
    }
    // An aborting ESC starts the next sequence, so scanning resumes on it.
    scanFrom = byte === ESC ? (isComplete ? end + 2 : end) : end + 1;
  }
}

/** `(from) => the first index >= from holding byte` (bytes.length if none), each search reused until passed. */
function nextFinder(bytes: Buffer, byte: number): (from: number) => number {
  let found = -1;
  return (from) => {
    if (found < from) {
      const at = bytes.indexOf(byte, from);
      found = at === -1 ? bytes.length : at;
    }
    return found;
  };
}

/** What marks the start of a redraw: a synchronized update, a cleared screen, the cursor sent home. */
const REDRAW_MARKERS = ['\x1b[?2026h', '\x1b[2J', '\x1b[H', '\x1b[1;1H'] as const;

/**
 * Where the first redraw in `data` starts (searching its first `limit` units): the earliest
 * redraw marker, else the start of the first full line; 0 when neither is there (plain text
 * without a newline: nothing better to start on).
 */
export function redrawStart(data: Chunk, limit: number): number {
  const head = typeof data === 'string' ? data.slice(0, limit) : Buffer.from(data.buffer, data.byteOffset, Math.min(limit, data.byteLength));
  const find = (needle: string): number => (typeof head === 'string' ? head.indexOf(needle) : head.indexOf(needle, 0, 'latin1'));
  let best = -1;
  for (const marker of REDRAW_MARKERS) {
    const at = find(marker);
    if (at !== -1 && (best === -1 || at < best)) best = at;
  }
  if (best !== -1) return best;
  const newline = find('\n');
  return newline === -1 ? 0 : newline + 1;
}

/**
 * The last `CSI ? 1049|1047|47 h|l` in `bytes`: true = alternate screen, false = normal. Walks
 * back over `?` (a few per TUI frame) rather than searching each sequence from its ESC.
 */
function lastAltScreenSwitch(bytes: Buffer): boolean | undefined {
  for (let at = bytes.lastIndexOf(0x3f); at >= 2; at = bytes.lastIndexOf(0x3f, at - 1)) {
    if (bytes[at - 1] !== 0x5b || bytes[at - 2] !== ESC) continue;
    let mode = 0;
    let end = at + 1;
    for (; end < bytes.length && end - at <= 5; end++) {
      const digit = (bytes[end] as number) - 0x30;
      if (digit < 0 || digit > 9) break;
      mode = mode * 10 + digit;
    }
    const final = bytes[end];
    if (end > at + 1 && (final === 0x68 || final === 0x6c) && (mode === 1049 || mode === 1047 || mode === 47)) return final === 0x68;
  }
  return undefined;
}
