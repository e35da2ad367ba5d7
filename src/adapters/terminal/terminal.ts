/**
 * The user's own terminal (agentwrap's stdin/stdout): raw mode in, restored on every way out,
 * its size and resizes, job-control stops, and the reset sequence for modes a crashed agent
 * left on. The PTY side lives in pty/; app/launch/launch.ts wires the two together.
 *
 * Raw mode here is the full cfmakeraw set. Node's setRawMode (libuv UV_TTY_MODE_RAW) keeps
 * OPOST|ONLCR on, so a raw-mode program that writes a bare "\n" to mean "cursor down" (ncurses
 * does when it turned ONLCR off on its own pty) would get "\r\n" on the user's screen and a
 * different picture than when run directly. So with setRawMode we also turn OPOST off on stdout
 * (one ioctl through the native relay addon, before the agent is spawned so its first bytes
 * already pass as they are; `stty -opost` after the spawn where the addon is missing); the
 * `stty -g` snapshot taken before is what restore() puts back.
 */
import { spawnSync } from 'node:child_process';
import { loadNativeRelay } from '../relay.js';
import { startTerminalGuardian, type TerminalGuardian } from './guardian.js';
import { watchForHangup } from './hangup.js';

export { ModeTracker, type ModeState } from './modes.js';

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/** The size a program assumes when there is no terminal to ask (the VT100 default). */
export const FALLBACK_SIZE: TerminalSize = { cols: 80, rows: 24 };

export interface OuterTerminal {
  /** Whether stdin and stdout are both terminals; only then is there a screen to wrap. */
  readonly isInteractive: boolean;
  /**
   * The file descriptors behind onInput and write, when they are real ones the native relay
   * (adapters/relay.ts) can read and write itself; absent for terminals made of callbacks.
   */
  readonly fds?: { readonly input: number; readonly output: number };
  /** Bytes the user typed (or piped in), as they arrive. */
  onInput(listener: (chunk: Buffer) => void): () => void;
  /** Called once when input ends (a pipe or file reached EOF). */
  onInputEnd(listener: () => void): () => void;
  /** Writes to the user's screen; synchronous for TTYs, pipes and files on POSIX. */
  write(chunk: Buffer | string): void;
  size(): TerminalSize;
  onResize(listener: (size: TerminalSize) => void): () => void;
  /** Enters raw mode; restore() is then guaranteed at process exit, whatever the exit path. */
  enterRaw(): void;
  /**
   * enterRaw in two steps, for a launch: raw input now (`stty -g`, then the raw ioctl), and
   * the rest (`stty -opost`, the terminal guardian) when the returned function is called, once
   * the agent was spawned, so its first screen waits for neither (two process starts: 60-200 ms
   * on a loaded 2-core machine). Optional: without it, enterRaw does both at once.
   */
  enterRawInputFirst?(): () => void;
  /** Puts the terminal modes back as they were before enterRaw. Idempotent and synchronous. */
  restore(): void;
  /**
   * Job control: restores the terminal, stops agentwrap itself with SIGTSTP (so the shell
   * prints "Stopped" and `fg` works), and once continued re-enters raw mode. Returns after the
   * continue. In an orphaned process group (no job-control shell) the kernel discards the stop
   * and this returns at once.
   */
  suspendSelf(): void;
  /** Stops listening to input and resizes. Does not restore: call restore() for that. */
  dispose(): void;
  /**
   * What to write if agentwrap dies without restoring (kill -9): the resets for the modes the
   * agent has on now. Optional: only a real terminal has a guardian to tell.
   */
  setCrashReset?(sequence: string): void;
  /**
   * Whether the terminal went away (hung up: the tmux server or window is gone). Optional: a
   * terminal made of callbacks never goes away.
   */
  isGone?(): boolean;
  /** Called once when the terminal is found gone (a write failed with EIO/EPIPE, input hung up). */
  onGone?(listener: () => void): () => void;
}

type Warn = (message: string) => void;

type SttyResult = { ok: true; stdout: string } | { ok: false; error: string };

function runStty(args: readonly string[], fd: number): SttyResult {
  // stty acts on its stdin, so hand it the terminal's fd as fd 0.
  const result = spawnSync('stty', [...args], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.error !== undefined) return { ok: false, error: result.error.message };
  if (result.status !== 0) return { ok: false, error: result.stderr.trim() || `stty exited ${String(result.status)}` };
  return { ok: true, stdout: result.stdout.trim() };
}

/**
 * Stops agentwrap itself with SIGTSTP, as a shell's job. With a SIGTSTP listener installed,
 * Node would catch our own signal instead of stopping: the listeners come off, and go back on
 * after the continue.
 */
function stopLikeAJob(): void {
  const listeners = process.listeners('SIGTSTP');
  for (const listener of listeners) process.removeListener('SIGTSTP', listener);
  try {
    process.kill(process.pid, 'SIGTSTP');
  } finally {
    for (const listener of listeners) process.on('SIGTSTP', listener);
  }
}

/** OPOST off on fd with one ioctl (the relay addon's), or false when the addon cannot. */
function outputRawAtOnce(fd: number): boolean {
  const relay = loadNativeRelay();
  if (!relay.ok || typeof relay.module.outputRaw !== 'function') return false;
  try {
    return relay.module.outputRaw(fd);
  } catch {
    return false;
  }
}

/**
 * The terminal's settings as `stty -g` prints them: read by the relay addon with one tcgetattr
 * where it can (Linux), else by an stty process. On a loaded 2-core machine that process took
 * 20-150 ms, all of it before the agent was spawned.
 */
function modeSnapshot(fd: number): SttyResult {
  const relay = loadNativeRelay();
  if (relay.ok && typeof relay.module.modeSnapshot === 'function') {
    try {
      const snapshot = relay.module.modeSnapshot(fd);
      if (typeof snapshot === 'string') return { ok: true, stdout: snapshot };
    } catch {
      // Fall back to stty, which says why if it fails too.
    }
  }
  return runStty(['-g'], fd);
}

/** The terminal's size, or the VT100 default where there is none (or it hung up). */
function windowSize(stdout: NodeJS.WriteStream): TerminalSize {
  if (stdout.isTTY === true) {
    try {
      const [cols, rows] = stdout.getWindowSize();
      if (cols > 0 && rows > 0) return { cols, rows };
    } catch {
      // EIO: the terminal hung up; the size it had no longer matters.
    }
  }
  return FALLBACK_SIZE;
}

interface RawMode {
  /** Cooked again (input and output as they were); the guardian is told. */
  restore(): void;
  /** Raw input (the snapshot first, for restore and the guardian); whether raw mode is now on. */
  enterRawInput(): boolean;
  /** Raw output (no post-processing) and the guardian, once raw input is on. */
  completeRaw(): void;
  isRaw(): boolean;
  setCrashReset(sequence: string): void;
}

/** Raw mode on process.stdin, with the stty snapshot and the guardian that restore it. */
function rawModeOf(
  stdin: NodeJS.ReadStream,
  isInteractive: boolean,
  hangup: Pick<ReturnType<typeof watchForHangup>, 'markGone' | 'isGone'>,
  warnOnce: (key: string, message: string) => void,
): RawMode {
  const { markGone, isGone } = hangup;
  let isRaw = false;
  let outputSnapshot: string | undefined;
  let isExitHookInstalled = false;
  /** OPOST went off with raw input (the addon's ioctl), so completeRaw has no stty to run. */
  let isOutputRaw = false;
  // Started on the first raw mode; restores the terminal if agentwrap is killed (guardian.ts).
  let guardian: TerminalGuardian | undefined;

  const restore = (): void => {
    if (!isRaw) return;
    isRaw = false;
    isOutputRaw = false;
    try {
      if (stdin.isTTY === true) stdin.setRawMode(false);
    } catch {
      // The terminal is gone (hangup): there is nothing left to restore.
    }
    if (outputSnapshot !== undefined && !isGone()) runStty([outputSnapshot], 1);
    guardian?.disarmed();
  };

  const enterRawInput = (): boolean => {
    // A hung-up terminal has no modes left to set (and its SIGCONT is no `fg`: hangup.ts).
    if (isRaw || !isInteractive || isGone()) return false;
    const snapshot = modeSnapshot(1);
    outputSnapshot = snapshot.ok ? snapshot.stdout : undefined;
    try {
      stdin.setRawMode(true);
    } catch {
      // EIO: it hung up between the check and the ioctl; the session ends on the hangup.
      markGone();
      return false;
    }
    isRaw = true;
    isOutputRaw = outputRawAtOnce(1);
    if (!isExitHookInstalled) {
      isExitHookInstalled = true;
      // 'exit' runs on process.exit, on a normal end and after an uncaught exception, so the
      // terminal is cooked again whatever went wrong (Node also restores its startup termios).
      process.on('exit', restore);
    }
    return true;
  };

  const completeRaw = (): void => {
    if (!isRaw || isGone()) return;
    const opost = isOutputRaw ? { ok: true as const } : runStty(['-opost'], 1);
    if (!opost.ok && !isGone()) {
      warnOnce('opost', `could not turn off output post-processing (stty: ${opost.error}); programs that send bare line feeds may look different`);
    }
    if (outputSnapshot !== undefined) {
      guardian ??= startTerminalGuardian(outputSnapshot, 1, (message) => warnOnce('guardian', message));
      guardian.armed();
    }
  };

  return { restore, enterRawInput, completeRaw, isRaw: () => isRaw, setCrashReset: (sequence) => guardian?.setReset(sequence) };
}

/** The terminal agentwrap was started in: process.stdin and process.stdout. */
export function processTerminal(warn: Warn = (message) => process.stderr.write(`agentwrap: ${message}\n`)): OuterTerminal {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const isInteractive = stdin.isTTY === true && stdout.isTTY === true;
  const size = (): TerminalSize => windowSize(stdout);
  const warnedAbout = new Set<string>();
  const warnOnce = (key: string, message: string): void => {
    if (warnedAbout.has(key)) return;
    warnedAbout.add(key);
    warn(message);
  };
  const disposers: Array<() => void> = [];

  // A vanished terminal (SIGHUP, closed pipe) makes writes fail with EIO/EPIPE; that must not
  // crash agentwrap while it is still shutting the agent down (hangup.ts).
  const hangup = watchForHangup(isInteractive);
  disposers.push(hangup.dispose);
  const { markGone, isGone } = hangup;

  const { restore, enterRawInput, completeRaw, isRaw, setCrashReset } = rawModeOf(stdin, isInteractive, hangup, warnOnce);
  const enterRaw = (): void => {
    if (enterRawInput()) completeRaw();
  };

  return {
    isInteractive,
    ...(isInteractive ? { fds: { input: 0, output: 1 } } : {}),
    onInput(listener) {
      const handler = (chunk: Buffer | string): void => listener(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      stdin.on('data', handler);
      return () => stdin.removeListener('data', handler);
    },
    onInputEnd(listener) {
      // A terminal's input ends only when it hangs up (raw mode reads never return 0 otherwise).
      const handler = (): void => {
        if (stdin.isTTY === true) markGone();
        listener();
      };
      stdin.once('end', handler);
      return () => stdin.removeListener('end', handler);
    },
    write(chunk) {
      if (hangup.isMarked()) return;
      try {
        stdout.write(chunk);
      } catch {
        // Synchronous EIO/EPIPE from a terminal that went away: stop writing, keep shutting down.
        markGone();
      }
    },
    size,
    onResize(listener) {
      const handler = (): void => listener(size());
      stdout.on('resize', handler);
      return () => stdout.removeListener('resize', handler);
    },
    enterRaw,
    enterRawInputFirst() {
      return enterRawInput() ? completeRaw : () => undefined;
    },
    restore,
    suspendSelf() {
      const wasRaw = isRaw();
      restore();
      stopLikeAJob();
      if (wasRaw) enterRaw();
    },
    dispose() {
      for (const dispose of disposers.splice(0)) dispose();
      stdin.pause();
    },
    setCrashReset,
    isGone,
    onGone: hangup.onGone,
  };
}
