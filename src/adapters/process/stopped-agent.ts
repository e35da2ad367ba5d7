/**
 * A terminating signal sent to a stopped process stays pending until something continues it.
 * agentwrap passes SIGTERM/SIGHUP/SIGINT/SIGQUIT to the pty's foreground group, which is not
 * the agent while the agent is stopped (`kill -STOP`: the job-control helper holds the
 * terminal then), so `kill <agentwrap>` used to do nothing for as long as the agent stayed
 * stopped. Shells follow a terminating signal to a stopped job with SIGCONT (bash's `kill`,
 * the kernel for an orphaned group); agentwrap does the same for the agent's group.
 */
import { readProcStat, signalQuietly } from '../pty/index.js';

/**
 * If `pid` is stopped, sends `signal` to its process group and then SIGCONT, so the signal is
 * acted on now. Returns whether it was stopped (Linux /proc; elsewhere it never is).
 */
export function signalStoppedAgent(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  const stat = readProcStat(pid);
  if (stat === undefined || stat.state !== 'T') return false;
  const target = stat.pgrp > 0 ? -stat.pgrp : pid;
  signalQuietly(target, signal);
  if (signal !== 'SIGKILL') signalQuietly(target, 'SIGCONT');
  return true;
}
