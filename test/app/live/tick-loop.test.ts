import { describe, expect, it, vi } from 'vitest';
import { manualClock, systemClock } from '../../../src/adapters/clock.js';
import { TickLoop } from '../../../src/app/live/tick-loop.js';

/** A detector that is always due and counts its evaluations. */
function detector() {
  const calls: string[] = [];
  return { calls, nextDueMs: () => 0, outputMark: () => 0, evaluate: () => (calls.push('evaluate'), { changed: calls.length === 1 }) };
}

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
};

describe('TickLoop', () => {
  it('evaluates only after the last noted screen write is parsed', async () => {
    const d = detector();
    const after: boolean[] = [];
    const loop = new TickLoop(d, manualClock(0), (changed) => after.push(changed));
    let parse!: () => void;
    loop.noteWrite(new Promise<void>((resolve) => (parse = resolve)));

    loop.arm();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const beforeParse = [...d.calls];
    parse();
    await until(() => after.length > 0);
    loop.stop();

    expect(beforeParse).toEqual([]);
    expect(after[0]).toBe(true);
  });

  it('tells evaluate how much output the awaited screen held, not what was handed over during the wait', async () => {
    let handedOver = 1;
    const marks: number[] = [];
    const d = { nextDueMs: () => 1e9, outputMark: () => handedOver, evaluate: (mark: number) => (marks.push(mark), { changed: false }) };
    const loop = new TickLoop(d, manualClock(0), () => undefined);
    let parse!: () => void;
    loop.noteWrite(new Promise<void>((resolve) => (parse = resolve)));

    loop.tickNow();
    await new Promise((resolve) => setTimeout(resolve, 5));
    handedOver = 2; // a chunk handed over while the tick waits: its write is queued behind
    parse();
    await until(() => marks.length > 0);
    loop.stop();

    expect(marks).toEqual([1]);
  });

  it('re-arms after each tick until stopped, and a poke after stop arms nothing', async () => {
    const d = detector();
    const loop = new TickLoop(d, manualClock(0), () => undefined);

    loop.arm();
    await until(() => d.calls.length >= 3);
    loop.stop();
    const stoppedAt = d.calls.length;
    loop.poke();
    await new Promise((resolve) => setTimeout(resolve, 5));

    expect(d.calls.length).toBeLessThanOrEqual(stoppedAt + 1);
  });

  it('wakes for what afterTick has due (the record refresh) when the detector has nothing due sooner', async () => {
    const farOff = { calls: [] as string[], nextDueMs: () => 1e9, outputMark: () => 0, evaluate: () => ({ changed: false }) };
    const refreshes: number[] = [];
    let refreshDueMs = 0;
    const loop = new TickLoop(farOff, manualClock(0), (_changed, nowMs) => {
      refreshes.push(nowMs);
      refreshDueMs = 1e9;
    }, () => refreshDueMs);
    const idle = new TickLoop(farOff, manualClock(0), () => refreshes.push(-1));

    loop.arm();
    idle.arm();
    await until(() => refreshes.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    loop.stop();
    idle.stop();

    expect(refreshes).toEqual([0]);
  });

  it('tickNow evaluates in this wake-up, after the noted write is parsed, though nothing is due', async () => {
    const d = { calls: [] as string[], nextDueMs: () => 1e9, outputMark: () => 0, evaluate: () => (d.calls.push('evaluate'), { changed: false }) };
    const loop = new TickLoop(d, manualClock(0), () => undefined);
    let parse!: () => void;
    loop.noteWrite(new Promise<void>((resolve) => (parse = resolve)));

    loop.arm();
    loop.tickNow();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const beforeParse = [...d.calls];
    parse();
    await until(() => d.calls.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    loop.stop();

    expect(beforeParse).toEqual([]);
    expect(d.calls).toEqual(['evaluate']);
  });

  // Node never moves its libuv timer later: a timer cleared and armed again for a later time
  // left a wake-up at the old expiry that ran nothing (one per spinner hand-over).
  it('keeps the armed timer when a plan moves the due time later, and does not evaluate before that time', async () => {
    let dueMs = systemClock.nowMs() + 20;
    const evaluatedAt: number[] = [];
    const d = {
      nextDueMs: () => dueMs,
      outputMark: () => 0,
      evaluate: () => {
        evaluatedAt.push(systemClock.nowMs());
        dueMs = systemClock.nowMs() + 1e6;
        return { changed: false };
      },
    };
    const loop = new TickLoop(d, systemClock, () => undefined);
    const clears = vi.spyOn(globalThis, 'clearTimeout');
    try {
      loop.arm();
      const laterDueMs = systemClock.nowMs() + 80;
      dueMs = laterDueMs;
      loop.arm();
      expect(clears).not.toHaveBeenCalled();
      await until(() => evaluatedAt.length > 0);
      expect(evaluatedAt[0]).toBeGreaterThanOrEqual(laterDueMs - 2);
    } finally {
      loop.stop();
      clears.mockRestore();
    }
  });

  it('re-arms at once when a plan moves the due time earlier', async () => {
    let dueMs = systemClock.nowMs() + 60_000;
    const evaluatedAt: number[] = [];
    const d = { nextDueMs: () => dueMs, outputMark: () => 0, evaluate: () => (evaluatedAt.push(systemClock.nowMs()), (dueMs = systemClock.nowMs() + 1e6), { changed: false }) };
    const loop = new TickLoop(d, systemClock, () => undefined);
    loop.arm();
    const earlierDueMs = systemClock.nowMs() + 10;
    dueMs = earlierDueMs;
    loop.poke();
    await until(() => evaluatedAt.length > 0);
    loop.stop();

    expect(evaluatedAt[0]).toBeGreaterThanOrEqual(earlierDueMs - 2);
  });
});
