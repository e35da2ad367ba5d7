import { describe, expect, it } from 'vitest';
import { CPU_QUIET_RATE, LONG_SETTLED_TICK_MS, SETTLE_AFTER_MS, SETTLED_TICK_MS, TICK_MS } from '../../../src/core/policy.js';
import { isSettled, tickFloorMs, type CadenceInput } from '../../../src/core/detector/tick-cadence.js';
import { sampledProcess, unsampledProcess } from '../../helpers/detector-builders.js';

/** An idle session whose last activity was at t = 0, its tree quiet, asked at `nowMs`. */
function quietIdle(nowMs: number, overrides: Partial<CadenceInput> = {}): CadenceInput {
  return { state: 'idle', lastActivityAtMs: 0, process: sampledProcess({ cpuRate: 0 }), nowMs, ...overrides };
}

describe('tick cadence', () => {
  it('keeps the 1 s floor until nothing has happened for SETTLE_AFTER_MS, then stretches it', () => {
    expect(tickFloorMs(quietIdle(SETTLE_AFTER_MS - 1))).toBe(TICK_MS);
    expect(tickFloorMs(quietIdle(SETTLE_AFTER_MS))).toBe(SETTLED_TICK_MS);
    expect(SETTLED_TICK_MS).toBeGreaterThan(TICK_MS);
  });

  it('grows a settled floor to half the quiet so far, within SETTLED_TICK_MS … LONG_SETTLED_TICK_MS', () => {
    expect(tickFloorMs(quietIdle(2 * SETTLED_TICK_MS))).toBe(SETTLED_TICK_MS);
    expect(tickFloorMs(quietIdle(2 * SETTLED_TICK_MS + 4_000))).toBe(SETTLED_TICK_MS + 2_000);
    expect(tickFloorMs(quietIdle(2 * LONG_SETTLED_TICK_MS))).toBe(LONG_SETTLED_TICK_MS);
    expect(tickFloorMs(quietIdle(60 * 60_000))).toBe(LONG_SETTLED_TICK_MS);
    // Quiet is counted from the newest activity: a keystroke a second ago means settled is not reached.
    expect(tickFloorMs(quietIdle(60 * 60_000, { lastActivityAtMs: 60 * 60_000 - 1_000 }))).toBe(TICK_MS);
  });

  it('settles in every state but working', () => {
    for (const state of ['idle', 'done', 'blocked', 'unknown'] as const) expect(isSettled(quietIdle(60_000, { state }))).toBe(true);
    expect(isSettled(quietIdle(60_000, { state: 'working' }))).toBe(false);
  });

  it('counts quiet from the newest activity, not from the start', () => {
    expect(isSettled(quietIdle(60_000, { lastActivityAtMs: 60_000 - SETTLE_AFTER_MS + 1 }))).toBe(false);
    expect(isSettled(quietIdle(60_000, { lastActivityAtMs: 60_000 - SETTLE_AFTER_MS }))).toBe(true);
  });

  it('keeps looking every second while the tree uses CPU, is stopped, or was never measured', () => {
    expect(isSettled(quietIdle(60_000, { process: sampledProcess({ cpuRate: CPU_QUIET_RATE }) }))).toBe(false);
    expect(isSettled(quietIdle(60_000, { process: sampledProcess({ cpuRate: CPU_QUIET_RATE / 2 }) }))).toBe(true);
    expect(isSettled(quietIdle(60_000, { process: sampledProcess({ cpuRate: 0, isStopped: true }) }))).toBe(false);
    expect(isSettled(quietIdle(60_000, { process: sampledProcess({ cpuRate: undefined }) }))).toBe(false);
    expect(isSettled(quietIdle(60_000, { process: unsampledProcess() }))).toBe(false);
    expect(isSettled(quietIdle(60_000, { process: undefined }))).toBe(false);
  });
});
