/**
 * Another machine's transitions, read over ssh by running `agentwrap events` there. Each line
 * is validated and handed on with its host; when the connection ends (or never starts) the host
 * is reported unreachable once, and asked again after a pause, so a machine that comes back is
 * followed again without a restart.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSsh, type SshTarget } from '../../adapters/ssh.js';
import type { StateChangeEvent } from '../control/socket.js';

/** Pause before asking a host again after its stream ended. */
export const REMOTE_EVENTS_RETRY_MS = 10_000;

/**
 * Set on the far side's `agentwrap events`: end when stdin ends. sshd runs it with no terminal,
 * so nothing signals it when the follower here stops; it would learn only at its next write
 * (EPIPE), and on a quiet host run on for hours. With ssh's stdin held open (spawnSsh's
 * holdStdin) its stdin ends when this ssh goes. A variable, not an option: an older agentwrap
 * over there ignores it (and lingers as before) instead of refusing the command.
 */
export const EVENTS_UNTIL_EOF_ENV = 'AGENTWRAP_EVENTS_UNTIL_EOF';

const STATES = ['working', 'blocked', 'done', 'idle', 'unknown'];

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line of a remote `agentwrap events`, or undefined when it is not one. */
export function parseEventLine(line: string): StateChangeEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  const { t, session, agent, from, to, winner, rule_id } = json;
  if (typeof t !== 'number' || typeof session !== 'string' || typeof agent !== 'string') return undefined;
  if (typeof to !== 'string' || !STATES.includes(to) || (from !== null && (typeof from !== 'string' || !STATES.includes(from)))) return undefined;
  if ((winner !== null && typeof winner !== 'string') || (rule_id !== null && typeof rule_id !== 'string')) return undefined;
  return { t, session, agent, from: from as StateChangeEvent['from'], to: to as StateChangeEvent['to'], winner, rule_id };
}

export interface RemoteEventsHandlers {
  onEvent(event: StateChangeEvent): void;
  /** The stream ended or could not start; `error` is ssh's or the remote side's last word. */
  onUnreachable(error: string): void;
}

export interface RemoteEvents {
  close(): void;
}

export function followRemoteEvents(target: SshTarget, handlers: RemoteEventsHandlers, retryMs: number = REMOTE_EVENTS_RETRY_MS): RemoteEvents {
  let child: ChildProcess | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let isClosed = false;
  const start = (): void => {
    retryTimer = undefined;
    if (isClosed) return;
    let stderr = '';
    let pending = '';
    const current = spawnSsh(target, ['events'], { env: { [EVENTS_UNTIL_EOF_ENV]: '1' }, holdStdin: true });
    child = current;
    current.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const event = parseEventLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        if (event !== undefined && !isClosed) handlers.onEvent(event);
        newline = pending.indexOf('\n');
      }
    });
    current.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4096);
    });
    current.on('error', (error) => {
      stderr += `\n${error.message}`;
    });
    current.on('close', (code) => {
      if (isClosed) return;
      const last = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '').pop();
      handlers.onUnreachable(last ?? `ssh exited with ${code ?? 'a signal'}`);
      retryTimer = setTimeout(start, retryMs);
    });
  };
  start();
  return {
    close() {
      isClosed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      child?.kill('SIGTERM');
    },
  };
}
