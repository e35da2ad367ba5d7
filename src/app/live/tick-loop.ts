/**
 * The live session's tick loop: one timer, armed for the detector's next due time. Output
 * re-arms it (the quiet recheck moves with each chunk); it never runs inside the output path
 * itself. (Re-arming per chunk costs a timer-list update, no wake-up; arming lazily and
 * re-arming when fired early was measured to add wake-ups under a 10 fps spinner, so it stays
 * eager.)
 */
import type { Clock } from '../../adapters/clock.js';

/** What the loop drives: the detector session's two tick-facing methods. */
export interface Tickable {
  nextDueMs(): number;
  /** How much output has been handed over; evaluate() is told how much the awaited screen held. */
  outputMark(): number;
  evaluate(outputMark: number): { readonly changed: boolean };
}

export class TickLoop {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private isTickingNow = false;
  private isStopped = false;
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(
    private readonly detector: Tickable,
    private readonly clock: Clock,
    /** After each evaluation, in the same wake-up (record refresh, title republish). */
    private readonly afterTick: (changed: boolean, nowMs: number) => void,
    /**
     * When afterTick has work of its own due (the record's refresh), on the clock's time: the
     * tick wakes for it, so a settled session whose tick floor is longer than the refresh
     * interval still refreshes on time and in a wake-up of the loop's, not a timer of its own.
     */
    private readonly afterTickDueMs: () => number = () => Number.POSITIVE_INFINITY,
  ) {}

  get isTicking(): boolean {
    return this.isTickingNow;
  }

  /** The screen write to wait for before the next evaluation (xterm parses on a later task). */
  noteWrite(written: Promise<void>): void {
    this.lastWrite = written;
  }

  /** Resolves once the last noted write is parsed. */
  written(): Promise<void> {
    return this.lastWrite;
  }

  /** Re-plans the timer for the detector's next due time. */
  arm(): void {
    this.cancel();
    const dueMs = Math.min(this.detector.nextDueMs(), this.afterTickDueMs());
    const delayMs = Math.max(0, dueMs - this.clock.nowMs());
    this.timer = setTimeout(() => this.runTick(), delayMs);
    this.timer.unref();
  }

  /** Something happened (output, input, a report): re-plan, unless a tick is running (it re-arms when done) or the loop stopped. */
  poke(): void {
    if (!this.isTickingNow && !this.isStopped) this.arm();
  }

  /**
   * Output arrived on the detector's own schedule (the native relay hands it over once output
   * has been quiet QUIET_RECHECK_MS, or every STREAMING_RECHECK_MS while it streams): tick in
   * this wake-up, once the write is parsed, instead of arming the quiet recheck's timer for a
   * moment the relay has already waited out (a second wake-up per hand-over under a spinner).
   */
  tickNow(): void {
    if (this.isTickingNow || this.isStopped) return;
    this.cancel();
    this.immediate = setImmediate(() => this.runTick());
    this.immediate.unref();
  }

  /** No more ticks (the agent exited); a tick in progress finishes without re-arming. */
  stop(): void {
    this.isStopped = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  private runTick(): void {
    this.timer = undefined;
    this.immediate = undefined;
    if (this.isTickingNow) return;
    this.isTickingNow = true;
    // Output handed over while the tick waits may not be parsed when it evaluates: it stays due.
    const outputMark = this.detector.outputMark();
    void this.lastWrite
      .then(() => {
        const { changed } = this.detector.evaluate(outputMark);
        this.afterTick(changed, this.clock.nowMs());
      })
      .finally(() => {
        this.isTickingNow = false;
        if (!this.isStopped) this.arm();
      });
  }
}
