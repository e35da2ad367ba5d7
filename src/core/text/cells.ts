/**
 * Widths in terminal cells, counted as terminals count them (wcwidth): each code point on its
 * own, East Asian Wide and Fullwidth ones two cells, combining marks, format characters and
 * other zero-width ones none, everything else one. Code-point counts wrapped a row of CJK text
 * onto the next line of the dashboard. Text measured here is already sanitized (core/text/
 * sanitize.ts): control characters are not expected and count one cell.
 */
import { WIDE_RANGES } from './wide-ranges.js';

/** Printable ASCII: one cell per character, nothing to look up (the common case, drawn every second). */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * Drawn in no cell: nonspacing and enclosing marks, format characters (ZWJ, bidi marks,
 * soft hyphen aside), Hangul medial vowels and final consonants, and the zero-width space.
 */
const ZERO_WIDTH = /^(?:[\p{Mn}\p{Me}\u1160-\u11ff\ud7b0-\ud7ff\u200b]|(?!\u00ad)\p{Cf})$/u;

function isWide(codePoint: number): boolean {
  if (codePoint < (WIDE_RANGES[0] ?? 0)) return false;
  let low = 0;
  let high = WIDE_RANGES.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (codePoint < (WIDE_RANGES[mid * 2] ?? 0)) high = mid - 1;
    else if (codePoint > (WIDE_RANGES[mid * 2 + 1] ?? 0)) low = mid + 1;
    else return true;
  }
  return false;
}

/**
 * Widths already looked up, by code point: a screen uses few distinct characters, and the
 * property test costs ~0.2 µs (a 160-cell rule of `─` took 50 µs to cut before this).
 * Bounded, so text of every character there is cannot grow it without end.
 */
const known = new Map<number, number>();
const KNOWN_MAX = 4096;

/** Cells one code point takes: 0, 1 or 2. */
export function codePointCells(char: string): number {
  const codePoint = char.codePointAt(0) ?? 0;
  // Below the combining diacritics (U+0300) nothing is wide or zero-width.
  if (codePoint < 0x300) return 1;
  let cells = known.get(codePoint);
  if (cells === undefined) {
    cells = ZERO_WIDTH.test(char) ? 0 : isWide(codePoint) ? 2 : 1;
    if (known.size < KNOWN_MAX) known.set(codePoint, cells);
  }
  return cells;
}

/** Cells `text` takes on a terminal. */
export function cellWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let cells = 0;
  for (const char of text) cells += codePointCells(char);
  return cells;
}

/**
 * The longest start of `text` that fits in `cells`, ending in `…` when cut (the ellipsis takes
 * one of the cells). A zero-width code point stays with the character before it; a wide
 * character that would straddle the edge is left out whole.
 */
export function truncateToCells(text: string, cells: number): string {
  if (cells <= 0) return '';
  if (PLAIN.test(text)) return text.length <= cells ? text : `${text.slice(0, cells - 1)}…`;
  if (cellWidth(text) <= cells) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const width = codePointCells(char);
    if (used + width > cells - 1) break;
    out += char;
    used += width;
  }
  return `${out}…`;
}

/** `text` cut to `cells` (as truncateToCells) and padded with spaces to exactly that many cells. */
export function padToCells(text: string, cells: number): string {
  const cut = truncateToCells(text, cells);
  return cut + ' '.repeat(Math.max(0, cells - cellWidth(cut)));
}
