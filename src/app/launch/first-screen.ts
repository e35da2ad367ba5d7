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
 *
 * Bytes and a pause are not the end of a start, though: OpenCode writes 7.8 KiB (its queries and
 * a blank screen) 1.0-1.3 s after its start, then computes for 3 s on 1.3-1.4 cores before it
 * draws; Gemini is still starting at the 3 s mark. So once the output says "drawn", the agent's
 * own CPU (its process tree, /proc) must say so too: under FIRST_SCREEN_QUIET_CPU cores over
 * FIRST_SCREEN_CPU_WINDOW_MS, looked at again every window until FIRST_SCREEN_BUSY_MAX_MS. A
 * keystroke ends the wait at once; without /proc the output alone decides.
 *
 * A screenful drawn after the CPU was found busy ends the wait too, once the output pauses for
 * FIRST_SCREEN_REDRAW_QUIET_MS: the agent has drawn the screen its user reads, and a status not
 * published while it shows is worth more than the CPU it saves. OpenCode 1.18.33 in tmux draws a
 * blank screen in two parts at 1.6 and 1.85 s (hence: output before the first busy reading is
 * still the first screen), its home screen in three at 6.46, 6.56 and 6.77 s, and computes on
 * 1.2-1.7 cores until ~10 s, bare, online and offline alike: waiting for a quiet CPU published
 * its idle prompt 3.5 s after it showed.
 * The output meanwhile is held with its read times (launch/taps.ts), so detection sees it as
 * it came; passthrough never waits for any of this.
 */

import { CPU_RATE_MIN_WINDOW_MS } from '../../core/policy.js';

/** Output bytes that make a first screen (a CLI's is several KiB; 120x40 of text is 4.8 KiB). */
export const FIRST_SCREEN_BYTES = 1024;

/** The pause after them that says the screen is drawn (the native relay's own quiet hand-over). */
export const FIRST_SCREEN_QUIET_MS = 100;

/**
 * The longest the live session waits for a first screen after the spawn, CPU aside: past
 * OpenCode's (2.0-2.4 s bare in tmux, E2E.md), short enough that a program drawing little (a
 * shell prompt) is published soon.
 */
export const FIRST_SCREEN_WAIT_MAX_MS = 3000;

/** The pause that ends a screen drawn while the agent is busy (OpenCode's home screen comes in parts up to 0.22 s apart). */
export const FIRST_SCREEN_REDRAW_QUIET_MS = 300;

/** The agent's CPU (cores, its whole process tree) under which its start is over. */
export const FIRST_SCREEN_QUIET_CPU = 0.5;

/** The window the agent's CPU is measured over, and how often it is looked at again (the probe's shortest). */
export const FIRST_SCREEN_CPU_WINDOW_MS = CPU_RATE_MIN_WINDOW_MS;

/** The longest an agent still busy on the CPU puts the live session off, after the spawn. */
export const FIRST_SCREEN_BUSY_MAX_MS = 10_000;

/** The agent's CPU since the previous call, in cores; undefined when unknown (no /proc, first call). */
export type AgentCpuRate = () => number | undefined;

/** A terminal's report: CSI (CPR, DA, DECRQM, kitty flags, window size), OSC (colours), DCS (XTVERSION, XTGETTCAP). */
const TERMINAL_REPORT = /\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\/g;

/**
 * Whether `chunk` is nothing but terminal reports. A key that sends an escape sequence (an
 * arrow) reads as one too; before the first screen that costs nothing but a later load.
 */
export function isOnlyTerminalReports(chunk: Uint8Array): boolean {
  const text = Buffer.from(chunk).toString('latin1');
  return text.length > 0 && text.replace(TERMINAL_REPORT, '') === '';
}

export class FirstScreenWatch {
  /** Resolves once the first screen is drawn (or the wait is over); never rejects. */
  readonly drawn: Promise<void>;
  private resolveDrawn: () => void = () => undefined;
  private bytes = 0;
  private bytesWhileBusy = 0;
  private isDone = false;
  private isCheckingCpu = false;
  private hasSeenBusy = false;
  private quietTimer: NodeJS.Timeout | undefined;
  private cpuTimer: NodeJS.Timeout | undefined;
  private readonly maxTimer: NodeJS.Timeout;
  private readonly busyMaxAtMs: number;

  /** `cpuRate`: the agent's CPU (launch.ts reads its process tree); absent, the output alone decides. */
  constructor(private readonly cpuRate?: AgentCpuRate) {
    this.drawn = new Promise((resolve) => {
      this.resolveDrawn = resolve;
    });
    this.busyMaxAtMs = Date.now() + FIRST_SCREEN_BUSY_MAX_MS;
    this.maxTimer = setTimeout(() => this.outputSaysDrawn(), FIRST_SCREEN_WAIT_MAX_MS);
    // Never what keeps agentwrap alive: the agent's exit ends the wait (done) anyway.
    this.maxTimer.unref();
  }

  /** After each output chunk (as handed over: the relay may batch several reads). */
  noteOutput(byteCount: number): void {
    if (this.isDone) return;
    if (this.isCheckingCpu) {
      if (this.hasSeenBusy) this.bytesWhileBusy += byteCount;
      if (this.bytesWhileBusy >= FIRST_SCREEN_BYTES) this.afterQuiet(FIRST_SCREEN_REDRAW_QUIET_MS, () => this.done());
      return;
    }
    this.bytes += byteCount;
    if (this.bytes >= FIRST_SCREEN_BYTES) this.afterQuiet(FIRST_SCREEN_QUIET_MS, () => this.outputSaysDrawn());
  }

  /**
   * Input arrived: the user typed, and the start is over for them. Not when it is only the
   * terminal answering the agent's queries (tmux answers OpenCode's at 1.0 s, Codex's at 0.5 s,
   * while they are still starting).
   */
  noteInput(chunk: Uint8Array): void {
    if (!this.isDone && !isOnlyTerminalReports(chunk)) this.done();
  }

  /** The wait is over (also when the agent exited before drawing anything). */
  done(): void {
    if (this.isDone) return;
    this.isDone = true;
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    clearTimeout(this.cpuTimer);
    this.resolveDrawn();
  }

  /** `then`, once the output has paused for `quietMs`. */
  private afterQuiet(quietMs: number, then: () => void): void {
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(then, quietMs);
    this.quietTimer.unref();
  }

  /** The output (or the longest wait) says drawn: now the agent's CPU has its say. */
  private outputSaysDrawn(): void {
    if (this.isDone || this.isCheckingCpu) return;
    if (this.cpuRate === undefined) return this.done();
    this.isCheckingCpu = true;
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.cpuRate(); // the window starts now
    this.checkCpuLater();
  }

  private checkCpuLater(): void {
    this.cpuTimer = setTimeout(() => {
      const rate = this.cpuRate?.();
      if (rate === undefined || rate < FIRST_SCREEN_QUIET_CPU || Date.now() >= this.busyMaxAtMs) return this.done();
      this.hasSeenBusy = true;
      this.checkCpuLater();
    }, FIRST_SCREEN_CPU_WINDOW_MS);
    this.cpuTimer.unref();
  }
}
