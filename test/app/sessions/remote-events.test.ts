/**
 * The line splitter under `events --host`: lines cut anywhere across reads come out whole, and a
 * line past the limit is dropped once, holding nothing of it, while the next line still counts.
 */
import { describe, expect, it } from 'vitest';
import { boundedLineSplitter, parseEventLine } from '../../../src/app/sessions/remote-events.js';

function split(maxChars: number, pieces: readonly string[]): { lines: string[]; overLong: number } {
  const lines: string[] = [];
  let overLong = 0;
  const feed = boundedLineSplitter(maxChars, (line) => lines.push(line), () => (overLong += 1));
  for (const piece of pieces) feed(piece);
  return { lines, overLong };
}

describe('boundedLineSplitter', () => {
  it.each([
    { pieces: ['ab\ncd\n'], lines: ['ab', 'cd'], overLong: 0 },
    { pieces: ['a', 'b', '\nc', 'd\n', 'e'], lines: ['ab', 'cd'], overLong: 0 },
    { pieces: ['abcd\n'], lines: ['abcd'], overLong: 0 },
    { pieces: ['ab', 'cd', '\n'], lines: ['abcd'], overLong: 0 },
    { pieces: ['abcde\nok\n'], lines: ['ok'], overLong: 1 },
    { pieces: ['ab', 'cd', 'e', 'fgh', 'ij\nok\n'], lines: ['ok'], overLong: 1 },
    { pieces: ['abcde', 'fghij\n', 'abcdefg\n', 'ok\n'], lines: ['ok'], overLong: 2 },
  ])('splits $pieces into $lines at a limit of 4, dropping $overLong', ({ pieces, lines, overLong }) => {
    expect(split(4, pieces)).toEqual({ lines, overLong });
  });
});

describe('a remote events line', () => {
  const DIALOG = { question: 'Do you want to run ls -la?', options: ['Yes', 'No'], digest: '0123456789abcdef' };

  it("carries a blocked session's dialog, checked like a record's", () => {
    const line = JSON.stringify({ t: 5, session: 'demo-s', agent: 'demo', from: 'working', to: 'blocked', winner: 'pack', rule_id: 'r', dialog: { ...DIALOG, question: '\u001b[2JApprove?' } });

    expect(parseEventLine(line)?.dialog).toEqual({ ...DIALOG, question: 'Approve?' });
  });
});
