/**
 * The client half of `agentwrap report` and `agentwrap report-metadata`: find the wrapping
 * session from what agentwrap put in the agent's environment, and hand it one `report` request
 * over its control socket. Agent hooks run this, so it never blocks and never fails: every
 * problem becomes a `{sent: false, reason}` (the commands exit 0 and say why only under
 * AGENTWRAP_DEBUG=1). Loaded lazily, and only when a session id is around.
 */
import { isPidAlive } from '../app/sessions/state-access.js';
import { resolveStateRoot } from '../app/sessions/state-access.js';
import { ControlError, requestControl } from '../app/control/socket.js';
import { readSessions, resolveSession } from '../app/sessions/store.js';
import { parsePayload } from '../core/detector/gating.js';

/** Hard bound on the socket round trip: a hook must not wait on a wedged session. */
export const REPORT_SOCKET_TIMEOUT_MS = 300;

/** How long `--json -` waits for the hook's stdin to close. */
export const REPORT_STDIN_TIMEOUT_MS = 200;

/** Bytes of stdin read at most; hooks pipe whole payloads, only a few fields of which are sent. */
export const REPORT_STDIN_MAX_BYTES = 1024 * 1024;

export type SendResult =
  | { readonly sent: true; readonly session: string; readonly agent: string; readonly reply: unknown }
  | { readonly sent: false; readonly reason: string };

export interface SessionQuery {
  /** `--session`, else AGENTWRAP_SESSION: a record key, pid or session id. */
  readonly query: string;
  /** AGENTWRAP_PID (the wrapper's pid), tried when the query finds nothing. */
  readonly wrapperPid: string | undefined;
}

/**
 * Finds the session and sends `params` as one `report` request. `params.agent` defaults to the
 * session's agent (the record's `source_cli`).
 */
export async function sendReport(
  env: NodeJS.ProcessEnv,
  target: SessionQuery,
  params: Readonly<Record<string, unknown>>,
): Promise<SendResult> {
  // Inside a wrapped agent the socket is named in the environment: no directory scan needed.
  const direct = env['AGENTWRAP_CONTROL'];
  if (direct !== undefined && direct !== '' && target.query === env['AGENTWRAP_SESSION']) {
    try {
      const reply = await requestControl(direct, { method: 'report', params }, REPORT_SOCKET_TIMEOUT_MS);
      return { sent: true, session: target.query, agent: typeof params['agent'] === 'string' ? params['agent'] : '(session agent)', reply };
    } catch (error) {
      const reason = error instanceof ControlError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      return { sent: false, reason };
    }
  }
  const sessions = readSessions(resolveStateRoot(env), Date.now(), isPidAlive);
  let match = resolveSession(sessions, target.query);
  if (!match.ok && target.wrapperPid !== undefined && target.wrapperPid !== '') match = resolveSession(sessions, target.wrapperPid);
  if (!match.ok) {
    return { sent: false, reason: match.reason === 'ambiguous' ? `"${target.query}" matches several sessions` : `no live agentwrap session "${target.query}"` };
  }
  const record = match.session.record;
  if (record.control === '') return { sent: false, reason: `session ${match.session.key} has no control socket` };
  const agent = typeof params['agent'] === 'string' ? params['agent'] : record.source_cli;
  try {
    const reply = await requestControl(record.control, { method: 'report', params: { ...params, agent } }, REPORT_SOCKET_TIMEOUT_MS);
    return { sent: true, session: match.session.key, agent, reply };
  } catch (error) {
    const reason = error instanceof ControlError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    return { sent: false, reason };
  }
}

/**
 * Reads stdin as JSON for `--json -`: bounded in bytes and time; undefined when stdin is a
 * terminal, empty, too large, late, or not JSON (the event is still sent, without a payload).
 */
export async function readStdinJson(stdin: NodeJS.ReadStream = process.stdin): Promise<unknown> {
  if (stdin.isTTY === true) return undefined;
  const text = await new Promise<string | undefined>((resolvePromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (value: string | undefined): void => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      resolvePromise(value);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > REPORT_STDIN_MAX_BYTES) finish(undefined);
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish(Buffer.concat(chunks).toString('utf8'));
    const timer = setTimeout(() => finish(undefined), REPORT_STDIN_TIMEOUT_MS);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
  return parsePayload(text);
}

