/**
 * When the agent has drawn its first screen: the moment the live session (screen mirror, packs,
 * RE2, records, control socket: ~100 ms of CPU) starts loading. Loaded at the spawn, that work
 * ran on the same cores as the agent's own start-up and its first screen waited for it: on 2
 * cores, Claude's first paint came ~40 ms later than with the load put off (paired medians over
 * bare, 9 interleaved rounds at load 1.9-2.3: +119 against +82 ms hooks off, +122 against +84
 * ms hooks on; docs/launcher.md).
 *
 * "Drawn" is read from the output: a screenful of bytes (FIRST_SCREEN_BYTES) and then a pause
 * of FIRST_SCREEN_QUIET_MS. Byte counts, because the CLIs write a few bytes long before their
 * screen (Claude a cursor reset 0.2 s before, Gemini 39 bytes 1.1 s before, OpenCode 205 bytes
 * 2-4 s before, in the committed recordings), and a pause alone would fire in those gaps. The
 * user's first keystroke also counts (a shell prompt is a few bytes: whoever types is past the
 * start), and so does FIRST_SCREEN_WAIT_MAX_MS after the spawn, for a program that draws little.
 * The output meanwhile is held with its read times (launch/taps.ts), so detection sees it as
 * it came; passthrough never waits for any of this.
 */

/** Output bytes that make a first screen (a CLI's is several KiB; 120x40 of text is 4.8 KiB). */
export const FIRST_SCREEN_BYTES = 1024;

/** The pause after them that says the screen is drawn (the native relay's own quiet hand-over). */
export const FIRST_SCREEN_QUIET_MS = 100;

/**
 * The longest the live session waits for a first screen after the spawn: past OpenCode's
 * (2.0-2.4 s bare in tmux, E2E.md), short enough that a program drawing little (a shell prompt)
 * is published soon. Gemini draws at ~4 s, after it: its live session loads during its start.
 */
export const FIRST_SCREEN_WAIT_MAX_MS = 3000;

export class FirstScreenWatch {
  /** Resolves once the first screen is drawn (or the wait is over); never rejects. */
  readonly drawn: Promise<void>;
  private resolveDrawn: () => void = () => undefined;
  private bytes = 0;
  private isDone = false;
  private quietTimer: NodeJS.Timeout | undefined;
  private readonly maxTimer: NodeJS.Timeout;

  constructor() {
    this.drawn = new Promise((resolve) => {
      this.resolveDrawn = resolve;
    });
    this.maxTimer = setTimeout(() => this.done(), FIRST_SCREEN_WAIT_MAX_MS);
    // Never what keeps agentwrap alive: the agent's exit ends the wait (done) anyway.
    this.maxTimer.unref();
  }

  /** After each output chunk (as handed over: the relay may batch several reads). */
  noteOutput(byteCount: number): void {
    if (this.isDone) return;
    this.bytes += byteCount;
    if (this.bytes < FIRST_SCREEN_BYTES) return;
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.done(), FIRST_SCREEN_QUIET_MS);
    this.quietTimer.unref();
  }

  /** The user typed: the start is over for them. */
  noteInput(): void {
    this.done();
  }

  /** The wait is over (also when the agent exited before drawing anything). */
  done(): void {
    if (this.isDone) return;
    this.isDone = true;
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.resolveDrawn();
  }
}
