/**
 * Seeded fuzzing of the code that reads hostile output: the screen mirror's OSC handlers (with
 * the string-payload limiter in front of xterm) and the region extraction and rule evaluation
 * that read the screen. Each run is reproducible from its seed; the invariants are the
 * contracts other layers rely on: nothing throws, every output is bounded, and what the mirror
 * shows is what xterm alone would show.
 */
import { Buffer } from 'node:buffer';
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import {
  createScreen,
  parseProgress,
  STRING_PAYLOAD_MAX_UNITS,
  StringPayloadLimiter,
  TITLE_MAX_CHARS,
} from '../../src/adapters/screen/index.js';
import { compilePack } from '../../src/core/packs/compile.js';
import { parsePack } from '../../src/core/packs/schema.js';
import { createSessionRecord, parseRecord, sanitizeTitle, TITLE_MAX_UNITS } from '../../src/core/records/session-record.js';
import { explainPack, evaluatePack, REGION_PREVIEW_CHARS, verdictFromExplain } from '../../src/core/packs/evaluate.js';
import {
  analyzeScreen,
  COUNTED_REGIONS,
  extractRegion,
  MAX_REGION_ROWS,
  SIMPLE_REGIONS,
  type PackInput,
  type RegionSpec,
} from '../../src/core/packs/regions.js';
import { UNSAFE_TITLE_CHARS } from './harness.js';
import { rng } from './hostile-agent.mjs';

const { Terminal } = xtermHeadless;

/** xorshift32 (the hostile agent's): every case below is reproducible from its seed. */
function prng(seed: number): { int(n: number): number; pick<T>(list: readonly T[]): T; chance(p: number): boolean } {
  const next = rng(seed);
  return {
    int: (n) => next() % n,
    pick: (list) => list[next() % list.length] as (typeof list)[number],
    chance: (p) => next() / 0x1_0000_0000 < p,
  };
}

const clock = { nowMs: () => 1000, wallMs: () => 1_700_000_000_000 };

/** Characters hostile titles and payloads are made of. */
const PAYLOAD_ALPHABET = [
  'a', 'Z', '0', '9', ';', ' ', ':', '=', '?', '-', 'é', '€', '😀', '\u0301', '\u202e', '\u2066', '\u200f', '\u061c', '\ufeff',
  '\u0001', '\t', '\u007f', '\u0085', '\u009b', '\u009c', '\u00a0', '\u00bf', '\\', '\u001b', '\u001b[31m', '\u0007', '\u0018',
];
const OSC_IDENTS = ['0', '2', '9', '9;4', '9;4;1', '9;4;3', '99', '133', '133;A', '133;D;1', '777', '777;notify', '1', '8;;', '52;c', '4;1', '9999999999', ''];
const TERMINATORS = ['\u0007', '\u001b\\', '\u0018', '\u001a', '\u009c', '', '\u001b'];
const PLAIN = ['hello', '\r\n', '\u001b[2J', '\u001b[H', '\u001b[?1049h', '\u001b[?1049l', '\u001b[31m', 'x'.repeat(120), '\u001bP$q m\u001b\\', '\u001b]', '\u009d0;c1\u0007'];

/** The part of the alphabet that does not end a string in xterm (no ESC, BEL, CAN, SUB or C1). */
const STRING_SAFE_ALPHABET = PAYLOAD_ALPHABET.filter((c) => !/[\u0007\u0018\u001a\u001b\u0080-\u009f]/.test(c));

function payload(r: ReturnType<typeof prng>): string {
  // Mostly short; sometimes past the limiter's cap (then made only of characters that do not
  // end the string, or it would rarely get that long), so cut strings are fuzzed too.
  const isLong = r.chance(0.1);
  const length = isLong ? STRING_PAYLOAD_MAX_UNITS - 50 + r.int(3000) : r.int(600);
  const alphabet = isLong ? STRING_SAFE_ALPHABET : PAYLOAD_ALPHABET;
  const parts: string[] = [];
  let units = 0;
  while (units < length) {
    const piece = r.chance(0.7) ? 'abcdefghij'.repeat(1 + r.int(20)) : r.pick(alphabet);
    parts.push(piece);
    units += piece.length;
  }
  return parts.join('');
}

/** `withMarkers`: visible text after each piece, so a string that swallowed too much shows. */
function hostileStream(r: ReturnType<typeof prng>, count: number, withMarkers = false): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (r.chance(0.3)) out.push(r.pick(PLAIN));
    else out.push(`${r.chance(0.1) ? '\u009d' : '\u001b]'}${r.pick(OSC_IDENTS)}${r.chance(0.8) ? ';' : ''}${payload(r)}${r.pick(TERMINATORS)}`);
    if (withMarkers) out.push(`<${i}>\r\n`);
  }
  return out.join('');
}

/** Random split points, so sequences are cut across chunks at every kind of place. */
function split<T extends string | Buffer>(data: T, r: ReturnType<typeof prng>): T[] {
  const pieces: T[] = [];
  let at = 0;
  while (at < data.length) {
    const size = r.chance(0.3) ? 1 + r.int(4) : 1 + r.int(8192);
    pieces.push(data.slice(at, at + size) as T);
    at += size;
  }
  return pieces;
}

/** What xterm alone makes of a stream: the viewport rows and the last OSC 0/2 title. */
async function reference(stream: Buffer): Promise<{ rows: string[]; title: string | undefined }> {
  const term = new Terminal({ cols: 80, rows: 10, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
  let title: string | undefined;
  term.parser.registerOscHandler(0, (data) => ((title = data), true));
  term.parser.registerOscHandler(2, (data) => ((title = data), true));
  await new Promise<void>((resolve) => term.write(stream, resolve));
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) rows.push(term.buffer.active.getLine(term.buffer.active.baseY + y)?.translateToString(true).trimEnd() ?? '');
  term.dispose();
  return { rows, title };
}

describe('fuzzing the OSC handlers of the screen mirror', () => {
  it('never throws and keeps every piece of evidence bounded, over 400 seeded hostile streams split at random', async () => {
    let titlesSeen = 0;
    let progressSeen = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = prng(seed);
      const stream = Buffer.from(hostileStream(r, 1 + r.int(12)), 'utf8');
      const screen = createScreen({ cols: 80, rows: 10, clock, exact: true });
      for (const piece of split(stream, r)) await screen.write(r.chance(0.5) ? piece : piece.toString('latin1') === piece.toString('utf8') ? piece.toString('utf8') : piece);
      const evidence = screen.evidence();
      const title = evidence.title?.text;
      if (title !== undefined) {
        titlesSeen += 1;
        expect(title.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
        const clean = sanitizeTitle(title);
        expect(clean.length).toBeLessThanOrEqual(TITLE_MAX_UNITS);
        expect(clean).not.toMatch(UNSAFE_TITLE_CHARS);
        const record = createSessionRecord({
          sourceCli: 'fuzz', sessionId: `s${seed}`, pid: 1, wrapperPid: 2, cwd: '/', startedAtMs: 1, updatedAtMs: 2, state: 'working',
          stateSinceMs: 1, seen: false, stuck: false, winner: null, ruleId: null, title, control: '',
        });
        expect(parseRecord(JSON.parse(JSON.stringify(record)) as unknown)?.title).toBe(record.title);
      }
      const progress = evidence.progress;
      if (progress !== undefined) {
        progressSeen += 1;
        expect(Number.isInteger(progress.state) && progress.state >= 0 && progress.state <= 4).toBe(true);
        if (progress.value !== undefined) expect(Number.isInteger(progress.value) && progress.value >= 0 && progress.value <= 100).toBe(true);
      }
      if (evidence.lastMark !== undefined) expect(['A', 'B', 'C', 'D']).toContain(evidence.lastMark.kind);
      expect(screen.view().rows).toHaveLength(10);
      screen.dispose();
    }
    // The generator really reached the handlers, or the invariants above proved nothing.
    expect(titlesSeen).toBeGreaterThan(50);
    expect(progressSeen).toBeGreaterThan(20);
  });

  it('shows exactly what xterm alone shows: same rows, same title up to its bound (60 seeded streams, many past the string limit)', async () => {
    let longStrings = 0;
    for (let seed = 1001; seed <= 1060; seed++) {
      const r = prng(seed);
      const text = hostileStream(r, 1 + r.int(8), true);
      if (text.length > STRING_PAYLOAD_MAX_UNITS) longStrings += 1;
      const stream = Buffer.from(text, 'utf8');
      const screen = createScreen({ cols: 80, rows: 10, clock, exact: true });
      for (const piece of split(stream, r)) await screen.write(piece);
      const expected = await reference(stream);

      expect(screen.view().rows, `seed ${seed}`).toEqual(expected.rows);
      expect(screen.evidence().title?.text, `seed ${seed}`).toBe(expected.title === undefined ? undefined : expected.title.slice(0, TITLE_MAX_CHARS).replace(/[\ud800-\udbff]$/, ''));
      screen.dispose();
    }
    expect(longStrings).toBeGreaterThan(10);
  });

  it('passes streams whose strings fit the limit through unchanged, and cuts longer ones to it wherever chunks split', () => {
    for (let seed = 2001; seed <= 2200; seed++) {
      const r = prng(seed);
      const text = hostileStream(r, 1 + r.int(10));
      const bytes = Buffer.from(text, 'utf8');
      const whole = Buffer.from(new StringPayloadLimiter(STRING_PAYLOAD_MAX_UNITS).limit(bytes));
      const limiter = new StringPayloadLimiter(STRING_PAYLOAD_MAX_UNITS);
      const pieces = Buffer.concat(split(bytes, r).map((piece) => Buffer.from(limiter.limit(piece))));
      const hasLongString = text.length > STRING_PAYLOAD_MAX_UNITS;
      if (!hasLongString) expect(whole.equals(bytes), `seed ${seed}`).toBe(true);
      expect(whole.length).toBeLessThanOrEqual(bytes.length);
      // Chunking may keep a character or two more at a cut, never more.
      expect(Math.abs(pieces.length - whole.length), `seed ${seed}`).toBeLessThanOrEqual(64);
    }
  });

  it('bounds a string of any size: a 12 MB title costs the mirror no more than a 64 KiB one', async () => {
    const screen = createScreen({ cols: 80, rows: 10, clock, exact: true });
    const before = process.memoryUsage().heapUsed;
    await screen.write(Buffer.from(`\x1b]0;${'T'.repeat(12 * 1024 * 1024)}\x07after`, 'utf8'));
    const grownMiB = (process.memoryUsage().heapUsed - before) / 1024 / 1024;

    expect(screen.evidence().title?.text).toBe('T'.repeat(TITLE_MAX_CHARS));
    expect(screen.view().rows[0]).toBe('after');
    // Without the limiter xterm held ~32 bytes per character per handler: ~800 MB here.
    expect(grownMiB).toBeLessThan(64);
    screen.dispose();
  });

  it('parses any OSC 9;4 text into a state 0–4 and a value 0–100, or nothing', () => {
    const r = prng(77);
    const alphabet = ['0', '1', '3', '4', '9', '-', ';', ' ', 'a', '\u0000', '1e9', '99999999999999', '+', '.', '\u202e'];
    for (let i = 0; i < 5000; i++) {
      let text = '';
      for (let n = r.int(12); n > 0; n--) text += r.pick(alphabet);
      const progress = parseProgress(text, 5);
      if (progress === undefined) continue;
      expect(progress.state >= 0 && progress.state <= 4 && Number.isInteger(progress.state)).toBe(true);
      if (progress.value !== undefined) expect(progress.value >= 0 && progress.value <= 100).toBe(true);
    }
  });

  it('sanitizes any title to at most 256 units with no control, escape or bidi characters', () => {
    const r = prng(99);
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      for (let n = r.int(80); n > 0; n--) parts.push(r.pick([...PAYLOAD_ALPHABET, '\u001b]0;x\u0007', '\u009d8;;x\u009c', '\ud800', '\udc00', 'W'.repeat(r.int(400))]));
      const clean = sanitizeTitle(parts.join(''));
      expect(clean.length).toBeLessThanOrEqual(TITLE_MAX_UNITS);
      expect(clean).not.toMatch(UNSAFE_TITLE_CHARS);
      expect(clean).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });
});

/** A pack that reads every region, so evaluation touches all of them. */
const EVERY_REGION_PACK = (() => {
  const regions = [...SIMPLE_REGIONS, 'bottom:5', 'bottom_nonempty:3', 'top:1000'];
  const rules = regions.map((region, i) =>
    [
      '[[rule]]',
      `id = "r${i}"`,
      `state = "${['working', 'blocked', 'idle'][i % 3] ?? 'idle'}"`,
      `priority = ${i}`,
      `region = "${region}"`,
      i % 2 === 0 ? `requires_any = ["esc", "❯", "─", "1;"]` : `line_regex = ['^\\s*(?:>|❯)\\s', '\\d+%']`,
      i % 3 === 0 ? `gate = { any = [ { contains = "a" }, { not = { line_regex = "^\\\\s*$" } } ] }` : '',
    ].join('\n'),
  );
  const text = ['schema_version = 1', 'agent = "fuzz"', 'commands = ["fuzz"]', 'validated_versions = ">=1.0.0, <2.0.0"', 'prompt_carets = [">", "❯"]', '', ...rules].join('\n');
  const parsed = parsePack(text, 'fuzz.toml');
  if (parsed.kind !== 'ok') throw new Error(`fuzz pack invalid: ${JSON.stringify(parsed)}`);
  return compilePack(parsed.pack);
})();

const ROW_PIECES = ['─'.repeat(40), '━'.repeat(12), '-'.repeat(30), '╭──────╮', '╰──────╯', '│ > hi │', '> ', '❯ 1. Yes', '❯', '  ', 'esc to interrupt', '1;50', '😀', 'e\u0301', '\u202e', '│', '┌', '└', '=', 'a'.repeat(300)];

function randomInput(r: ReturnType<typeof prng>): PackInput {
  const rowCount = r.int(60);
  const rows: string[] = [];
  for (let i = 0; i < rowCount; i++) {
    let row = '';
    for (let n = r.int(5); n > 0; n--) row += r.pick(ROW_PIECES);
    if (r.chance(0.02)) row = 'x'.repeat(5000 + r.int(5000));
    rows.push(row);
  }
  return {
    screen: { rows, cols: 80, cursorRow: r.int(rowCount + 5) - 2, cursorCol: r.int(90), isAlternateScreen: r.chance(0.5), revision: 1 },
    title: r.chance(0.5) ? r.pick(ROW_PIECES) : undefined,
    progress: r.chance(0.5) ? r.pick(['0', '1;50', '3', 'garbage']) : undefined,
  };
}

describe('fuzzing region extraction and rule evaluation', () => {
  it('extracts every region from 1500 seeded random screens without throwing, returning only rows of that screen', () => {
    const specs: RegionSpec[] = [
      ...SIMPLE_REGIONS.map((kind) => ({ kind })),
      ...COUNTED_REGIONS.flatMap((kind) => [1, 3, 17, MAX_REGION_ROWS].map((rows) => ({ kind, rows }))),
    ];
    // Broken invariants are collected and asserted once: an expect() per returned line (348,000
    // of them) was 94% of this test's time, and one list names every seed that broke.
    const broken: string[] = [];
    let linesChecked = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const r = prng(seed);
      const input = randomInput(r);
      const carets = r.chance(0.8) ? ['>', '❯'] : [];
      const analysis = analyzeScreen(input.screen.rows, carets);
      for (const spec of specs) {
        const lines = extractRegion(spec, input, analysis);
        const where = `seed ${seed} ${spec.kind}${'rows' in spec ? `:${spec.rows}` : ''}`;
        if (lines.length > Math.max(1, input.screen.rows.length)) broken.push(`${where}: ${lines.length} lines from ${input.screen.rows.length} rows`);
        if ('rows' in spec && lines.length > spec.rows) broken.push(`${where}: ${lines.length} lines, more than ${spec.rows}`);
        for (const line of lines) {
          linesChecked += 1;
          // A row, a row with box sides taken off (prompt_box_body), the title or the progress.
          const isFromScreen = input.screen.rows.some((row) => row === line || row.includes(line));
          if (!(isFromScreen || line === input.title || line === input.progress)) broken.push(`${where}: ${JSON.stringify(line.slice(0, 80))} is on no row`);
        }
      }
    }

    expect(broken).toEqual([]);
    // The generator really gave the regions lines to return, or the checks above proved nothing.
    expect(linesChecked).toBeGreaterThan(100_000);
  });

  it('evaluates a pack reading every region on 800 random screens: explain agrees with the verdict and previews stay bounded', () => {
    for (let seed = 1; seed <= 800; seed++) {
      const input = randomInput(prng(seed * 7919));
      const verdict = evaluatePack(EVERY_REGION_PACK, input);
      const explained = explainPack(EVERY_REGION_PACK, input);

      expect(verdictFromExplain('fuzz', explained), `seed ${seed}`).toEqual(verdict);
      const tooLong = explained.filter((rule) => [...rule.regionPreview].length > REGION_PREVIEW_CHARS + 1);
      expect(tooLong.map((rule) => `seed ${seed} ${rule.id}`)).toEqual([]);
    }
  });
});
