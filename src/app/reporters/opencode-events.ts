/**
 * OpenCode's reporter, from agentwrap's side: OpenCode's TUI runs its own HTTP server when the
 * user gives it `--port`, and that server streams every bus event as server-sent events on
 * `GET /event`. agentwrap follows that stream and hands the lifecycle events to its session as
 * reports (the same `report` requests `agentwrap report` sends), so nothing is loaded into
 * OpenCode. agentwrap never starts that server itself (it holds OpenCode's first screen until
 * its worker loads) nor adds a plugin (OpenCode 1.18 then installs @opencode-ai/plugin into
 * the user's ~/.config/opencode before it starts: 80 s without a network). See docs/reporter.md.
 *
 * Everything here is best effort: the stream not (yet) up, a refused login, a dropped
 * connection, a session that does not answer — the agent never notices, and what went wrong is
 * said once through `warn`.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';

/** The OpenCode bus events handed to gating (core/detector/gating.ts knows what each means). */
export const OPENCODE_LIFECYCLE_EVENTS: readonly string[] = [
  'session.created',
  'session.status',
  'session.idle',
  'session.error',
  'permission.asked',
  'permission.replied',
  'question.asked',
  'question.replied',
  'question.rejected',
];

/**
 * The stream's own events: sent on connect and every 10 s. Gating does not know them, so they
 * only keep the source fresh, and `status explain` shows the stream is alive before any turn.
 */
export const OPENCODE_STREAM_EVENTS: readonly string[] = ['server.connected', 'server.heartbeat'];

/** The reporter's source name in gating and `status explain`. */
export const OPENCODE_EVENTS_SOURCE = 'opencode-events';

/** Connection attempts while OpenCode boots (its server is up after its first screen). */
export const CONNECT_RETRY_MS = 250;

/** After this long without ever connecting, say so once (and keep trying, more slowly). */
export const CONNECT_WARN_AFTER_MS = 180_000;

const SLOW_RETRY_MS = 2_000;

/**
 * A connected stream that stays silent this long is dead and is replaced: OpenCode writes a
 * heartbeat every 10 s. Seen live: a stream opened while OpenCode 1.18.33 boots is answered
 * 200 and then never carries a byte (no `server.connected`, no heartbeat, no event), while one
 * opened after its first screen carries everything.
 */
export const SILENT_STREAM_MS = 12_000;

/**
 * A working stream carries `server.connected` the moment it is answered, so one that has not
 * carried its first byte this long after the request is the boot-time dead kind and is replaced
 * sooner than SILENT_STREAM_MS: otherwise a prompt typed in the first seconds after OpenCode's
 * first screen lost its events. Doubled after each such replacement (up to SILENT_STREAM_MS),
 * so a machine too loaded to answer within it still gets a stream.
 */
export const FIRST_BYTE_MS = 1_000;

/**
 * OpenCode ends every `/event` subscriber of a project instance it disposes (a reload, a config
 * change) after sending this event, without always closing the connection: reconnect at once.
 */
export const STREAM_END_EVENT = 'server.instance.disposed';

/** A line longer than this is not an OpenCode event; the connection is dropped and retried. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits server-sent-event text into the `data` of each complete event and the unfinished rest.
 * Multi-line data is joined with newlines; comments and other fields are ignored. Pure.
 */
export function parseSse(text: string): { readonly data: readonly string[]; readonly rest: string } {
  const normalized = text.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  const data: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n').filter((line) => line.startsWith('data:'));
    if (lines.length > 0) data.push(lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n'));
  }
  return { data, rest };
}

/** Whether a streamed event ends the stream's subscription (STREAM_END_EVENT). Pure. */
export function endsStream(data: string): boolean {
  return data.includes(STREAM_END_EVENT) && /"type"\s*:\s*"server\.instance\.disposed"/.test(data);
}

/**
 * The report params for one streamed event, or undefined for an event agentwrap does not pass
 * on (message streaming, file edits, …). Only the fields gating reads leave: the event type,
 * the OpenCode session id and a status type. Pure.
 */
export function reportFor(data: string, seq: number, sentAtMs: number): Readonly<Record<string, unknown>> | undefined {
  let event: unknown;
  try {
    event = JSON.parse(data) as unknown;
  } catch {
    // Not JSON: not an event of OpenCode's.
    return undefined;
  }
  if (!isObject(event) || typeof event['type'] !== 'string') return undefined;
  const type = event['type'];
  if (!OPENCODE_LIFECYCLE_EVENTS.includes(type) && !OPENCODE_STREAM_EVENTS.includes(type)) return undefined;
  const p = isObject(event['properties']) ? event['properties'] : {};
  const info = isObject(p['info']) ? p['info'] : {};
  const sessionID = typeof p['sessionID'] === 'string' ? p['sessionID'] : typeof info['id'] === 'string' ? info['id'] : undefined;
  const status = isObject(p['status']) && typeof p['status']['type'] === 'string' ? { type: p['status']['type'] } : undefined;
  const properties = { ...(sessionID === undefined ? {} : { sessionID }), ...(status === undefined ? {} : { status }) };
  return { event: type, agent: 'opencode', source: OPENCODE_EVENTS_SOURCE, seq, sentAtMs, payload: { type, properties } };
}

export interface FollowOptions {
  /** OpenCode's server, e.g. http://127.0.0.1:23456. */
  readonly url: string;
  /** The `Authorization` header OpenCode's server expects (Basic …); none for a server without a password. */
  readonly authorization?: string;
  /** Hands one report to the session; awaited, so reports arrive in order. */
  readonly deliver: (params: Readonly<Record<string, unknown>>) => Promise<unknown>;
  readonly warn: (message: string) => void;
  /** Wall clock, ms (injected for tests). */
  readonly nowMs?: () => number;
  /** How long a connected stream may stay silent before it is replaced (SILENT_STREAM_MS). */
  readonly silentStreamMs?: number;
  /** How long a new stream may wait for its first byte before it is replaced (FIRST_BYTE_MS). */
  readonly firstByteMs?: number;
}

export interface Following {
  /** Stops following (drops the connection, cancels retries). Idempotent. */
  stop(): void;
}

/**
 * Follows OpenCode's `/event` stream until stopped: connects as soon as the server is up,
 * reconnects when it drops, and delivers the lifecycle events, numbered, in order.
 */
export function followOpenCodeEvents(options: FollowOptions): Following {
  const now = options.nowMs ?? Date.now;
  const silentStreamMs = options.silentStreamMs ?? SILENT_STREAM_MS;
  let firstByteMs = Math.min(options.firstByteMs ?? FIRST_BYTE_MS, silentStreamMs);
  const startedAtMs = now();
  let stopped = false;
  let everConnected = false;
  let warnedUnreachable = false;
  let seq = 0;
  let current: ClientRequest | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delivering: Promise<unknown> = Promise.resolve();

  const retry = (): void => {
    if (stopped) return;
    const waited = now() - startedAtMs;
    if (!everConnected && waited >= CONNECT_WARN_AFTER_MS && !warnedUnreachable) {
      warnedUnreachable = true;
      options.warn(`opencode: no event stream at ${options.url}/event after ${Math.round(waited / 1000)} s; its state comes from the screen only`);
    }
    timer = setTimeout(connect, warnedUnreachable ? SLOW_RETRY_MS : CONNECT_RETRY_MS);
    timer.unref();
  };

  const onResponse = (response: IncomingMessage, again: () => void, carried: () => void): void => {
    if (response.statusCode !== 200) {
      response.resume();
      if (response.statusCode === 401 || response.statusCode === 403) {
        // A password of the user's that does not match ours cannot get better by retrying.
        stopped = true;
        options.warn(`opencode: its server refused agentwrap's event stream (HTTP ${response.statusCode}); its state comes from the screen only`);
        return;
      }
      again();
      return;
    }
    everConnected = true;
    response.setEncoding('utf8');
    let pending = '';
    response.on('data', (chunk: string) => {
      carried();
      const parsed = parseSse(pending + chunk);
      pending = parsed.rest;
      if (pending.length > MAX_EVENT_BYTES) response.destroy();
      for (const data of parsed.data) {
        if (endsStream(data)) response.destroy();
        const params = reportFor(data, seq + 1, now());
        if (params === undefined) continue;
        seq += 1;
        delivering = delivering.then(() => options.deliver(params)).catch(() => undefined);
      }
    });
    response.on('error', again);
    response.on('close', again);
  };

  const connect = (): void => {
    if (stopped) return;
    // Refused while OpenCode boots, closed when it exits, silent too long: try again, once per
    // connection (stop() ends the loop).
    let retried = false;
    let hasCarried = false;
    let silence: NodeJS.Timeout | undefined;
    const again = (): void => {
      if (silence !== undefined) clearTimeout(silence);
      if (retried) return;
      retried = true;
      retry();
    };
    const req = httpRequest(`${options.url}/event`, { headers: { ...(options.authorization === undefined ? {} : { Authorization: options.authorization }), Accept: 'text/event-stream' } }, (response) =>
      onResponse(response, again, carried),
    );
    // From the request on: no first byte soon, or a stream that stops carrying bytes, is dead.
    function watch(ms: number): void {
      if (silence !== undefined) clearTimeout(silence);
      silence = setTimeout(() => {
        if (!hasCarried) firstByteMs = Math.min(firstByteMs * 2, silentStreamMs);
        req.destroy();
        again();
      }, ms);
      silence.unref();
    }
    function carried(): void {
      hasCarried = true;
      watch(silentStreamMs);
    }
    watch(firstByteMs);
    current = req;
    req.on('error', again);
    req.end();
  };

  connect();
  return {
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      current?.destroy();
    },
  };
}
