/**
 * The terminal guardian (adapters/terminal/guardian.ts) learns the mode resets when they change:
 * one integer comparison per chunk. Not on every change, though: a TUI using synchronized
 * output (mode 2026) switches a mode on and off in every frame, and telling the guardian (a
 * pipe write and a shell waking up) each time cost ~10% of agentwrap's CPU in a flood. So a new
 * reset goes out at once when none went out in the last GUARDIAN_UPDATE_MIN_MS, else once that
 * interval is over; the guardian's reset may lag the screen by that much.
 */
import type { ModeState } from '../../adapters/terminal/terminal.js';

/** The most often the terminal guardian is told new mode resets. */
export const GUARDIAN_UPDATE_MIN_MS = 100;

export class GuardianUpdates {
  private guardedRevision: number;
  private guardedReset: string;
  private lastUpdateMs = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly modes: ModeState,
    /** The terminal's crash reset setter; undefined when the terminal has no guardian. */
    private readonly setCrashReset: ((reset: string) => void) | undefined,
  ) {
    this.guardedRevision = modes.revision;
    this.guardedReset = modes.resetSequence();
  }

  /** After each output chunk: the modes may have changed. */
  noteOutput(): void {
    if (this.modes.revision === this.guardedRevision) return;
    this.guardedRevision = this.modes.revision;
    if (this.timer !== undefined) return;
    const waitMs = this.lastUpdateMs + GUARDIAN_UPDATE_MIN_MS - performance.now();
    if (waitMs <= 0) this.update();
    else {
      this.timer = setTimeout(() => this.update(), waitMs);
      this.timer.unref();
    }
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private update(): void {
    this.timer = undefined;
    const reset = this.modes.resetSequence();
    if (reset === this.guardedReset) return;
    this.guardedReset = reset;
    this.lastUpdateMs = performance.now();
    this.setCrashReset?.(reset);
  }
}
