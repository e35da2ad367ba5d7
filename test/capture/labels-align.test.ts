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
