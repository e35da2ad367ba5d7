/**
 * The terminal the dashboard takes over: alternate screen, hidden cursor, raw keys, resizes,
 * and putting all of it back. The terminal is restored on every way out: q, Ctrl-C, SIGINT,
 * SIGTERM, SIGHUP, a terminal that went away (EIO/EPIPE on write, end of input), and, as a last
 * resort, process exit.
 */
import { detachHungUpStdio } from '../../app/platform.js';

const ESC = '\u001b';
const ENTER_ALT_SCREEN = `${ESC}[?1049h${ESC}[?25l${ESC}[2J`;
const LEAVE_ALT_SCREEN = `${ESC}[?25h${ESC}[?1049l`;
const CLEAR_SCREEN = `${ESC}[2J`;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export interface TerminalHandlers {
  onInput(text: string): void;
  /** The size changed and the screen was cleared: everything must be drawn again. */
  onResize(): void;
  /** A signal, the end of input or a write that failed: the dashboard should close. */
  onGone(): void;
}

export class DashboardTerminal {
  private isOpen = false;
  /** Which stdio descriptors were terminals when the dashboard opened (a redirected stderr is not). */

  constructor(
    private readonly handlers: TerminalHandlers,
    private readonly out: typeof process.stdout = process.stdout,
    private readonly input: typeof process.stdin = process.stdin,
  ) {}

  get width(): number {
    return this.out.columns ?? 80;
  }

  get height(): number {
    return this.out.rows ?? 24;
  }

  open(): void {
    this.isOpen = true;
    for (const signal of SIGNALS) process.on(signal, this.gone);
    process.on('exit', this.restore);
    // These two stay attached after close: an EIO arriving later must not become an
    // unhandled 'error' event that crashes with a stack trace.
    this.out.on('error', this.gone);
    this.input.on('error', this.gone);
    this.input.on('end', this.gone);
    this.out.on('resize', this.resized);
    this.input.setRawMode(true);
    this.input.on('data', this.received);
    this.input.resume();
    this.write(ENTER_ALT_SCREEN);
  }

  write(text: string): void {
    try {
      this.out.write(text);
    } catch {
      this.handlers.onGone();
    }
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    for (const signal of SIGNALS) process.off(signal, this.gone);
    this.input.off('data', this.received);
    this.input.off('end', this.gone);
    this.out.off('resize', this.resized);
    process.off('exit', this.restore);
    this.restore();
    this.input.pause();
    // Node 20 resets every stdio terminal at exit and aborts when it hung up (nodejs/node#51519):
    // a killed pane or a dropped ssh link must not end in a crash report (adapters/terminal/hangup.ts).
    detachHungUpStdio();
  }

  /** Also the exit hook, the last resort after an exception elsewhere: never the alternate screen left behind. */
  private readonly restore = (): void => {
    try {
      if (this.input.isTTY) this.input.setRawMode(false);
      this.out.write(LEAVE_ALT_SCREEN);
    } catch {
      // The terminal is gone: nothing to restore.
    }
  };

  private readonly gone = (): void => this.handlers.onGone();

  private readonly received = (chunk: Buffer | string): void => this.handlers.onInput(chunk.toString());

  private readonly resized = (): void => {
    this.write(CLEAR_SCREEN);
    this.handlers.onResize();
  };
}
