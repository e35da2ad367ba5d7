/**
 * The paced mirror's one pending wake-up: an immediate (parse on in the next turn) or a timer
 * (the budget refills, or output goes quiet). Only the bookkeeping lives here; what a wake-up
 * does is the screen's (flow-control.ts `onTimer` / `onImmediate`).
 */
import { performance } from 'node:perf_hooks';

export class ParseWakes {
  private timer: NodeJS.Timeout | undefined;
  private timerAtMs = Number.POSITIVE_INFINITY;
  private immediate: NodeJS.Immediate | undefined;
  private isQuietCheckDue = false;

  constructor(
    private readonly onTimer: () => void,
    /** `isQuietCheck`: the immediate was armed to check whether output went quiet. */
    private readonly onImmediate: (isQuietCheck: boolean) => void,
  ) {}

  armImmediate(isQuietCheck: boolean): void {
    this.isQuietCheckDue ||= isQuietCheck;
    if (this.immediate !== undefined) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      const isDue = this.isQuietCheckDue;
      this.isQuietCheckDue = false;
      this.onImmediate(isDue);
    });
  }

  /** A timer that fires later than needed is replaced; an earlier one is kept (it re-plans). */
  armTimer(atMs: number): void {
    if (this.timer !== undefined && this.timerAtMs <= atMs + 1) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAtMs = atMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAtMs = Number.POSITIVE_INFINITY;
        this.onTimer();
      },
      Math.max(0, Math.ceil(atMs - performance.now())),
    );
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.timerAtMs = Number.POSITIVE_INFINITY;
    this.isQuietCheckDue = false;
  }
}
