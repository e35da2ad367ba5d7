/**
 * Offline tests of the capture lab's label clock alignment (labels.mjs keyClockOffsetMs): marks
 * are moved to where agentwrap recorded the driver's keys.
 */
import { describe, expect, it } from 'vitest';
import { keyClockOffsetMs } from './labels.mjs';
import { realignMeta, type RecordingMeta } from './relabel.mjs';

const cast = (events: [number, string, string][]): string => [JSON.stringify({ version: 2, width: 80, height: 24 }), ...events.map((e) => JSON.stringify(e))].join('\n');

describe('label clock alignment by the recorded keys', () => {
  it('returns the median offset between the keys written and the i events carrying them', () => {
    // cast start at wall 1000 ms; keys written at cast times 2.000, 5.000, 9.000 s
    const text = cast([[0.5, 'o', 'x'], [1.96, 'i', '\r'], [3, 'i', '\x1b[?1;2c'], [4.95, 'i', '\x1b'], [8.99, 'i', '\x03']]);
    const keys = [{ t: 3000, bytes: '\r' }, { t: 6000, bytes: '\x1b' }, { t: 10_000, bytes: '\x03' }];

    expect(keyClockOffsetMs(text, keys, 1000)).toBeCloseTo(-40, 6);
  });

  it('matches the keys in the order they were written, skipping terminal answers between them', () => {
    // Two Enters 0.5 s apart, recorded 0.3 s late; a terminal answer sits between them.
    const text = cast([[2.3, 'i', '\r'], [2.5, 'i', '\x1b[5;7R'], [2.8, 'i', '\r']]);

    expect(keyClockOffsetMs(text, [{ t: 2000, bytes: '\r' }, { t: 2500, bytes: '\r' }], 0)).toBeCloseTo(300, 6);
  });

  it('finds keys recorded 1.5 s from where the first output put them, a typed word among them', () => {
    // Letta Code in the tmux habitat: the first `o` event came 1.47 s after the output the driver
    // saw first, so every key's `i` event is 1.47 s earlier than its estimate; nearest-match
    // within 1 s found no Enter there, and a typed word's repeated letters would pair wrongly.
    const typed = 'noon'.split('').map((c, i) => ({ t: 9000 + i * 60, bytes: c }));
    const keys = [...typed, { t: 9400, bytes: '\r' }, { t: 12_900, bytes: '\r' }];
    const text = cast(keys.map((k) => [k.t / 1000 - 1.47, 'i', k.bytes] as [number, string, string]));

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(-1470, 6);
  });

  it('finds the keys seconds away when several agree on the shift (the first output seen was not the agent\'s)', () => {
    // Keys written at cast times 2.0-2.3 s by the output-based clock; agentwrap recorded them 3.4 s later.
    const typed = [['d', 2.0], ['e', 2.1], ['l', 2.2], ['\r', 2.3]] as const;
    const text = cast([[4.4, 'i', 'e'], ...typed.map(([bytes, s]): [number, string, string] => [s + 3.4 + 0.01, 'i', bytes])]);
    const keys = typed.map(([bytes, s]) => ({ t: s * 1000, bytes }));

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(3410, 6);
  });

  it('finds an offset over a second (a loaded machine) and does not pair a key with a wrong event of its bytes', () => {
    // Claude Code 2.1.337 simple-120x40 (2026-12-07): submit at 8.178 s and the two Ctrl-C at
    // 16.696 s and 17.096 s by the output-based estimate, recorded at 7.150, 15.674 and 16.074;
    // a stray Enter at 9.0 s.
    const text = cast([[7.15, 'i', '\r'], [9, 'i', '\r'], [15.674, 'i', '\x03'], [16.074, 'i', '\x03']]);
    const keys = [{ t: 8178, bytes: '\r' }, { t: 16_696, bytes: '\x03' }, { t: 17_096, bytes: '\x03' }];

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(-1022, 6);
  });

  it('lines the keys up as a whole when the output-based estimate is seconds off (a CLI silent for seconds after its start)', () => {
    // The driver's estimate puts the keys 8 s before agentwrap recorded them: a pane's first byte
    // came long before the CLI's. A lone terminal answer near the estimate does not count.
    const text = cast([[1.2, 'i', '\x1b[1;1R'], [10.04, 'i', 'a'], [10.14, 'i', 'b'], [10.24, 'i', 'a'], [10.34, 'i', '\r'], [20.04, 'i', '\x1b']]);
    const keys = [{ t: 2000, bytes: 'a' }, { t: 2100, bytes: 'b' }, { t: 2200, bytes: 'a' }, { t: 2300, bytes: '\r' }, { t: 12_000, bytes: '\x1b' }];

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(8040, 6);
  });

  it('finds an offset past the 1 s window through Enter first (a loaded machine: 2.04 s in claude/habitat-tmux/fail-network-80x24)', () => {
    // Keys written at 5.0 (a), 5.1 (b), 5.2 (a), 5.4 (Enter) s of the driver's clock; recorded 2.04 s earlier.
    const text = cast([[2.96, 'i', 'a'], [3.06, 'i', 'b'], [3.16, 'i', 'a'], [3.36, 'i', '\r']]);
    const keys = [{ t: 5000, bytes: 'a' }, { t: 5100, bytes: 'b' }, { t: 5200, bytes: 'a' }, { t: 5400, bytes: '\r' }];

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(-2040, 6);
  });

  it('is undefined when no key was recorded (a recorder without --record-input)', () => {
    expect(keyClockOffsetMs(cast([[1, 'o', 'x']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
    expect(keyClockOffsetMs(cast([[8, 'i', '\r']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
  });
});

describe('realigning a recording made with its keys unmatched', () => {
  function meta(): RecordingMeta {
    return {
      clock_offset_ms: null,
      label_marks: [{ t: 5.065, state: 'idle' }, { t: 8.173, state: 'working' }],
      driver_events: [{ t: 5.065, type: 'ready' }, { t: 8.178, type: 'key', detail: 'submit "\\r"' }],
      mock_events: [{ t: 11.345, type: 'stream_end' }],
      titles: [{ t: 2.5 }],
    };
  }

  it('moves every time of the meta onto the cast clock by the recorded keys', () => {
    const m = meta();

    const offset = realignMeta(m, cast([[7.15, 'i', '\r']]));

    expect(offset).toBeCloseTo(-1028, 6);
    expect(m.clock_offset_ms).toBe(-1028);
    expect(m.label_marks.map((e) => e.t)).toEqual([4.037, 7.145]);
    expect(m.driver_events.map((e) => e.t)).toEqual([4.037, 7.15]);
    expect(m.mock_events[0]?.t).toBe(10.317);
    expect(m.titles?.[0]?.t).toBe(1.472);
  });

  it('leaves the meta as it was when no key matches', () => {
    const m = meta();

    expect(realignMeta(m, cast([[1, 'o', 'x']]))).toBeUndefined();
    expect(m).toEqual(meta());
  });
});
