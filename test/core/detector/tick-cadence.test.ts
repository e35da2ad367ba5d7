import { describe, expect, it } from 'vitest';
import { CPU_QUIET_RATE, SETTLE_AFTER_MS, SETTLED_TICK_MS, TICK_MS } from '../../../src/core/policy.js';
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
