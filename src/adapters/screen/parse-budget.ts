/** The live mirror's parse budget: how much parse time it may spend, refilled with wall time. */
import type { ParsePacing } from './types.js';

/**
 * A token bucket of parse time (ms), refilled with wall time. Charged with the measured
 * duration of each synchronous parse; the debt is floored at one burst, so an unbudgeted
 * catch-up does not silence budgeted parsing for seconds afterwards.
 */
export class ParseBudget {
  private tokensMs: number;
  private refilledAtMs: number;

  constructor(
    private readonly pacing: ParsePacing,
    private readonly nowMs: () => number,
  ) {
    this.tokensMs = pacing.burstMs;
    this.refilledAtMs = nowMs();
  }

  get tokens(): number {
    return this.tokensMs;
  }

  refill(): number {
    const nowMs = this.nowMs();
    this.tokensMs = Math.min(this.pacing.burstMs, this.tokensMs + ((nowMs - this.refilledAtMs) * this.pacing.budgetMsPerSecond) / 1000);
    this.refilledAtMs = nowMs;
    return this.tokensMs;
  }

  charge(ms: number): void {
    this.tokensMs = Math.max(this.tokensMs - ms, -this.pacing.burstMs);
  }

  /** How long until the bucket holds `levelMs` (Infinity with a zero budget). */
  msUntil(levelMs: number): number {
    const missingMs = levelMs - this.tokensMs;
    if (missingMs <= 0) return 0;
    return this.pacing.budgetMsPerSecond > 0 ? (missingMs * 1000) / this.pacing.budgetMsPerSecond : Number.POSITIVE_INFINITY;
  }
}
