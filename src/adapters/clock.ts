/**
 * Time for the impure layers. Core never reads a clock: the session passes `clock.nowMs()` in.
 * `nowMs` is monotonic (for durations and ordering); `wallMs` is Unix epoch milliseconds (for
 * published timestamps). Replay and tests use a manual clock that only moves when told.
 */
export interface Clock {
  /** Monotonic milliseconds; only differences are meaningful. */
  nowMs(): number;
  /** Unix epoch milliseconds, for records other tools read. */
  wallMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => performance.now(),
  wallMs: () => Date.now(),
};

export interface ManualClock extends Clock {
  /** Moves time forward (never back). */
  advanceTo(nowMs: number): void;
  advanceBy(deltaMs: number): void;
}

/** A clock that only moves when told. `wallStartMs` is the epoch time that `nowMs() = 0` maps to. */
export function manualClock(startMs = 0, wallStartMs = 0): ManualClock {
  let now = startMs;
  return {
    nowMs: () => now,
    wallMs: () => wallStartMs + now,
    advanceTo(next: number): void {
      if (next > now) now = next;
    },
    advanceBy(deltaMs: number): void {
      if (deltaMs > 0) now += deltaMs;
    },
  };
}
