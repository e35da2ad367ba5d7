/**
 * Another machine's transitions, read over ssh by running `agentwrap events` there. Each line
 * is validated and handed on with its host; when the connection ends (or never starts) the host
 * is reported unreachable once, and asked again after a pause, so a machine that comes back is
 * followed again without a restart.
 */
import { parseDialogField } from '../../core/records/dialog-field.js';
import type { ChildProcess } from 'node:child_process';
import { spawnSsh, type SshTarget } from '../../adapters/ssh.js';
import type { StateChangeEvent } from '../control/socket.js';
import { REMOTE_EVENT_LINE_MAX_CHARS } from '../../core/input-bounds.js';

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
  const { t, session, agent, from, to, winner, rule_id, reason } = json;
  const dialog = parseDialogField(json['dialog']);
  if (typeof t !== 'number' || typeof session !== 'string' || typeof agent !== 'string') return undefined;
  if (typeof to !== 'string' || !STATES.includes(to) || (from !== null && (typeof from !== 'string' || !STATES.includes(from)))) return undefined;
  if ((winner !== null && typeof winner !== 'string') || (rule_id !== null && typeof rule_id !== 'string')) return undefined;
  return { t, session, agent, from: from as StateChangeEvent['from'], to: to as StateChangeEvent['to'], winner, rule_id, reason: typeof reason === 'string' ? reason : null, ...(dialog === undefined ? {} : { dialog }) };
}

/**
 * Splits text into lines, looking for newlines only in each new piece (re-scanning what is held
 * cost a core on one endless line). A line longer than `maxChars` is dropped, `onOverLong` called
 * once for it, and nothing of it is held past that point.
 */
export function boundedLineSplitter(maxChars: number, onLine: (line: string) => void, onOverLong: () => void): (text: string) => void {
  let held: string[] = [];
  let heldChars = 0;
  let isDropping = false;
  return (text) => {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const piece = text.slice(start, newline);
      start = newline + 1;
      if (!isDropping) {
        if (heldChars + piece.length <= maxChars) onLine(held.join('') + piece);
        else onOverLong();
      }
      held = [];
      heldChars = 0;
      isDropping = false;
    }
    const rest = text.slice(start);
    if (isDropping || rest === '') return;
    heldChars += rest.length;
    if (heldChars <= maxChars) {
      held.push(rest);
      return;
    }
    held = [];
    isDropping = true;
    onOverLong();
  };
}

export interface RemoteEventsHandlers {
  onEvent(event: StateChangeEvent): void;
  /** Something of the stream was dropped (a line over REMOTE_EVENT_LINE_MAX_CHARS); once per connection. */
  onWarning?(message: string): void;
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
    let isWarned = false;
    const current = spawnSsh(target, ['events'], { env: { [EVENTS_UNTIL_EOF_ENV]: '1' }, holdStdin: true });
    child = current;
    const split = boundedLineSplitter(
      REMOTE_EVENT_LINE_MAX_CHARS,
      (line) => {
        const event = parseEventLine(line);
        if (event !== undefined && !isClosed) handlers.onEvent(event);
      },
      () => {
        if (isWarned || isClosed) return;
        isWarned = true;
        handlers.onWarning?.(`a line longer than ${REMOTE_EVENT_LINE_MAX_CHARS} characters was dropped (not an event)`);
      },
    );
    // A string decoder, so a character split across two reads stays whole.
    current.stdout?.setEncoding('utf8');
    current.stdout?.on('data', split);
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
