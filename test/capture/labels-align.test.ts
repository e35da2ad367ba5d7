/**
 * Offline tests of the capture lab's label clock alignment (labels.mjs keyClockOffsetMs): marks
 * are moved to where agentwrap recorded the driver's keys.
 */
import { describe, expect, it } from 'vitest';
import { keyClockOffsetMs } from './labels.mjs';

const cast = (events: [number, string, string][]): string => [JSON.stringify({ version: 2, width: 80, height: 24 }), ...events.map((e) => JSON.stringify(e))].join('\n');

describe('label clock alignment by the recorded keys', () => {
  it('returns the median offset between the keys written and the i events carrying them', () => {
    // cast start at wall 1000 ms; keys written at cast times 2.000, 5.000, 9.000 s
    const text = cast([[0.5, 'o', 'x'], [1.96, 'i', '\r'], [3, 'i', '\x1b[?1;2c'], [4.95, 'i', '\x1b'], [8.99, 'i', '\x03']]);
    const keys = [{ t: 3000, bytes: '\r' }, { t: 6000, bytes: '\x1b' }, { t: 10_000, bytes: '\x03' }];

    expect(keyClockOffsetMs(text, keys, 1000)).toBeCloseTo(-40, 6);
  });

  it('matches each key to the nearest i event with the same bytes, ignoring terminal answers', () => {
    const text = cast([[1.2, 'i', '\r'], [2.03, 'i', '\r'], [2.01, 'i', '\x1b[5;7R']]);

    expect(keyClockOffsetMs(text, [{ t: 2000, bytes: '\r' }], 0)).toBeCloseTo(30, 6);
  });

  it('lines the keys up as a whole when the output-based estimate is seconds off (a CLI silent for seconds after its start)', () => {
    // The driver's estimate puts the keys 8 s before agentwrap recorded them: a pane's first byte
    // came long before the CLI's. A lone terminal answer near the estimate does not count.
    const text = cast([[1.2, 'i', '\x1b[1;1R'], [10.04, 'i', 'a'], [10.14, 'i', 'b'], [10.24, 'i', 'a'], [10.34, 'i', '\r'], [20.04, 'i', '\x1b']]);
    const keys = [{ t: 2000, bytes: 'a' }, { t: 2100, bytes: 'b' }, { t: 2200, bytes: 'a' }, { t: 2300, bytes: '\r' }, { t: 12_000, bytes: '\x1b' }];

    expect(keyClockOffsetMs(text, keys, 0)).toBeCloseTo(8040, 6);
  });

  it('is undefined when no key was recorded (a recorder without --record-input)', () => {
    expect(keyClockOffsetMs(cast([[1, 'o', 'x']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
    expect(keyClockOffsetMs(cast([[5, 'i', '\r']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
  });
});
