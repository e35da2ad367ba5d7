import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import {
  BACKLOG_HIGH_BYTES,
  IN_FLIGHT_MAX_BYTES,
  TITLE_MAX_CHARS,
  TITLE_RECENT_CHANGES,
  createScreen,
  type Screen,
  type ScreenOptions,
} from '../../../src/adapters/screen/index.js';
import { chunksOf, tuiBytes } from '../../helpers/screen-tui.js';


const created: Screen[] = [];
afterEach(() => {
  for (const s of created.splice(0)) s.dispose();
});

function screenOn(overrides: Partial<ScreenOptions> = {}): { screen: Screen; clock: ReturnType<typeof manualClock> } {
  const clock = manualClock(1_000);
  const s = createScreen({ cols: 40, rows: 10, clock, ...overrides });
  created.push(s);
  return { screen: s, clock };
}

const osc = (payload: string, terminator = '\x07'): string => `\x1b]${payload}${terminator}`;

const FLOOD_BYTES = 60 * 1024 * 1024;
let floodCache: Buffer | undefined;
/** 60 MB of TUI frames, generated once for the file. */
function flood(): Buffer {
  floodCache ??= tuiBytes(FLOOD_BYTES, 80, 24);
  return floodCache;
}

describe('the mirror', () => {
  const inFlightMaxBytes = IN_FLIGHT_MAX_BYTES;
  const screen = (overrides: Partial<ScreenOptions> = {}): ReturnType<typeof screenOn> => screenOn(overrides);

  describe('the screen view', () => {
    it('shows the live viewport, not the scrollback, after 200 lines on a 24-row screen', async () => {
      const { screen: s } = screen({ cols: 80, rows: 24, scrollback: 1_000 });
      const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);

      await s.write(lines.join('\r\n'));

      const view = s.view();
      expect(view.rows).toHaveLength(24);
      expect(view.rows[0]).toBe('line 177');
      expect(view.rows[23]).toBe('line 200');
      expect(view.cursorRow).toBe(23);
      expect(view.cursorCol).toBe('line 200'.length);
    });

    it('trims trailing blanks and reports the cursor where CSI H put it', async () => {
      const { screen: s } = screen();

      await s.write('hello   \x1b[5;10Hx\x1b[5;10H');

      const view = s.view();
      expect(view.rows[0]).toBe('hello');
      expect(view.rows[4]).toBe('         x');
      expect([view.cursorRow, view.cursorCol]).toEqual([4, 9]);
    });

    it('flags the alternate screen between CSI ?1049h and CSI ?1049l', async () => {
      const { screen: s } = screen();
      await s.write('shell prompt');

      await s.write('\x1b[?1049h\x1b[Hfull-screen app');
      const inside = s.view();
      await s.write('\x1b[?1049l');
      const after = s.view();

      expect(inside.isAlternateScreen).toBe(true);
      expect(inside.rows[0]).toBe('full-screen app');
      expect(after.isAlternateScreen).toBe(false);
      expect(after.rows[0]).toBe('shell prompt');
    });

    it(
      'parses a small write into an idle mirror before write returns, and resolves the write',
      async () => {
        const { screen: s } = screen();
        let isResolved = false;

        const written = s.write('parsed').then(() => {
          isResolved = true;
        });
        const before = s.view().rows[0];
        await written;

        expect(before).toBe('parsed');
        expect(isResolved).toBe(true);
        expect(s.view().rows[0]).toBe('parsed');
      },
    );

    it('raises the revision only when the screen changed, and returns the cached view otherwise', async () => {
      const { screen: s } = screen();
      await s.write('same');
      const first = s.view();

      const again = s.view();
      await s.write('\x1b[1;1Hsame');
      const unchanged = s.view();
      await s.write(osc('2;a title only'));
      const titleOnly = s.view();
      await s.write(' more');
      const changed = s.view();

      expect(again).toBe(first);
      expect(unchanged.revision).toBe(first.revision);
      expect(titleOnly.revision).toBe(first.revision);
      expect(changed.revision).toBe(first.revision + 1);
      expect(changed.rows[0]).toBe('same more');
    });

    it('applies a resize in order with the writes before it', async () => {
      const { screen: s } = screen();

      void s.write('x'.repeat(50));
      await s.resize(60, 5);

      const view = s.view();
      expect(view.cols).toBe(60);
      expect(view.rows).toHaveLength(5);
      expect(view.rows.join('')).toBe('x'.repeat(50));
    });
  });

  describe('evidence timing', () => {
    it('stamps every kind with the time its bytes arrived', async () => {
      const { screen: s, clock } = screen();

      clock.advanceTo(1_100);
      await s.write(osc('0;first title'));
      clock.advanceTo(1_200);
      await s.write(osc('9;4;1;40', '\x1b\\'));
      clock.advanceTo(1_300);
      await s.write(osc('9;Build finished'));
      clock.advanceTo(1_400);
      await s.write('\x07');
      clock.advanceTo(1_500);
      await s.write(osc('133;D;2'));
      clock.advanceTo(1_600);
      await s.write(osc('2;second title'));

      expect(s.evidence()).toEqual({
        title: { text: 'second title', changedAtMs: 1_600, recentChangesMs: [1_100, 1_600] },
        progress: { state: 1, value: 40, atMs: 1_200 },
        lastMark: { kind: 'D', exitCode: 2, atMs: 1_500 },
        lastNotificationAtMs: 1_300,
        lastBellAtMs: 1_400,
      });
    });

    it('uses the arrival time even when parsing happens later', async () => {
      const { screen: s, clock } = screen();

      const written = s.write(osc('2;arrived at 1000'));
      clock.advanceTo(5_000);
      await written;

      expect(s.evidence().title?.changedAtMs).toBe(1_000);
    });

    it('replaces the title and progress objects only when they change', async () => {
      const { screen: s, clock } = screen();
      await s.write(osc('2;steady') + osc('9;4;3'));
      const before = s.evidence();

      clock.advanceTo(2_000);
      await s.write('\x07');
      const after = s.evidence();

      expect(after.lastBellAtMs).toBe(2_000);
      expect(after.title).toBe(before.title);
      expect(after.progress).toBe(before.progress);
    });

    it('does not count the BEL that terminates an OSC as a bell', async () => {
      const { screen: s, clock } = screen();

      await s.write(osc('2;title ended by BEL', '\x07'));
      const afterOsc = s.evidence().lastBellAtMs;
      clock.advanceTo(4_000);
      await s.write('text\x07');

      expect(afterOsc).toBeUndefined();
      expect(s.evidence().lastBellAtMs).toBe(4_000);
    });

  });

  describe('flow control', () => {
    it('survives a flood larger than 50 MB fed without awaiting, with bounded queue, and catches up', async () => {
      const { screen: s } = screen({ cols: 80, rows: 24 });
      let maxQueued = 0;
      let last: Promise<void> = Promise.resolve();

      for (const chunk of chunksOf(flood())) {
        last = s.write(chunk);
        maxQueued = Math.max(maxQueued, s.stats().queuedBytes);
      }
      await last;

      const exact = createScreen({ cols: 80, rows: 24, clock: manualClock(1_000), exact: true });
      await exact.write(flood().subarray(flood().length - 2 * 1024 * 1024));
      const stats = s.stats();
      expect(maxQueued).toBeLessThanOrEqual(BACKLOG_HIGH_BYTES + inFlightMaxBytes + 64 * 1024);
      expect(stats.skippedBytes).toBeGreaterThan(0);
      expect(stats.queuedBytes).toBe(0);
      expect(stats.parsedBytes + stats.skippedBytes).toBe(flood().length);
      expect(s.view().rows).toEqual(exact.view().rows);
      expect(s.evidence().title?.text).toBe(exact.evidence().title?.text);
      exact.dispose();
    });

    it('never skips in exact mode, even with more than 50 MB unawaited', async () => {
      const { screen: s } = screen({ cols: 80, rows: 24, exact: true });
      let last: Promise<void> = Promise.resolve();

      for (const chunk of chunksOf(flood())) last = s.write(chunk);
      await last;

      expect(s.stats()).toMatchObject({ queuedBytes: 0, skippedBytes: 0, parsedBytes: flood().length, cuts: 0, budgetWaits: 0, parseMs: undefined });
    });

    it('salvages title, bell, notification and screen mode from skipped bytes', async () => {
      const { screen: s, clock } = screen({ backlogHighBytes: 64 * 1024, backlogLowBytes: 16 * 1024 });
      // Fills what the parser may hold, so the next write waits in the backlog.
      for (let sent = 0; sent < inFlightMaxBytes; sent += 32 * 1024) void s.write('x'.repeat(32 * 1024));
      clock.advanceTo(1_500);
      void s.write(`${osc('2;skipped title')}\x07${osc('777;notify;t;b')}\x1b[?1049h${osc('9;4;3')}`);
      clock.advanceTo(2_000);
      let last: Promise<void> = Promise.resolve();
      for (let i = 0; i < 20; i++) last = s.write(`\x1b[H${'y'.repeat(8 * 1024)}`);
      await last;

      expect(s.stats().skippedBytes).toBeGreaterThan(0);
      expect(s.evidence()).toMatchObject({
        title: { text: 'skipped title', changedAtMs: 1_500 },
        progress: { state: 3, value: undefined, atMs: 1_500 },
        lastNotificationAtMs: 1_500,
        lastBellAtMs: 1_500,
      });
      expect(s.view().isAlternateScreen).toBe(true);
      expect(s.view().rows[0]).toBe('y'.repeat(40));
    });

    it('resolves every pending write on dispose and ignores writes afterwards', async () => {
      const { screen: s } = screen();
      const pending = s.write('z'.repeat(3 * inFlightMaxBytes));

      s.dispose();
      await pending;
      await s.write('after');

      expect(s.view().rows[0]).toBe('');
    });
  });
});

describe('OSC parsing', () => {
  const screen = screenOn;

  it.each([
    ['777;notify;Claude;needs input', 'OSC 777 notify'],
    ['99;i=1:d=0;Hello', 'OSC 99 (kitty)'],
    ['9;Done: 3 tests passed', 'OSC 9 with text'],
  ])('records %s as a notification (%s)', async (payload) => {
    const { screen: s, clock } = screen();
    clock.advanceTo(2_000);

    await s.write(osc(payload));

    expect(s.evidence().lastNotificationAtMs).toBe(2_000);
  });

  it.each([
    ['9;9;/home/user', 'a ConEmu cwd report'],
    ['777;preexec', 'another 777 extension'],
    ['99;i=1:p=?;', 'a kitty capability query'],
  ])('does not record %s as a notification (%s)', async (payload) => {
    const { screen: s } = screen();

    await s.write(osc(payload));

    expect(s.evidence().lastNotificationAtMs).toBeUndefined();
  });

  it.each([
    ['4;1;-1', { state: 1, value: undefined }],
    ['4;3', { state: 3, value: undefined }],
    ['4;3;', { state: 3, value: undefined }],
    ['4;0;0', { state: 0, value: 0 }],
    ['4;1;abc', { state: 1, value: undefined }],
    ['4;2;150', { state: 2, value: 100 }],
    ['4;9;10', { state: 4, value: 10 }],
    ['4', { state: 0, value: undefined }],
  ])('parses progress 9;%s leniently', async (payload, expected) => {
    const { screen: s } = screen();

    await s.write(osc(`9;${payload}`));

    expect(s.evidence().progress).toEqual({ ...expected, atMs: 1_000 });
  });

  it('ignores a progress report whose state is garbage (9;4;x;y), keeping the previous one', async () => {
    const { screen: s, clock } = screen();
    await s.write(osc('9;4;1;20'));
    clock.advanceTo(3_000);

    await s.write(osc('9;4;x;y'));

    expect(s.evidence().progress).toEqual({ state: 1, value: 20, atMs: 1_000 });
  });

  it('records OSC 133 marks A, B, C and D with and without an exit code', async () => {
    const { screen: s } = screen();
    const marks: unknown[] = [];

    for (const payload of ['133;A', '133;B', '133;C;cmdline=ls', '133;D', '133;D;130;aid=7', '133;Z']) {
      await s.write(osc(payload));
      marks.push(s.evidence().lastMark);
    }

    expect(marks).toEqual([
      { kind: 'A', exitCode: undefined, atMs: 1_000 },
      { kind: 'B', exitCode: undefined, atMs: 1_000 },
      { kind: 'C', exitCode: undefined, atMs: 1_000 },
      { kind: 'D', exitCode: undefined, atMs: 1_000 },
      { kind: 'D', exitCode: 130, atMs: 1_000 },
      { kind: 'D', exitCode: 130, atMs: 1_000 },
    ]);
  });

  it('counts a repeated title as no change and keeps only the last few change times', async () => {
    const { screen: s, clock } = screen();

    await s.write(osc('2;same'));
    clock.advanceTo(1_500);
    await s.write(osc('2;same'));
    const afterRepeat = s.evidence().title;
    for (let i = 0; i < TITLE_RECENT_CHANGES + 3; i++) {
      clock.advanceTo(2_000 + i);
      await s.write(osc(`2;frame ${i}`));
    }
    const afterSpin = s.evidence().title;

    expect(afterRepeat).toEqual({ text: 'same', changedAtMs: 1_000, recentChangesMs: [1_000] });
    expect(afterSpin?.recentChangesMs).toHaveLength(TITLE_RECENT_CHANGES);
    expect(afterSpin?.recentChangesMs.at(-1)).toBe(2_000 + TITLE_RECENT_CHANGES + 2);
  });

  it('stores a bounded copy of a megabyte title', async () => {
    const { screen: s } = screen();
    const huge = `\u202e${'A\x01'.repeat(1024 * 1024)}`;

    await s.write(osc(`2;${huge}`));

    const title = s.evidence().title;
    expect(title?.text).toHaveLength(TITLE_MAX_CHARS);
    // xterm's parser drops C0 controls inside an OSC; the bidi override reaches us.
    expect(title?.text).toBe(huge.replaceAll('\x01', '').slice(0, TITLE_MAX_CHARS));
  });
});

describe('chunk boundaries', () => {
  const sample =
    'héllo 日本語 🚀\r\n\x1b[31mred\x1b[0m \x1b[2;20Hmoved' +
    osc('2;tïtle ✓') +
    osc('9;4;1;55', '\x1b\\') +
    osc('133;D;3') +
    osc('777;notify;a;b') +
    '\x07\x1b[?1049h\x1b[3;3H╭─╮ done';

  async function feed(chunks: readonly (string | Uint8Array)[]): Promise<unknown> {
    const { screen: s, clock } = screenOn();
    for (const [i, chunk] of chunks.entries()) {
      clock.advanceTo(1_000); // one arrival time, so evidence compares equal whatever the split
      await s.write(chunk);
      void i;
    }
    const { revision: _revision, ...view } = s.view();
    return { view, evidence: s.evidence() };
  }

  it('gives the same rows and evidence whatever byte the UTF-8 stream is split at', async () => {
    const bytes = Buffer.from(sample, 'utf8');
    const whole = await feed([bytes]);

    for (let at = 1; at < bytes.length; at++) {
      expect(await feed([bytes.subarray(0, at), bytes.subarray(at)]), `split at byte ${at}`).toEqual(whole);
    }
  });

  it('gives the same rows and evidence whatever UTF-16 unit a string is split at', async () => {
    const whole = await feed([sample]);

    for (let at = 1; at < sample.length; at++) {
      expect(await feed([sample.slice(0, at), sample.slice(at)]), `split at unit ${at}`).toEqual(whole);
    }
  });
});
