/**
 * How often a session's tick must run when nothing asks for one sooner: the TICK_MS floor, or
 * once the session has settled SETTLED_TICK_MS, growing with the quiet to LONG_SETTLED_TICK_MS
 * (policy.ts says why). Pure: the caller passes the times and the last /proc sample.
 */
import { CPU_QUIET_RATE, LONG_SETTLED_TICK_MS, SETTLE_AFTER_MS, SETTLED_TICK_MS, TICK_MS } from '../policy.js';
import type { AgentState, ProcessEvidence } from '../types.js';

export interface CadenceInput {
  /** The published state: `working` keeps the 1 Hz floor (the watchdog reads every sample). */
  readonly state: AgentState;
  /** The newest of: output read, a keystroke, a report, the published state's last change, the session's start. */
  readonly lastActivityAtMs: number;
  /** The last /proc sample the tick took; undefined before the first. */
  readonly process: ProcessEvidence | undefined;
  readonly nowMs: number;
}

/** Whether nothing can change until new evidence arrives (or a deadline the caller schedules anyway). */
export function isSettled(input: CadenceInput): boolean {
  if (input.state === 'working') return false;
  if (input.nowMs - input.lastActivityAtMs < SETTLE_AFTER_MS) return false;
  const sample = input.process;
  // No sample, a first sample without a rate, a busy or stopped tree: keep looking every second.
  if (sample === undefined || !sample.sampled || sample.cpuRate === undefined) return false;
  return sample.cpuRate < CPU_QUIET_RATE && !sample.isStopped;
}

/** The longest the next tick may wait: half the quiet so far once settled, within SETTLED_TICK_MS … LONG_SETTLED_TICK_MS. */
export function tickFloorMs(input: CadenceInput): number {
  if (!isSettled(input)) return TICK_MS;
  const halfQuietMs = Math.floor((input.nowMs - input.lastActivityAtMs) / 2);
  return Math.min(LONG_SETTLED_TICK_MS, Math.max(SETTLED_TICK_MS, halfQuietMs));
}
