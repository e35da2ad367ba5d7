/**
 * A per-session control socket: a Unix socket that `status explain`, `status capture`, `ack`,
 * `events` and agent hooks (`report`) talk to. Newline-delimited JSON, one request per line:
 *
 *   → {"id": 1, "method": "explain", "params": {"ticks": 10}}
 *   ← {"id": 1, "ok": true, "result": …}            or {"id": 1, "ok": false, "error": {"code", "message"}}
 *   → {"id": 2, "method": "subscribe"}
 *   ← {"id": 2, "ok": true, "result": {"subscribed": true}}
 *   ← {"event": "state", "data": {t, session, agent, from, to, winner, rule_id}}   … until either side closes
 *   → {"id": 3, "method": "screen"}
 *   ← {"id": 3, "ok": true, "result": {"subscribed": true}}
 *   ← {"event": "screen", "data": {rows, cols, cursorRow, cursorCol}}   now, then whenever the screen changed
 *
 * Who may connect: only the same user. Node cannot read SO_PEERCRED, and /proc/net/unix does
 * not name a connection's peer, so the guard is the filesystem: the socket is 0600 inside a
 * directory that is 0700, owned by the user, and verified (not a symlink, not another owner's)
 * before binding. connect(2) needs write permission on the socket and search permission on the
 * directory, so another non-root user gets EACCES. root bypasses both, as it bypasses every
 * file permission; there is no stronger guard available to a same-host process.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fnv1a32 } from '../core/session-record.js';
import type { AgentState } from '../core/types.js';
import { currentUid, ensurePrivateDir, ensureStateDirs, stateLayout, StateDirError, type StateEnv } from '../adapters/state-dir.js';

export const CONTROL_PROTOCOL_VERSION = 1;

/** sun_path is 108 bytes on Linux including the terminating NUL (104 on macOS: we stay under both with fallbacks). */
export const UNIX_SOCKET_PATH_MAX_BYTES = 103;

/** A request line longer than this closes the connection (agent hook reports are small). */
export const CONTROL_LINE_MAX_BYTES = 1024 * 1024;

export const DEFAULT_CONTROL_TIMEOUT_MS = 3_000;

export type ControlMethod = 'ping' | 'explain' | 'capture' | 'ack' | 'subscribe' | 'report' | 'history' | 'screen';

const METHODS: readonly ControlMethod[] = ['ping', 'explain', 'capture', 'ack', 'subscribe', 'report', 'history', 'screen'];

export type ControlParams = Readonly<Record<string, unknown>>;

export interface ControlRequest {
  readonly method: ControlMethod;
  readonly params?: ControlParams;
}

/** One transition as `events` prints it; `from` is null for the first line of a session. */
export interface StateChangeEvent {
  /** Unix ms. */
  readonly t: number;
  /** The session's record key. */
  readonly session: string;
  readonly agent: string;
  readonly from: AgentState | null;
  readonly to: AgentState;
  readonly winner: string | null;
  readonly rule_id: string | null;
}

/**
 * What the live session answers. Results must be JSON-serializable; a handler that throws
 * answers `{ok: false, error: {code: "failed"}}` and the connection stays open.
 */
export interface ControlHandlers {
  explain(params: ControlParams): unknown;
  capture(params: ControlParams): unknown;
  /** done → idle (marks the session seen). */
  ack(params: ControlParams): unknown;
  /** Agent hook events (`agentwrap report`). */
  report(params: ControlParams): unknown;
  /** Calls `emit` on every published state change until the returned function is called. */
  subscribe(emit: (event: StateChangeEvent) => void): () => void;
  /** Extra fields for `ping` (e.g. the session key). */
  info?(): ControlParams;
  /** The published transitions of the last hour (core/state-history), for `agentwrap dashboard`. */
  history?(params: ControlParams): unknown;
  /**
   * The screen preview stream (`status --watch`): calls `emit` with the viewport now and after
   * each change until the returned function is called. Absent: the method is refused.
   */
  screen?(emit: (preview: ScreenPreview) => void): () => void;
}

/** The viewport as the dashboard previews it: text rows, no attributes. */
export interface ScreenPreview {
  readonly rows: readonly string[];
  readonly cols: number;
  readonly cursorRow: number;
  readonly cursorCol: number;
}

export type ControlErrorCode = 'unreachable' | 'denied' | 'timeout' | 'closed' | 'protocol' | 'bad-request' | 'unknown-method' | 'failed';

export class ControlError extends Error {
  override readonly name = 'ControlError';
  readonly code: ControlErrorCode;

  constructor(code: ControlErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** Refusal to bind: a symlink, a regular file, or a live listener already at the path. */
export class ControlSocketError extends Error {
  override readonly name = 'ControlSocketError';
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

// ── where the socket lives ─────────────────────────────────────────────────────────────────

export interface SocketPathInput {
  readonly root: string;
  readonly key: string;
  readonly env: StateEnv;
  readonly uid: number | undefined;
}

function fits(path: string): boolean {
  return Buffer.byteLength(path, 'utf8') <= UNIX_SOCKET_PATH_MAX_BYTES;
}

/**
 * Candidate socket paths, best first: `<root>/sockets/<key>.sock`, then a short hashed name
 * there, then `$XDG_RUNTIME_DIR/agentwrap/<hash>.sock`, then `/tmp/agentwrap-<uid>/<hash>.sock`.
 * Only paths that fit sun_path are returned. Pure.
 */
export function controlSocketCandidates(input: SocketPathInput): string[] {
  const hashed = `${fnv1a32(`${input.root}\0${input.key}`)}.sock`;
  const sockets = stateLayout(input.root).socketsDir;
  const candidates = [join(sockets, `${input.key}.sock`), join(sockets, hashed)];
  const runtime = input.env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime.startsWith('/')) candidates.push(join(runtime, 'agentwrap', hashed));
  candidates.push(join('/tmp', `agentwrap-${input.uid ?? 'user'}`, hashed));
  return candidates.filter(fits);
}

/**
 * Picks the socket path and prepares its directory (0700, ours, strict). Under the state root
 * the root is verified too (ensureStateDirs). Throws StateDirError when no candidate is safe.
 */
export function prepareControlSocketPath(input: SocketPathInput): string {
  const socketsDir = stateLayout(input.root).socketsDir;
  let lastError: unknown = new StateDirError(input.root, `no control socket path fits the ${UNIX_SOCKET_PATH_MAX_BYTES}-byte Unix socket limit`);
  for (const path of controlSocketCandidates(input)) {
    const dir = dirname(path);
    if (dir === socketsDir) {
      // Under the state root a refusal is final: falling back elsewhere would hide tampering.
      ensureStateDirs(input.root, input.uid);
      ensurePrivateDir(dir, { uid: input.uid, strict: true });
      return path;
    }
    try {
      ensurePrivateDir(dir, { uid: input.uid, strict: true });
      return path;
    } catch (error) {
      // A fallback directory that is unusable (another user's /tmp/agentwrap-<uid>): try the next.
      lastError = error;
    }
  }
  throw lastError;
}

// ── server ─────────────────────────────────────────────────────────────────────────────────

export interface ControlServer {
  readonly path: string;
  /** Number of open client connections (for tests and `status`). */
  connectionCount(): number;
  /** Stops listening, ends every connection (subscribers see the stream end) and removes the socket file. */
  close(): Promise<void>;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Splits a byte stream into lines; calls `onOverflow` when a line exceeds the limit. */
function lineReader(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') onLine(line);
      newline = pending.indexOf('\n');
    }
    if (pending.length > CONTROL_LINE_MAX_BYTES) {
      pending = '';
      onOverflow();
    }
  };
}

function probeListener(path: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

/** Clears the way for binding: a stale socket is removed; anything else at the path is refused. */
async function clearSocketPath(path: string): Promise<void> {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  if (stats.isSymbolicLink()) throw new ControlSocketError(`refusing control socket ${path}: it is a symbolic link`);
  if (!stats.isSocket()) throw new ControlSocketError(`refusing control socket ${path}: a file that is not a socket is in the way`);
  if (await probeListener(path)) throw new ControlSocketError(`refusing control socket ${path}: another process is listening on it`);
  // A socket nobody listens on: left behind by a wrapper that crashed. Replace it.
  unlinkSync(path);
}

/**
 * Listens on `path` (its directory must already be private: `prepareControlSocketPath`). The
 * socket file is chmod 0600 right after bind, before any request is served.
 */
export async function startControlServer(path: string, handlers: ControlHandlers, options: { uid?: number | undefined } = {}): Promise<ControlServer> {
  ensurePrivateDir(dirname(path), { uid: options.uid ?? currentUid(), strict: true });
  await clearSocketPath(path);
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => serveConnection(socket, handlers, connections));
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  chmodSync(path, 0o600);
  const { ino } = lstatSync(path);
  server.on('error', () => {
    // After a successful listen the server reports per-connection trouble on the sockets;
    // a server-level error here has nobody to tell and must not crash the session.
  });
  return {
    path,
    connectionCount: () => connections.size,
    close: () =>
      new Promise<void>((resolvePromise) => {
        for (const socket of connections) socket.end();
        for (const socket of connections) socket.destroy();
        server.close(() => resolvePromise());
        try {
          // Only the socket we bound: a new server may already have replaced a stale one.
          if (lstatSync(path).ino === ino) unlinkSync(path);
        } catch (error) {
          if (errnoCode(error) !== 'ENOENT') throw error;
        }
      }),
  };
}

function serveConnection(socket: Socket, handlers: ControlHandlers, connections: Set<Socket>): void {
  connections.add(socket);
  const unsubscribers: (() => void)[] = [];
  const send = (message: unknown): void => {
    if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
  };
  const cleanup = (): void => {
    connections.delete(socket);
    for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
  };
  socket.on('close', cleanup);
  socket.on('error', () => {
    // A client that vanished mid-write (EPIPE, ECONNRESET): 'close' follows and cleans up.
  });
  const onLine = (line: string): void => {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      send({ id: null, ok: false, error: { code: 'bad-request', message: 'request is not JSON' } });
      return;
    }
    const id = isObject(request) && (typeof request['id'] === 'number' || typeof request['id'] === 'string') ? request['id'] : null;
    if (!isObject(request) || typeof request['method'] !== 'string') {
      send({ id, ok: false, error: { code: 'bad-request', message: 'request needs a "method"' } });
      return;
    }
    const method = request['method'];
    if (!METHODS.includes(method as ControlMethod)) {
      send({ id, ok: false, error: { code: 'unknown-method', message: `unknown method "${method}"` } });
      return;
    }
    const params = isObject(request['params']) ? request['params'] : {};
    void dispatch(method as ControlMethod, params, handlers, unsubscribers, send).then(
      (result) => send({ id, ok: true, result }),
      (error: unknown) => send({ id, ok: false, error: { code: 'failed', message: error instanceof Error ? error.message : String(error) } }),
    );
  };
  socket.on(
    'data',
    lineReader(onLine, () => {
      send({ id: null, ok: false, error: { code: 'bad-request', message: `request line longer than ${CONTROL_LINE_MAX_BYTES} bytes` } });
      socket.end();
    }),
  );
}

async function dispatch(
  method: ControlMethod,
  params: ControlParams,
  handlers: ControlHandlers,
  unsubscribers: (() => void)[],
  send: (message: unknown) => void,
): Promise<unknown> {
  switch (method) {
    case 'ping':
      return { protocol: CONTROL_PROTOCOL_VERSION, pid: process.pid, ...(handlers.info?.() ?? {}) };
    case 'explain':
      return await handlers.explain(params);
    case 'capture':
      return await handlers.capture(params);
    case 'ack':
      return await handlers.ack(params);
    case 'report':
      return await handlers.report(params);
    case 'history':
      if (handlers.history === undefined) throw new Error('this session keeps no history');
      return await handlers.history(params);
    case 'subscribe':
      // Subscribed before the reply is sent, so no change between reply and stream is lost.
      unsubscribers.push(handlers.subscribe((event) => send({ event: 'state', data: event })));
      return { subscribed: true };
    case 'screen':
      if (handlers.screen === undefined) throw new Error('this session does not serve screen previews');
      unsubscribers.push(handlers.screen((preview) => send({ event: 'screen', data: preview })));
      return { subscribed: true };
  }
}

// ── client ─────────────────────────────────────────────────────────────────────────────────

function connectError(path: string, error: unknown): ControlError {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') return new ControlError('denied', `not allowed to connect to ${path} (${code})`, { cause: error });
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK') {
    return new ControlError('unreachable', `no agentwrap session is listening at ${path}`, { cause: error });
  }
  return new ControlError('unreachable', `cannot connect to ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

interface Reply {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

function toReply(message: Readonly<Record<string, unknown>>): Reply {
  const error = isObject(message['error']) ? message['error'] : undefined;
  return { ok: message['ok'] === true, result: message['result'], ...(error === undefined ? {} : { error }) };
}

function replyError(reply: Reply): ControlError {
  const code = reply.error?.code;
  const known: readonly ControlErrorCode[] = ['bad-request', 'unknown-method', 'failed'];
  const message = typeof reply.error?.message === 'string' ? reply.error.message : 'the session refused the request';
  return new ControlError(known.includes(code as ControlErrorCode) ? (code as ControlErrorCode) : 'failed', message);
}

/**
 * Opens a connection, sends `request`, and calls `onMessage` for every line; resolves the
 * socket when `onMessage` first returns true. Rejects with ControlError on connect failure,
 * timeout or close before that.
 */
function converse(
  path: string,
  request: ControlRequest,
  timeoutMs: number,
  onMessage: (message: Readonly<Record<string, unknown>>, socket: Socket) => boolean,
): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(path);
    let settled = false;
    const settle = (error: ControlError | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) {
        resolvePromise(socket);
      } else {
        socket.destroy();
        reject(error);
      }
    };
    const timer = setTimeout(() => settle(new ControlError('timeout', `no answer from ${path} within ${timeoutMs} ms`)), timeoutMs);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ id: 1, method: request.method, params: request.params ?? {} })}\n`);
    });
    socket.on('error', (error) => settle(connected ? new ControlError('closed', `connection to ${path} failed: ${error.message}`, { cause: error }) : connectError(path, error)));
    socket.on('close', () => settle(new ControlError('closed', `the session at ${path} closed the connection`)));
    socket.on(
      'data',
      lineReader(
        (line) => {
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch {
            settle(new ControlError('protocol', `the session at ${path} sent a line that is not JSON`));
            return;
          }
          // Keeps delivering after settling: a subscription's events follow its reply.
          if (isObject(message) && onMessage(message, socket)) settle(undefined);
        },
        () => settle(new ControlError('protocol', `the session at ${path} sent an overlong line`)),
      ),
    );
  });
}

/** One request, one reply: resolves the `result`, rejects with ControlError. */
export async function requestControl(path: string, request: ControlRequest, timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS): Promise<unknown> {
  if (request.method === 'subscribe') throw new ControlError('bad-request', 'use subscribeControl for subscribe');
  let reply: Reply | undefined;
  const socket = await converse(path, request, timeoutMs, (message) => {
    if (message['id'] !== 1 && message['id'] !== null) return false;
    reply = toReply(message);
    return true;
  });
  socket.destroy();
  if (reply === undefined) throw new ControlError('protocol', `no reply from ${path}`);
  if (!reply.ok) throw replyError(reply);
  return reply.result;
}

export interface ControlSubscription {
  /** Ends the subscription (disconnects). */
  close(): void;
  /** Resolves when the stream ends, by `close()` or because the session went away. */
  readonly closed: Promise<void>;
}

function isStateChangeEvent(value: unknown): value is StateChangeEvent {
  if (!isObject(value)) return false;
  return typeof value['t'] === 'number' && typeof value['session'] === 'string' && typeof value['to'] === 'string';
}

/**
 * Subscribes to a session's state changes. Resolves once the session confirmed the
 * subscription; rejects with ControlError if it cannot be reached or refuses.
 */
export async function subscribeControl(
  path: string,
  onEvent: (event: StateChangeEvent) => void,
  timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS,
): Promise<ControlSubscription> {
  let reply: Reply | undefined;
  let isActive = true;
  const socket = await converse(path, { method: 'subscribe' }, timeoutMs, (message) => {
    if (message['event'] === 'state') {
      // The server subscribes before it replies, so an event may precede the reply line.
      if (isActive && isStateChangeEvent(message['data'])) onEvent(message['data']);
      return false;
    }
    reply ??= toReply(message);
    return true;
  });
  if (reply === undefined || !reply.ok) {
    socket.destroy();
    throw reply === undefined ? new ControlError('protocol', `no reply from ${path}`) : replyError(reply);
  }
  const closed = new Promise<void>((resolvePromise) => {
    if (socket.destroyed) resolvePromise();
    socket.once('close', () => resolvePromise());
  });
  return {
    close: () => {
      isActive = false;
      socket.destroy();
    },
    closed,
  };
}

function isScreenPreview(value: unknown): value is ScreenPreview {
  if (!isObject(value)) return false;
  const { rows, cols, cursorRow, cursorCol } = value;
  return Array.isArray(rows) && rows.every((r) => typeof r === 'string') && typeof cols === 'number' && typeof cursorRow === 'number' && typeof cursorCol === 'number';
}

/**
 * Streams a session's screen preview (`screen` method): `onScreen` gets the viewport at once and
 * after every change. Resolves once the session confirmed; rejects with ControlError otherwise.
 */
export async function subscribeScreen(
  path: string,
  onScreen: (preview: ScreenPreview) => void,
  timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS,
): Promise<ControlSubscription> {
  let reply: Reply | undefined;
  let isActive = true;
  const socket = await converse(path, { method: 'screen' }, timeoutMs, (message) => {
    if (message['event'] === 'screen') {
      if (isActive && isScreenPreview(message['data'])) onScreen(message['data']);
      return false;
    }
    reply ??= toReply(message);
    return true;
  });
  if (reply === undefined || !reply.ok) {
    socket.destroy();
    throw reply === undefined ? new ControlError('protocol', `no reply from ${path}`) : replyError(reply);
  }
  const closed = new Promise<void>((resolvePromise) => {
    if (socket.destroyed) resolvePromise();
    socket.once('close', () => resolvePromise());
  });
  return {
    close: () => {
      isActive = false;
      socket.destroy();
    },
    closed,
  };
}
