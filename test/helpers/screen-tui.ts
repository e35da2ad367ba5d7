/**
 * Realistic TUI output for the screen mirror's tests and throughput measurements: full-screen
 * redraws with cursor addressing, SGR colours, box drawing, a spinner line, UTF-8 text (CJK,
 * accents, emoji) and the occasional title update — what a coding agent's TUI actually emits.
 */
import { Buffer } from 'node:buffer';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const WORDS = ['naïve', 'café', 'résumé', '日本語', 'テスト', 'Straße', '✓ done', '🚀', 'token', 'refactor', 'diff'];

/** One full redraw of a `cols` x `rows` screen; `frame` varies the content. */
export function tuiFrame(frame: number, cols: number, rows: number): string {
  const parts: string[] = ['\x1b[?2026h\x1b[H'];
  parts.push(`\x1b]0;${SPINNER[frame % SPINNER.length]} Working (${frame})\x07`);
  parts.push(`\x1b[1;1H\x1b[38;5;${(frame % 200) + 16}m╭${'─'.repeat(cols - 2)}╮\x1b[0m`);
  for (let row = 2; row < rows - 2; row++) {
    let line = '';
    let width = 0;
    for (let w = 0; width < cols - 12; w++) {
      const word = WORDS[(frame + row * 7 + w) % WORDS.length] ?? 'x';
      line += `\x1b[${31 + ((row + w) % 7)}m${word}\x1b[0m `;
      width += displayWidth(word) + 1;
    }
    parts.push(`\x1b[${row};1H│ ${line}\x1b[K\x1b[${row};${cols}H│`);
  }
  parts.push(`\x1b[${rows - 1};1H\x1b[2K\x1b[33m${SPINNER[frame % SPINNER.length]}\x1b[0m Thinking… (${frame}s · esc to interrupt)`);
  parts.push(`\x1b[${rows};1H\x1b[38;5;244m╰${'─'.repeat(cols - 2)}╯\x1b[0m\x1b[?2026l`);
  return parts.join('');
}

function displayWidth(word: string): number {
  let width = 0;
  for (const char of word) width += (char.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1;
  return width;
}

/** Concatenated frames as UTF-8 bytes, at least `totalBytes` long. */
export function tuiBytes(totalBytes: number, cols = 120, rows = 40): Buffer {
  const frames: Buffer[] = [];
  let size = 0;
  for (let frame = 0; size < totalBytes; frame++) {
    const bytes = Buffer.from(tuiFrame(frame, cols, rows), 'utf8');
    frames.push(bytes);
    size += bytes.length;
  }
  return Buffer.concat(frames);
}

/** Splits `bytes` into PTY-sized chunks (node-pty reads up to 64 KiB at a time). */
export function* chunksOf(bytes: Uint8Array, chunkBytes = 64 * 1024): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
}
