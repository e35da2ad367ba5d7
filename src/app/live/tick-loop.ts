/**
 * The live session's tick loop: one timer, armed for the detector's next due time. Output
 * re-plans it (the quiet recheck moves with each chunk); it never runs inside the output path
 * itself.
 *
 * A plan that moves the due time earlier re-arms the timer at once. One that moves it later
 * keeps the armed timer, which then re-plans when it fires instead of ticking: Node never moves
 * its libuv timer later, so a cleared timer still woke the thread at its old expiry for nothing.
 * Under a 10 fps spinner every hand-over ticks and re-planned the 1 s floor, and each such
 * re-plan left one such empty wake-up behind (one per hand-over, ~4 a second); kept, the floor
 * timer fires once a second and re-plans in a few microseconds of JavaScript.
 */
import type { Clock } from '../../adapters/clock.js';

/** How early a kept timer may fire and still tick rather than plan again (see onTimer). */
const TIMER_SLACK_MS = 2;

/** What the loop drives: the detector session's two tick-facing methods. */
export interface Tickable {
  nextDueMs(): number;
  /** How much output has been handed over; evaluate() is told how much the awaited screen held. */
  outputMark(): number;
  evaluate(outputMark: number): { readonly changed: boolean };
}

export class TickLoop {
  private timer: NodeJS.Timeout | undefined;
  /** The time the armed timer was set for (clock time); later plans keep it (see above). */
  private timerDueMs = Number.POSITIVE_INFINITY;
  /** A later plan kept the armed timer: when it fires, it plans again rather than ticking. */
  private isPlanLater = false;
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
    const dueMs = Math.min(this.detector.nextDueMs(), this.afterTickDueMs());
    // An armed timer due no later stays: it re-plans when it fires (onTimer).
    if (this.timer !== undefined && this.immediate === undefined && this.timerDueMs <= dueMs) {
      this.isPlanLater ||= dueMs > this.timerDueMs;
      return;
    }
    this.cancel();
    const delayMs = Math.max(0, dueMs - this.clock.nowMs());
    this.timerDueMs = dueMs;
    this.timer = setTimeout(() => this.onTimer(), delayMs);
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
    if (this.isTickingNow || this.isStopped || this.immediate !== undefined) return;
    // The armed timer stays: the tick's own re-plan keeps it or moves it earlier.
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.runTick();
    });
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
    this.timerDueMs = Number.POSITIVE_INFINITY;
    this.isPlanLater = false;
    this.immediate = undefined;
  }

  /**
   * The timer fired: tick, as it was armed for, unless a later plan kept it; then plan again
   * (ticking if that plan is due by now: libuv counts whole milliseconds from the start of its
   * loop turn, so a timer may fire a little before its time on this clock).
   */
  private onTimer(): void {
    const isPlanLater = this.isPlanLater;
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    this.isPlanLater = false;
    if (this.isTickingNow || this.isStopped || this.immediate !== undefined) return;
    if (isPlanLater && Math.min(this.detector.nextDueMs(), this.afterTickDueMs()) > this.clock.nowMs() + TIMER_SLACK_MS) this.arm();
    else this.runTick();
  }

  private runTick(): void {
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
