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

  it('is undefined when no key was recorded (a recorder without --record-input)', () => {
    expect(keyClockOffsetMs(cast([[1, 'o', 'x']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
    expect(keyClockOffsetMs(cast([[6, 'i', '\r']]), [{ t: 1000, bytes: '\r' }], 0)).toBeUndefined();
  });
});
