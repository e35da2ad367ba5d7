/**
 * A terminal that goes away (the tmux server killed, the window closed, the ssh link dropped)
 * is a normal ending, not a crash. After a hangup the kernel fails every write and ioctl on it
 * with EIO (isatty says no), reads return end-of-file, and it sends SIGHUP and SIGCONT to the
 * session leader. Three things would otherwise crash agentwrap on the way out:
 * - a write's EIO arrives as an 'error' event on process.stdout/stderr a tick later, with no
 *   listener left (the launcher's listener is removed when it is done): an uncaught exception;
 * - Node's exit code (ResetStdio, src/node.cc) puts back the termios it saved at start on every
 *   fd 0-2 that was a terminal, and asserts that tcsetattr succeeded: EIO aborts the process
 *   with a native stack dump. It skips an fd that now names another file, so a hung-up fd is
 *   pointed at /dev/null first (detachHungUpStdio);
 * - the SIGCONT that comes with the hangup looks like `fg` after a stop, whose handler puts the
 *   terminal back in raw mode: `stty` on a dead terminal (the "could not turn off output
 *   post-processing … Input/output error" seen at the end of such sessions).
 */
import { closeSync, openSync, readlinkSync } from 'node:fs';
import { isatty } from 'node:tty';
import { loadNativeRelay } from '../relay.js';

/** The errors a terminal that went away (or was never there) gives on a write or an ioctl. */
const HANGUP_CODES: ReadonlySet<string> = new Set(['EIO', 'EPIPE', 'EBADF', 'ENXIO', 'ENOTTY']);

export function isHangupError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && HANGUP_CODES.has(code);
}

let startupTerminalsSeen: readonly boolean[] | undefined;

/** Which of fds 0-2 were terminals when agentwrap started (Node decided it then, too). */
function startupTerminals(): readonly boolean[] {
  // Taken once: the launcher looks after every output hand-over, and the answer never changes.
  startupTerminalsSeen ??= [process.stdin.isTTY === true, process.stdout.isTTY === true, process.stderr.isTTY === true];
  return startupTerminalsSeen;
}

/** A terminal at start that no longer answers as one: it hung up (or the fd was closed). */
export function isHungUp(fd: number, wasTerminal = startupTerminals()[fd] === true): boolean {
  return wasTerminal && !isatty(fd);
}

/**
 * A terminal that hung up before agentwrap first looked at it (the tmux server killed while
 * agentwrap was starting): Node then takes the fd for a file, not a TTY. Told apart from a pipe
 * or a file by what the fd names: a terminal device (/dev/pts/N, /dev/tty…) that no longer
 * answers as one. Linux only (/proc/self/fd); elsewhere false, and the fd is taken as it looks.
 */
export function isHungUpTerminal(fd: number): boolean {
  if (isatty(fd)) return false;
  try {
    return /^\/dev\/(?:pts\/\d+|tty)/.test(readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return false;
  }
}

/**
 * Points every fd 0-2 whose terminal hung up at /dev/null, so that Node's exit does not assert
 * on restoring it (see the file comment). Only at exit: nothing reads or writes them after.
 * open() takes the lowest free fd, which is the one just closed (nothing else opens files on
 * the way out); if another thread took it meanwhile, the fd still names another file.
 */
export function detachHungUpStdio(): void {
  const wasTerminal = startupTerminals();
  for (let fd = 0; fd <= 2; fd++) {
    if (!isHungUp(fd, wasTerminal[fd] === true)) continue;
    try {
      closeSync(fd);
      const opened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
      if (opened !== fd) closeSync(opened);
    } catch {
      // Already closed, or /dev/null missing: Node then skips or reports the fd itself.
    }
  }
}

const goneListeners = new Set<() => void>();
let isGuarded = false;

/**
 * Keeps a listener for 'error' on process.stdin, stdout and stderr for the rest of the
 * process, so a terminal that went away can never make a late write error uncaught, and
 * detaches hung-up stdio at exit. `onGone` hears of hangup errors on stdin/stdout until the
 * returned function is called (other stdio errors are swallowed too: nothing useful is left to
 * do with a broken stdio stream). The process-wide part is installed once.
 */
export function guardStdioErrors(onGone: () => void): () => void {
  goneListeners.add(onGone);
  if (!isGuarded) {
    isGuarded = true;
    const notify = (error: unknown): void => {
      if (isHangupError(error)) for (const listener of goneListeners) listener();
    };
    process.stdin.on('error', notify);
    process.stdout.on('error', notify);
    // stderr may be a file or pipe of its own: its errors are swallowed, not taken for a hangup.
    process.stderr.on('error', () => undefined);
    process.on('exit', detachHungUpStdio);
    // The native addon's exit hook does the same check just before Node's own (see relay.c);
    // loaded here even where the event-loop relay carries the bytes. Best effort: without the
    // addon the check above is all there is.
    loadNativeRelay({});
  }
  return () => goneListeners.delete(onGone);
}

export interface HangupWatch {
  /** Records that the terminal went away; the first call tells every onGone listener. */
  markGone(): void;
  /** Whether it went away, looking at the fds again (isatty) while not yet known. */
  isGone(): boolean;
  /** Whether it is already known gone, without looking again. */
  isMarked(): boolean;
  onGone(listener: () => void): () => void;
  dispose(): void;
}

/**
 * One terminal's "gone" state: set by a failed write or read, or found by isatty on fds 0-1.
 * The process-wide stdio guard it installs stays after dispose (a write error can surface
 * later).
 */
export function watchForHangup(isInteractive: boolean): HangupWatch {
  let isGoneMarked = false;
  const listeners = new Set<() => void>();
  const markGone = (): void => {
    if (isGoneMarked) return;
    isGoneMarked = true;
    for (const listener of listeners) listener();
  };
  const dispose = guardStdioErrors(markGone);
  return {
    markGone,
    isGone() {
      if (!isGoneMarked && isInteractive && (isHungUp(0) || isHungUp(1))) markGone();
      return isGoneMarked;
    },
    isMarked: () => isGoneMarked,
    onGone(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose,
  };
}
