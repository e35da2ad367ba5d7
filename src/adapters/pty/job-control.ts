/**
 * Job control for the agent: the POSIX sh helper that leads the pty session so Ctrl-Z works,
 * and the /proc reads and signals around it (docs/launcher.md).
 */
import { readFileSync } from 'node:fs';
import { parseStat, type ProcStat } from '../../core/detector/process.js';
import { hasProcfs } from '../process/evidence-source.js';
import { findPs, processStateFromPs } from '../process/ps-probe.js';
import type { PtySpawnOptions } from './types.js';

/**
 * Why a helper at all: forkpty makes the child the leader of a new session, so its process
 * group is orphaned (its parent, agentwrap, is in another session), and Linux discards
 * SIGTSTP/SIGTTIN/SIGTTOU with default action for orphaned groups. Ctrl-Z would then do
 * nothing at all, where the same agent run from a shell stops. So a POSIX sh with job control
 * (`set -m`) leads the pty session, as a login shell does in a real terminal, and runs the
 * agent as its foreground job. When the job stops, the helper stops itself with SIGSTOP (the
 * one stop signal an orphaned group still obeys); agentwrap sees that through SIGCHLD and
 * suspends too. On SIGCONT the helper queues a SIGWINCH for the job (so it redraws) and puts
 * it back in the foreground. Its exit status is the job's (128+N after signal N).
 * A SIGSTOP from outside (status 147) is not a terminal suspend: the helper stays in the
 * foreground and sleeps until the agent is continued, then waits on it in the foreground again.
 * It sleeps without polling: `wait` on a sleeping child returns when a trapped SIGCHLD comes,
 * and the kernel sends one when the stopped agent is continued (CLD_CONTINUED) or dies.
 * The shell's own job notices go to /dev/null; the agent gets the real stderr back on fd 2.
 * dash (Debian's sh) leaves the environment as it is; a bash-as-sh would bump SHLVL.
 */
export const JOB_CONTROL_SCRIPT = [
  'set -m',
  // A trapped SIGCHLD makes `wait` return (POSIX: a trapped signal ends `wait` at once).
  'trap : CHLD',
  // The agent's context-switch counts, read with builtins only (no fork: see the wait below).
  'switches() { ctxt=; while read -r key value; do case $key in *ctxt_switches:) ctxt="$ctxt $value";; esac; done < "/proc/$pid/status"; }',
  'exec 3>&2 2>/dev/null',
  '"$@" 2>&3 3>&-',
  'status=$?',
  // 147-150: the job stopped (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU); any other status is its end.
  // (`kill -0 %1` alone is no test: a job killed by a signal may leave children in its group.)
  'while [ "$status" -ge 147 ] && [ "$status" -le 150 ] && kill -0 %1; do',
  // 147 = 128 + SIGSTOP: not Ctrl-Z but someone pausing the agent itself (kill -STOP). The
  // terminal stays with agentwrap, which keeps watching (a paused agent is reported `stuck`);
  // once something continues the agent, the helper waits on it in the foreground again.
  // Without /proc (macOS) the helper cannot see the agent's state, so it takes the Ctrl-Z way:
  // the agent stays paused, and so does agentwrap, until the user's `fg` continues all three.
  '  if [ "$status" -eq 147 ] && [ -r "/proc/$$/stat" ]; then',
  // The job's pid: the helper's only child (`jobs -p` would run in a subshell without the job table).
  '    read -r pid rest < "/proc/$$/task/$$/children"',
  // The shell took the terminal back when the job stopped, so once continued the agent runs in
  // the background, and its first read of the terminal stops it again (SIGTTIN): "it ran" is
  // seen from its context-switch counts changing, not only from its state leaving T.
  '    switches; ran=$ctxt',
  // Something to `wait` on that never ends by itself: the wait ends on the agent's SIGCHLD. It
  // is started outside job control, so it shares the helper's group and a signal that ends
  // the helper (which holds the terminal while the agent is stopped) ends it too. The CHLD trap
  // kills it, so a SIGCHLD that lands between the look at the agent and the `wait` still ends
  // the wait (else it would be lost and the helper wait for ever); nothing in the loop forks,
  // so only the agent's own changes and the sleeper's end send one.
  '    set +m; sleep 2147483647 & sleeper=$!; set -m',
  '    trap \'kill $sleeper 2>/dev/null\' CHLD',
  '    while read -r stat < "/proc/$pid/stat"; do',
  '      state=${stat##*) }',
  '      [ "${state%% *}" = T ] || break',
  '      switches; [ "$ctxt" = "$ran" ] || break',
  '      wait $sleeper',
  '      kill -0 $sleeper 2>/dev/null || { set +m; sleep 2147483647 & sleeper=$!; set -m; }',
  '    done',
  '    trap : CHLD',
  '    kill $sleeper',
  '  else',
  '    kill -STOP $$',
  '    kill -WINCH %1',
  '  fi',
  '  fg %1 >/dev/null 2>&3 3>&-',
  '  status=$?',
  'done',
  'exit $status',
].join('\n');

/** The shell that runs JOB_CONTROL_SCRIPT; POSIX job control is all it needs. */
export const JOB_CONTROL_SHELL = '/bin/sh';

/** The program the pty runs: the helper with the command as its job, or the command itself. */
export function jobCommand(options: Pick<PtySpawnOptions, 'file' | 'args' | 'jobControl'>): [file: string, args: string[]] {
  return options.jobControl ?? true
    ? [JOB_CONTROL_SHELL, ['-c', JOB_CONTROL_SCRIPT, 'agentwrap-job', options.file, ...options.args]]
    : [options.file, [...options.args]];
}

/** /proc/<pid>/stat, or undefined where /proc is missing (not Linux) or the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // No /proc (macOS) or the process already went away: absent, not "running".
    return undefined;
  }
}

/** Children of `pid` (Linux /proc/<pid>/task/<pid>/children); empty where unavailable. */
export function readChildPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((word) => word !== '')
      .map(Number);
  } catch {
    // No /proc, or the process is gone: no children known.
    return [];
  }
}

/**
 * Where a signal "as if typed" goes (a negative number is a process group): the pty's
 * foreground group, except in two windows at the start.
 * - Before the pty's child has made its own session (forkpty's setsid runs in the child after
 *   the spawn call returned), no group `-ptyPid` exists yet, and its terminal's foreground group
 *   is agentwrap's own: the child alone then. It holds every signal blocked until it has reset
 *   their actions, so the signal waits and then ends it (seen: a SIGHUP sent within a
 *   millisecond of the spawn reached nobody, about 1 in 40 times on a quiet machine).
 * - While the job-control helper holds the terminal with the agent already forked (between the
 *   helper's fork and its tcsetpgrp at start, or with the agent continued in the background),
 *   the agent gets it: the helper killed first leaves the agent running in a group no hangup
 *   reaches, holding the pty open.
 */
export function signalTarget(ptyPid: number, helper: Pick<ProcStat, 'tpgid' | 'session'> | undefined, agentPid: number | undefined, agent: Pick<ProcStat, 'pgrp' | 'state'> | undefined): number {
  if (helper !== undefined && helper.session !== ptyPid) return ptyPid;
  const foreground = helper !== undefined && helper.tpgid > 0 ? helper.tpgid : ptyPid;
  // A stopped agent keeps a signal pending: the caller sends it with SIGCONT (stopped-agent.ts).
  const isAgentRunning = agentPid !== undefined && agentPid !== ptyPid && agent !== undefined && agent.state !== 'T';
  if (foreground !== ptyPid || !isAgentRunning) return -foreground;
  // Before its own setpgid the agent is still in the helper's group: the agent alone then.
  return agent.pgrp === agentPid ? -agentPid : agentPid;
}

/** Sends `signal`; false if nobody got it (ESRCH: the target already exited, not an error here). */
export function signalQuietly(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * `onStopped` listeners for `pid`: SIGCHLD is subscribed while any listener is, and a stopped
 * child (state T in /proc) fires them. Without /proc (macOS) one `ps` per SIGCHLD tells the
 * state instead: a SIGCHLD comes when the child stops, continues or exits, so rarely.
 */
export class StopWatch {
  private readonly listeners = new Set<() => void>();
  private readonly onSigchld = (): void => {
    const fire = (): void => {
      for (const listener of this.listeners) listener();
    };
    if (this.psPath === undefined) {
      if (readProcStat(this.pid)?.state === 'T') fire();
      return;
    }
    void processStateFromPs(this.pid, this.psPath).then((state) => {
      if (state === 'T') fire();
    });
  };

  /** `psPath`: read the state with ps, not /proc (by default only where there is no /proc). */
  constructor(
    private readonly pid: number,
    private readonly psPath: string | undefined = hasProcfs() ? undefined : findPs(process.env['PATH']),
  ) {}

  add(listener: () => void): () => void {
    if (this.listeners.size === 0) process.on('SIGCHLD', this.onSigchld);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) process.removeListener('SIGCHLD', this.onSigchld);
    };
  }

  dispose(): void {
    process.removeListener('SIGCHLD', this.onSigchld);
    this.listeners.clear();
  }
}
