import { describe, expect, it } from 'vitest';
import { StateHistory } from '../../../src/core/records/state-history.js';

const HOUR = 3_600_000;

describe('StateHistory', () => {
  it('keeps the last hour of transitions and remembers the state the window starts in', () => {
    const history = new StateHistory(0);
    history.add({ t: 1_000, to: 'working' });
    history.add({ t: 30 * 60_000, to: 'blocked' });
    history.add({ t: 50 * 60_000, to: 'working' });

    expect(history.snapshot(55 * 60_000)).toEqual({
      since: 0,
      initial: null,
      transitions: [
        { t: 1_000, to: 'working' },
        { t: 30 * 60_000, to: 'blocked' },
        { t: 50 * 60_000, to: 'working' },
      ],
    });
    // 40 minutes later the first two fell out of the window; the band starts blocked.
    expect(history.snapshot(95 * 60_000)).toEqual({ since: 95 * 60_000 - HOUR, initial: 'blocked', transitions: [{ t: 50 * 60_000, to: 'working' }] });
  });

  it('stays bounded however hard a session flaps', () => {
    const history = new StateHistory(0, HOUR, 100);
    for (let i = 0; i < 10_000; i++) history.add({ t: i * 10, to: i % 2 === 0 ? 'working' : 'idle' });
    const snapshot = history.snapshot(100_000);
    expect(snapshot.transitions).toHaveLength(100);
    expect(snapshot.transitions[0]).toEqual({ t: 9_900 * 10, to: 'working' });
    expect(snapshot.initial).toBe('idle');
    expect(history.length).toBe(100);
  });
});
