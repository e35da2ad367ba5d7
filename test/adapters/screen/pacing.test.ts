import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import {
  BACKLOG_HIGH_BYTES,
  BUDGET_WINDOW_BYTES,
  INLINE_WRITE_MAX_BYTES,
  createScreen,
  type ParsePacing,
  type ScreenMirror,
  type ScreenOptions,
} from '../../../src/adapters/screen/index.js';
import { chunksOf, tuiFrame } from '../../helpers/screen-tui.js';

/** No parse budget at all: while output keeps coming nothing is parsed; only quiet or flush parse. */
const NO_BUDGET: Partial<ParsePacing> = { budgetMsPerSecond: 0, burstMs: 0 };
/** The same, and output never counts as quiet within a test: only `flush()` parses. */
const NEVER_QUIET: Partial<ParsePacing> = { ...NO_BUDGET, quietMs: 60_000 };

const created: ScreenMirror[] = [];
afterEach(() => {
  for (const s of created.splice(0)) s.dispose();
});

function mirror(overrides: Partial<ScreenOptions> = {}): { screen: ScreenMirror; clock: ReturnType<typeof manualClock> } {
  const clock = manualClock(1_000);
  const screen = createScreen({ cols: 80, rows: 24, clock, ...overrides });
  created.push(screen);
  return { screen, clock };
}

/** Full 80x24 TUI frames, `megabytes` of them, and the last frame on its own. */
function frames(megabytes: number): { bytes: Buffer; lastFrame: string } {
  const parts: Buffer[] = [];
  let size = 0;
  let lastFrame = '';
  for (let frame = 0; size < megabytes * 1024 * 1024; frame++) {
    lastFrame = tuiFrame(frame, 80, 24);
    const bytes = Buffer.from(lastFrame, 'utf8');
    parts.push(bytes);
    size += bytes.length;
  }
  return { bytes: Buffer.concat(parts), lastFrame };
}

/** What an exact mirror shows after `data` alone, on a fresh screen. */
async function exactRows(data: string | Uint8Array): Promise<readonly string[]> {
  const { screen } = mirror({ exact: true });
  await screen.write(data);
  return screen.view().rows;
}

function writeAll(screen: ScreenMirror, bytes: Uint8Array): { last: Promise<void>; maxQueuedBytes: number } {
  let last: Promise<void> = Promise.resolve();
  let maxQueuedBytes = 0;
  for (const chunk of chunksOf(bytes)) {
    last = screen.write(chunk);
    maxQueuedBytes = Math.max(maxQueuedBytes, screen.stats().queuedBytes);
  }
  return { last, maxQueuedBytes };
}

const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe('small writes on the main thread', () => {
  it('parses a small write into an idle mirror before write returns', () => {
    const { screen } = mirror();

    void screen.write('\x1b[2;3Hready');

    expect(screen.view().rows[1]).toBe('  ready');
    expect(screen.isBehind()).toBe(false);
  });

  it('parses a small write into an idle mirror before write returns even when the process was descheduled meanwhile', () => {
    const { screen } = mirror();
    // Every reading of the CPU clock 10 ms after the last, as on a loaded machine: more than a
    // parse turn's limit passes between the turn's start and its first slice.
    let fakeNowMs = performance.now();
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (fakeNowMs += 10));
    try {
      void screen.write('\x1b[2;3Hready');

      expect(screen.view().rows[1]).toBe('  ready');
    } finally {
      now.mockRestore();
    }
  });

  it('parses a write above the inline limit later, not inside write', async () => {
    const { screen } = mirror();
    const large = 'a'.repeat(INLINE_WRITE_MAX_BYTES + 1);

    const written = screen.write(large);
    const before = screen.view().rows[0];
    await written;

    expect(before).toBe('');
    expect(screen.view().rows[0]).toBe('a'.repeat(80));
  });

  it('keeps the order when a small write follows a large one not parsed yet', async () => {
    const { screen } = mirror();

    void screen.write('a'.repeat(100_000));
    const small = screen.write('\x1b[2J\x1b[Hsmall');
    const before = screen.view().rows[0];
    await small;

    expect(before).toBe('');
    expect(screen.view().rows).toEqual(['small', ...Array.from({ length: 23 }, () => '')]);
  });

  it('does not parse a small write inline once the budget is spent, but on flush', async () => {
    const { screen } = mirror({ pacing: NEVER_QUIET });

    void screen.write('hello');
    const before = screen.view().rows[0];
    await macrotask();
    const later = screen.view().rows[0];
    await screen.flush();

    expect([before, later]).toEqual(['', '']);
    expect(screen.view().rows[0]).toBe('hello');
  });
});

describe('the parse budget', () => {
  it('only accumulates while output keeps coming and the budget is spent', async () => {
    const { screen } = mirror({ pacing: NEVER_QUIET });
    const { bytes } = frames(2);

    writeAll(screen, bytes);
    await macrotask();

    expect(screen.stats()).toMatchObject({ parsedBytes: 0, skippedBytes: 0, queuedBytes: bytes.length, cuts: 0, budgetWaits: 1 });
    expect(screen.isBehind()).toBe(true);
  });

  it('cuts a flood to the newest window and, once output goes quiet, shows the last frame exactly', async () => {
    const { screen } = mirror({ pacing: NO_BUDGET });
    const { bytes, lastFrame } = frames(20);

    const { last, maxQueuedBytes } = writeAll(screen, bytes);
    await last;

    const stats = screen.stats();
    expect(maxQueuedBytes).toBeLessThanOrEqual(BACKLOG_HIGH_BYTES + 64 * 1024);
    expect(stats.queuedBytes).toBe(0);
    expect(stats.parsedBytes + stats.skippedBytes).toBe(bytes.length);
    // A lossy flood is caught up from the newest window only, started on a redraw.
    expect(stats.parsedBytes).toBeLessThanOrEqual(BUDGET_WINDOW_BYTES);
    expect(stats).toMatchObject({ quietCatchUps: 1, budgetWaits: 1 });
    expect(stats.cuts).toBeGreaterThan(1);
    expect(screen.view().rows).toEqual(await exactRows(lastFrame));
    expect(screen.evidence().title?.text).toBe(/\x1b\]0;([^\x07]*)\x07/.exec(lastFrame)?.[1]);
  });

  it('parses a burst below the high mark completely once quiet, skipping nothing', async () => {
    const { screen } = mirror({ pacing: NO_BUDGET });
    const { bytes } = frames(1);

    const { last } = writeAll(screen, bytes);
    await last;

    expect(screen.stats()).toMatchObject({ parsedBytes: bytes.length, skippedBytes: 0, cuts: 0, quietCatchUps: 1 });
    expect(screen.view().rows).toEqual(await exactRows(bytes));
  });

  it('lifts the budget on flush without waiting for quiet, and budgets the writes after it again', async () => {
    const { screen } = mirror({ pacing: NEVER_QUIET });
    const { bytes, lastFrame } = frames(8);

    writeAll(screen, bytes);
    await screen.flush();
    const afterFlush = screen.view().rows;
    const statsAfterFlush = screen.stats();
    void screen.write('\x1b[Hnext');
    await macrotask();

    expect(statsAfterFlush).toMatchObject({ queuedBytes: 0, quietCatchUps: 0 });
    expect(afterFlush).toEqual(await exactRows(lastFrame));
    expect(screen.isBehind()).toBe(true);
  });

  it('resolves a flush at once when nothing is waiting', async () => {
    const { screen } = mirror({ pacing: NEVER_QUIET });

    await screen.flush();

    expect(screen.stats().queuedBytes).toBe(0);
  });

  it('applies a resize in order behind bytes the budget holds back', async () => {
    const { screen } = mirror({ pacing: NEVER_QUIET });

    void screen.write('x'.repeat(100));
    const resized = screen.resize(100, 5);
    const sizeBefore = screen.view().cols;
    await screen.flush();
    await resized;

    expect(sizeBefore).toBe(80);
    expect(screen.view().cols).toBe(100);
    // Wrapped at 80 columns before the resize, not at 100.
    expect(screen.view().rows.slice(0, 2)).toEqual(['x'.repeat(80), 'x'.repeat(20)]);
  });
});

describe('evidence in bytes the budget skipped', () => {
  /** Marks so small that each filler write cuts what came before it. */
  const tiny: Partial<ScreenOptions> = { backlogHighBytes: 4096, backlogLowBytes: 1024, pacing: { ...NO_BUDGET, windowBytes: 1024 } };
  const filler = (): string => `\x1b[H${'f'.repeat(8 * 1024)}`;

  it('salvages an ST-terminated title, a progress report, a notification and a bare BEL, each with its arrival time', async () => {
    const { screen, clock } = mirror(tiny);

    clock.advanceTo(1_100);
    void screen.write('\x1b]2;title ended by ST\x1b\\');
    clock.advanceTo(1_200);
    void screen.write('\x1b]9;4;1;30\x07');
    clock.advanceTo(1_300);
    void screen.write('text \x07 more');
    clock.advanceTo(1_400);
    void screen.write('\x1b]777;notify;a;b\x07');
    clock.advanceTo(2_000);
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < 4; i++) last = screen.write(filler());
    await last;

    expect(screen.stats().skippedBytes).toBeGreaterThan(0);
    expect(screen.evidence()).toMatchObject({
      title: { text: 'title ended by ST', changedAtMs: 1_100 },
      progress: { state: 1, value: 30, atMs: 1_200 },
      lastBellAtMs: 1_300,
      lastNotificationAtMs: 1_400,
    });
  });

  it('takes no bell from the BEL that ends a skipped OSC, and no title from an OSC aborted by CAN', async () => {
    const { screen } = mirror(tiny);

    void screen.write('\x1b]2;kept\x07');
    void screen.write('\x1b]2;aborted\x18 rest');
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < 4; i++) last = screen.write(filler());
    await last;

    expect(screen.stats().skippedBytes).toBeGreaterThan(0);
    expect(screen.evidence().title?.text).toBe('kept');
    expect(screen.evidence().lastBellAtMs).toBeUndefined();
  });

  it.each([
    ['\x1b[?1047h', true],
    ['\x1b[?47h', true],
    ['\x1b[?1049h then \x1b[?1049l', false],
    ['\x1b[?1049h and \x1b[?25l, \x1b[?2026h (other private modes)', true],
  ])('replays the last screen switch in skipped bytes (%s)', async (switches, isAlternate) => {
    const { screen } = mirror(tiny);

    void screen.write(switches);
    let last: Promise<void> = Promise.resolve();
    for (let i = 0; i < 4; i++) last = screen.write(filler());
    await last;

    expect(screen.stats().skippedBytes).toBeGreaterThan(0);
    expect(screen.view().isAlternateScreen).toBe(isAlternate);
  });
});

describe('modes that are never paced', () => {
  it('ignores the pacing in exact mode: everything is parsed, nothing waits for quiet', async () => {
    const { screen } = mirror({ exact: true, pacing: NEVER_QUIET });
    const { bytes } = frames(6);

    const { last } = writeAll(screen, bytes);
    await last;

    expect(screen.stats()).toMatchObject({ parsedBytes: bytes.length, skippedBytes: 0, cuts: 0, budgetWaits: 0, parseMs: undefined });
  });
});
