/**
 * Running agentwrap on another machine over OpenSSH, for `status --host` and `events --host`.
 * Plain `ssh` with the user's own configuration (keys, agents, ProxyJump, ControlMaster all
 * apply), BatchMode so it never stops to ask for a password, and a connect timeout so a host
 * that does not answer costs seconds, not minutes.
 *
 * AGENTWRAP_SSH_COMMAND replaces `ssh` (run through /bin/sh, as GIT_SSH_COMMAND is, and exec'd:
 * one command), e.g. `ssh -F ~/.ssh/agents.conf`. AGENTWRAP_REMOTE_COMMAND names agentwrap on the far side
 * (default `agentwrap`, found on the remote PATH), e.g. `~/.npm-global/bin/agentwrap`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { REMOTE_STDOUT_MAX_BYTES } from '../core/input-bounds.js';

export const SSH_CONNECT_TIMEOUT_S = 5;

export interface SshTarget {
  /** What the user passed to --host: `user@box`, `box`, an ssh_config Host alias. */
  readonly host: string;
  readonly env: NodeJS.ProcessEnv;
}

export { isSafeHost } from '../core/records/host-name.js';

/** How the far side's agentwrap is run, beyond its arguments. */
export interface RemoteRun {
  /**
   * Variables for the far side's agentwrap, set by env(1) in front of it: ssh passes none of
   * ours. Names and values are agentwrap's own constants (checked: nothing to quote).
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * ssh's stdin is a pipe held open and never written, instead of /dev/null: the far side's
   * stdin then ends exactly when this ssh goes, however it goes (killed, or its parent gone).
   */
  readonly holdStdin?: boolean;
}

const PLAIN_WORD = /^[A-Za-z0-9_.-]+$/;

/** `word` as one POSIX shell word: as it is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The program and arguments that run `agentwrap <args>` on `target.host`. */
export function sshCommand(target: SshTarget, agentwrapArgs: readonly string[], remoteEnv: RemoteRun['env'] = {}): { file: string; args: string[] } {
  const assignments = Object.entries(remoteEnv).map(([name, value]) => {
    if (!PLAIN_WORD.test(name) || !PLAIN_WORD.test(value)) throw new Error(`ssh: remote variable ${name}=${value} is not a plain word`);
    return `${name}=${value}`;
  });
  const prefix = assignments.length === 0 ? [] : ['env', ...assignments];
  // The far side's shell reads the line: a word that is not plain (a prompt for `send`) is quoted.
  const remote = [...prefix, target.env['AGENTWRAP_REMOTE_COMMAND'] ?? 'agentwrap', ...agentwrapArgs.map(shellWord)].join(' ');
  const options = ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${SSH_CONNECT_TIMEOUT_S}`, '-T', '--', target.host, remote];
  const custom = target.env['AGENTWRAP_SSH_COMMAND'];
  if (custom === undefined || custom.trim() === '') return { file: 'ssh', args: options };
  // `exec`: the user's ssh takes the shell's place, so stopping it (events --host ending) stops
  // ssh itself; a shell left in between was killed alone and its ssh ran on, orphaned.
  return { file: '/bin/sh', args: ['-c', `exec ${custom} "$@"`, 'ssh', ...options] };
}

/** Starts the remote agentwrap; stdin closed (or held: RemoteRun), stdout and stderr piped. */
export function spawnSsh(target: SshTarget, agentwrapArgs: readonly string[], run: RemoteRun = {}): ChildProcess {
  const { file, args } = sshCommand(target, agentwrapArgs, run.env);
  const child = spawn(file, args, { env: target.env, stdio: [run.holdStdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  // Never written, so only an EPIPE from a write nobody makes could come: nothing to report.
  child.stdin?.on('error', () => undefined);
  return child;
}

export interface SshResult {
  readonly code: number | null;
  readonly stdout: string;
  /** The last non-empty line ssh or the remote side wrote to stderr (the reason, usually). */
  readonly error: string | undefined;
}

/**
 * Runs the remote agentwrap to completion, killed after `timeoutMs` or once its stdout passes
 * `maxBytes` (a hostile host sent 7 GB until V8 aborted). Never rejects.
 */
export function runSsh(target: SshTarget, agentwrapArgs: readonly string[], timeoutMs: number, maxBytes: number = REMOTE_STDOUT_MAX_BYTES): Promise<SshResult> {
  return new Promise((resolvePromise) => {
    let child: ChildProcess;
    try {
      child = spawnSsh(target, agentwrapArgs);
    } catch (error) {
      resolvePromise({ code: null, stdout: '', error: error instanceof Error ? error.message : String(error) });
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let isTimedOut = false;
    let isTooLong = false;
    const timer = setTimeout(() => {
      isTimedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (isTooLong) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes <= maxBytes) {
        stdout.push(chunk);
        return;
      }
      isTooLong = true;
      stdout.length = 0;
      child.kill('SIGKILL');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4096);
    });
    child.on('error', (error) => {
      stderr += `\n${error.message}`;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const lastLine = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '').pop();
      if (isTooLong) {
        resolvePromise({ code: null, stdout: '', error: `the remote printed more than ${maxBytes} bytes; stopped reading` });
        return;
      }
      resolvePromise({
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        error: isTimedOut ? `no answer within ${Math.round(timeoutMs / 1000)} s` : lastLine,
      });
    });
  });
}
