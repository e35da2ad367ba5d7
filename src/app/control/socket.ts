/**
 * A per-session control socket: a Unix socket that `status explain`, `status capture`, `ack`,
 * `events` and agent hooks (`report`) talk to. Newline-delimited JSON, one request per line:
 *
 *   → {"id": 1, "method": "explain", "params": {"ticks": 10}}
 *   ← {"id": 1, "ok": true, "result": …}            or {"id": 1, "ok": false, "error": {"code", "message"}}
 *   → {"id": 2, "method": "subscribe"}
 *   ← {"id": 2, "ok": true, "result": {"subscribed": true}}
 *   ← {"event": "state", "data": {t, session, agent, from, to, winner, rule_id, reason?}}   … until either side closes
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
import {
  CONTROL_LINE_MAX_BYTES,
  CONTROL_PROTOCOL_VERSION,
  METHODS,
  ControlError,
  isObject,
  lineReader,
  UNIX_SOCKET_PATH_MAX_BYTES,
  type ControlHandlers,
  type ControlMethod,
  type ControlParams,
  type ControlRequest,
} from './protocol.js';
import { dirname } from 'node:path';
import { currentUid, ensurePrivateDir } from '../../adapters/state-dir.js';

/** Refusal to bind: a symlink, a regular file, or a live listener already at the path. */
export class ControlSocketError extends Error {
  override readonly name = 'ControlSocketError';
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

// ── where the socket lives: socket-path.ts (the launch prepares it before the spawn) ──

export { controlSocketCandidates, prepareControlSocketPath, type SocketPathInput } from './socket-path.js';

// ── server ─────────────────────────────────────────────────────────────────────────────────

export interface ControlServer {
  readonly path: string;
  /** Number of open client connections (for tests and `status`). */
  connectionCount(): number;
  /** Stops listening, ends every connection (subscribers see the stream end) and removes the socket file. */
  close(): Promise<void>;
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
    case 'answer':
      if (handlers.answer === undefined) throw new Error('this session does not take answers');
      return await handlers.answer(params);
    case 'send':
      if (handlers.send === undefined) throw new Error('this session does not take prompts');
      return await handlers.send(params);
    case 'screen':
      if (handlers.screen === undefined) throw new Error('this session does not serve screen previews');
      unsubscribers.push(handlers.screen((preview) => send({ event: 'screen', data: preview })));
      return { subscribed: true };
  }
}

export { requestControl, subscribeControl, subscribeScreen, type ControlSubscription } from './client.js';
export * from './protocol.js';
