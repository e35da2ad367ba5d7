/**
 * Signals around a wrapped agent: Ctrl-Z (the agent stops, so agentwrap hands the terminal back
 * and stops too), signals sent to agentwrap (forwarded to the agent as if typed), and SIGCONT
 * after someone else stopped agentwrap (raw mode set again).
 */
import type { PtyProcess } from '../../adapters/pty/index.js';
import { signalStoppedAgent } from '../../adapters/process/stopped-agent.js';
import type { OuterTerminal, TerminalSize } from '../../adapters/terminal/terminal.js';

/**
 * After forwarding SIGTERM/SIGHUP/SIGINT/SIGQUIT, how long the agent may take to exit before
 * it is killed. Long enough for an agent to save its session, short enough that `kill` on
 * agentwrap still means "stop".
 */
export const SIGNAL_GRACE_MS = 5_000;

/**
 * How often agentwrap looks whether its terminal hung up (two isatty calls) while nothing it
 * writes or reads would tell it: a silent agent, and no SIGHUP because the shell that owned
 * the terminal caught the hangup and passed nothing on. A rare case, so a slow look: every
 * wake-up of an idle wrapper costs CPU across dozens of sessions (BENCHMARKS.md, idle).
 */
export const HANGUP_LOOK_MS = 5_000;

/** Signals to agentwrap that go on to the agent. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT'];

/**
 * Holds the forwarded signals from the start of a launch until handleSignals takes them: with
 * no listener, SIGHUP or SIGTERM kills agentwrap at once (the default action), and in the gap
 * between raw mode and handleSignals that left the terminal raw, with no guardian yet and the
 * agent already running. With a listener Node queues the signal for the next turn of the event
 * loop, which finds handleSignals' handlers in place. Returns the release (after handleSignals).
 */
export function holdSignalsDuringLaunch(): () => void {
  const hold = (): void => undefined;
  for (const signal of FORWARDED_SIGNALS) process.on(signal, hold);
  return () => {
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, hold);
  };
}

export interface SignalHandling {
  /** Removes every handler and the grace timer. */
  dispose(): void;
}

export function handleSignals(
  pty: Pick<PtyProcess, 'onStopped' | 'signalGroup' | 'signalForeground' | 'commandPid'>,
  terminal: Pick<OuterTerminal, 'suspendSelf' | 'size' | 'restore' | 'enterRaw' | 'onGone' | 'isGone'>,
  applySize: (size: TerminalSize) => void,
  isForwarding: boolean,
): SignalHandling {
  const disposers: Array<() => void> = [];
  // Ctrl-Z: in raw mode it is just byte 0x1a for the agent. When the agent then stops (its tty
  // sent it SIGTSTP, or it stopped itself as vim does), the pair stops: agentwrap hands the
  // terminal back and stops too; on `fg` it takes the terminal again, continues the agent's
  // group and asks it to redraw.
  let isResuming = false;
  // The job-control helper (pty/job-control.ts) stops when the agent stopped, and once
  // continued puts the agent back in the pty's foreground with a SIGWINCH so it redraws.
  disposers.push(
    pty.onStopped(() => {
      isResuming = true;
      terminal.suspendSelf();
      applySize(terminal.size());
      pty.signalGroup('SIGCONT');
    }),
  );
  let graceTimer: NodeJS.Timeout | undefined;
  const on = (signal: NodeJS.Signals, handler: (signal: NodeJS.Signals) => void): void => {
    process.on(signal, handler);
    disposers.push(() => process.removeListener(signal, handler));
  };
  if (isForwarding) {
    // To the pty's foreground group, as if typed (kill -INT agentwrap ≈ Ctrl-C in the agent).
    // A stopped agent is not the foreground (the job-control helper is) and would keep the
    // signal pending: its group gets it, then SIGCONT, and the helper is left alone (killing it
    // would orphan the stopped group, whose SIGHUP from the kernel would come first).
    const forward = (signal: NodeJS.Signals): void => {
      if (!signalStoppedAgent(pty.commandPid(), signal)) pty.signalForeground(signal);
      graceTimer ??= setTimeout(() => {
        if (!signalStoppedAgent(pty.commandPid(), 'SIGKILL')) pty.signalForeground('SIGKILL');
      }, SIGNAL_GRACE_MS);
    };
    // One hangup is one SIGHUP for the agent, however many ways agentwrap learns of it (the
    // signal, a failed write, the input's end): an agent may count them (a second one often
    // means "quit now, skip saving").
    let isHangupForwarded = false;
    const forwardHangup = (): void => {
      if (isHangupForwarded) return;
      isHangupForwarded = true;
      forward('SIGHUP');
    };
    // A terminal that went away without a SIGHUP reaching agentwrap (found by a failed write or
    // read, or on the SIGCONT of a hangup) ends the session as the hangup would have.
    if (terminal.onGone !== undefined) disposers.push(terminal.onGone(forwardHangup));
    // Gone already (hung up while agentwrap was starting): the listener above came too late.
    if (terminal.isGone?.() === true) forwardHangup();
    if (terminal.isGone !== undefined) {
      const look = setInterval(() => terminal.isGone?.(), HANGUP_LOOK_MS);
      look.unref();
      disposers.push(() => clearInterval(look));
    }
    for (const signal of FORWARDED_SIGNALS) on(signal, signal === 'SIGHUP' ? forwardHangup : forward);
    // A SIGTSTP sent to agentwrap (not typed: raw mode turns ISIG off) stops the agent's group
    // the way a typed Ctrl-Z would; the stop handler above then stops agentwrap.
    on('SIGTSTP', () => pty.signalForeground('SIGTSTP'));
    // Continued after someone else stopped agentwrap (kill -STOP, then fg): the shell took the
    // terminal back in between, so raw mode has to be set again.
    on('SIGCONT', () => {
      if (isResuming) {
        isResuming = false;
        return;
      }
      terminal.restore();
      terminal.enterRaw();
    });
  }
  return {
    dispose() {
      if (graceTimer !== undefined) clearTimeout(graceTimer);
      for (const dispose of disposers.splice(0)) dispose();
    },
  };
}

/** Takes a forwarded signal once the agent has exited (see the exit path). */
const ignoreWhileEnding = (): void => undefined;

/** From the agent's exit on: a forwarded signal no longer kills agentwrap mid-cleanup. */
export function ignoreSignalsWhileEnding(): void {
  for (const signal of FORWARDED_SIGNALS) process.on(signal, ignoreWhileEnding);
}
