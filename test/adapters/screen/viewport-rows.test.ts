import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as XtermHeadless from '@xterm/headless';
import type { Terminal as XtermTerminal } from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { trackChangedRows, type ChangedRows } from '../../../src/adapters/screen/viewport-rows.js';
import { decodeRecording, parseResize } from '../../../src/core/recordings/recording.js';

const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof XtermHeadless;

const terms: XtermTerminal[] = [];
afterEach(() => {
  for (const term of terms.splice(0)) term.dispose();
});

function tracked(cols: number, rows: number): { term: XtermTerminal; changed: ChangedRows } {
  const term = new Terminal({ cols, rows, scrollback: 100, allowProposedApi: true, logLevel: 'off' });
  terms.push(term);
  return { term, changed: trackChangedRows(term, []) };
}

const write = (term: XtermTerminal, data: string): Promise<void> => new Promise((resolve) => term.write(data, resolve));

function fullRead(term: XtermTerminal, y: number): string {
  const buffer = term.buffer.active;
  return buffer.getLine(buffer.baseY + y)?.translateToString(true).trimEnd() ?? '';
}

/** Reads the viewport through `changed`, noting which rows it asked xterm for. */
function readRows(term: XtermTerminal, changed: ChangedRows, previous: readonly string[] | undefined): { rows: string[]; asked: number[] } {
  const asked: number[] = [];
  const rows = changed.read(term.rows, previous, (y) => {
    asked.push(y);
    return fullRead(term, y);
  });
  return { rows, asked };
}

describe('the viewport rows a view re-reads', () => {
  it('re-reads the row a spinner redrew and keeps the others', async () => {
    const { term, changed } = tracked(40, 10);
    await write(term, '\x1b[2J\x1b[H> refactor the parser\r\n\r\nframe 1');
    const first = readRows(term, changed, undefined);
    expect(first.asked).toHaveLength(10);
    await write(term, '\r\x1b[2Kframe 2');
    const second = readRows(term, changed, first.rows);
    expect(second.asked).toEqual([2]);
    expect(second.rows[2]).toBe('frame 2');
    expect(second.rows[0]).toBe('> refactor the parser');
  });

  it('asks for no row when nothing was parsed since the last read', async () => {
    const { term, changed } = tracked(40, 10);
    await write(term, 'hello');
    const first = readRows(term, changed, undefined);
    const second = readRows(term, changed, first.rows);
    expect(second.asked).toEqual([]);
    expect(second.rows).toEqual(first.rows);
  });

  it('re-reads every row when the screen scrolls', async () => {
    const { term, changed } = tracked(20, 4);
    await write(term, 'a\r\nb\r\nc\r\nd');
    const first = readRows(term, changed, undefined);
    await write(term, '\r\ne');
    const second = readRows(term, changed, first.rows);
    expect(second.asked).toEqual([0, 1, 2, 3]);
    expect(second.rows).toEqual(['b', 'c', 'd', 'e']);
  });

  it('re-reads every row after an alternate-screen switch, a full reset and markAll', async () => {
    const { term, changed } = tracked(20, 4);
    await write(term, 'main\r\nscreen');
    let last = readRows(term, changed, undefined).rows;
    await write(term, '\x1b[?1049h\x1b[Halt');
    const alt = readRows(term, changed, last);
    expect(alt.asked).toEqual([0, 1, 2, 3]);
    expect(alt.rows).toEqual(['alt', '', '', '']);
    await write(term, '\x1b[?1049l');
    last = readRows(term, changed, alt.rows).rows;
    expect(last).toEqual(['main', 'screen', '', '']);
    await write(term, '\x1bc');
    const reset = readRows(term, changed, last);
    expect(reset.asked).toEqual([0, 1, 2, 3]);
    expect(reset.rows).toEqual(['', '', '', '']);
    changed.markAll();
    expect(readRows(term, changed, reset.rows).asked).toEqual([0, 1, 2, 3]);
  });

  it('reads every row when the previous view had another height', async () => {
    const { term, changed } = tracked(20, 4);
    await write(term, 'x');
    readRows(term, changed, undefined);
    expect(readRows(term, changed, ['x', '']).asked).toEqual([0, 1, 2, 3]);
  });

  // The tracker is xterm's own, kept for its renderer: the differential check says it covers
  // everything the recorded agents do to a screen (scroll regions, erases, insert/delete lines,
  // resizes), which the renderer-facing unit cases above cannot enumerate.
  it('agrees with a full read after every chunk of one recording per agent', async () => {
    const root = join(import.meta.dirname, '../../../recordings');
    const picks = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => firstCast(join(root, entry.name)))
      .filter((path): path is string => path !== undefined);
    expect(picks.length).toBeGreaterThan(5);
    for (const path of picks) {
      const recording = decodeRecording(readFileSync(path, 'utf8'), path);
      const { term, changed } = tracked(recording.header.cols, recording.header.rows);
      let previous: readonly string[] | undefined;
      for (const event of recording.events) {
        if (event.kind === 'o') await write(term, event.data);
        else if (event.kind === 'r') {
          const size = parseResize(event.data);
          if (size === undefined) continue;
          term.resize(size.cols, size.rows);
          changed.markAll();
        } else continue;
        const rows = readRows(term, changed, previous).rows;
        const expected = Array.from({ length: term.rows }, (_, y) => fullRead(term, y));
        expect(rows, path).toEqual(expected);
        previous = rows;
      }
    }
  }, 120_000);

  it('agrees with a full read after every write of 100 seeded streams of scrolls, inserts, erases and resets, with resizes', async () => {
    for (let seed = 1; seed <= 100; seed++) {
      let state = seed;
      const int = (n: number): number => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state % n;
      };
      const { term, changed } = tracked(30, 12);
      let previous: readonly string[] | undefined;
      for (let step = 0; step < 60; step++) {
        if (int(40) === 0) {
          term.resize(20 + int(20), 6 + int(10));
          changed.markAll();
        } else {
          let chunk = '';
          for (let op = 1 + int(4); op > 0; op--) chunk += SCREEN_OPS[int(SCREEN_OPS.length)]?.(int) ?? '';
          await write(term, chunk);
        }
        const rows = readRows(term, changed, previous).rows;
        const expected = Array.from({ length: term.rows }, (_, y) => fullRead(term, y));
        expect(rows, `seed ${seed} step ${step}`).toEqual(expected);
        previous = rows;
      }
    }
  }, 120_000);
});

/** A seeded stream of everything that moves or rewrites rows: scroll regions, inserts and deletes, erases, wide characters, resets. */
const SCREEN_OPS: readonly ((int: (n: number) => number) => string)[] = [
  (int) => ['plain text ', '漢字の行', 'e\u0301 combining', '🙂 wide', 'x'.repeat(1 + int(90))][int(5)] ?? '',
  () => '\r\n',
  () => '\n',
  (int) => `\x1b[${1 + int(12)};${1 + int(30)}H`,
  (int) => `\x1b[${1 + int(3)}${'ABCD'[int(4)]}`,
  (int) => `\x1b[${int(3)}K`,
  (int) => `\x1b[${int(4)}J`,
  (int) => `\x1b[${1 + int(3)}${'LMPX@'[int(5)]}`,
  (int) => `\x1b[${1 + int(3)}${'ST'[int(2)]}`,
  (int) => `\x1b[${1 + int(5)};${6 + int(6)}r`,
  () => '\x1b[r',
  () => '\x1bM',
  () => '\x1bD',
  (int) => ['\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[?1047h', '\x1b[?1047l'][int(6)] ?? '',
  () => '\x1bc',
  () => '\x1b[!p',
  () => '\x1b#8',
  () => '\t\b',
  (int) => (int(2) === 0 ? '\x1b[?7l' : '\x1b[?7h'),
  (int) => `y\x1b[${1 + int(20)}b`,
  (int) => (int(2) === 0 ? '\x1b[?6h' : '\x1b[?6l'),
  () => '\x1b7\x1b[5;5Hsaved\x1b8',
];

function firstCast(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.cast')) return path;
    if (entry.isDirectory()) {
      const found = firstCast(path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
