/**
 * The local web dashboard's HTTP server (`agentwrap dashboard`): the session list of `status`,
 * live over server-sent events, each session's state timeline of the last hour and the selected
 * session's screen, both asked of the session's control socket.
 *
 * Who may read it: the page shows working directories, titles and screens, so the server
 *   - listens on 127.0.0.1 only;
 *   - wants a random 256-bit token on every request (`?token=`), compared in constant time;
 *   - answers only requests whose Host header names 127.0.0.1 or localhost and its own port, so
 *     a web page on another origin cannot reach it through DNS rebinding;
 *   - sends no CORS header (other origins cannot read a response), forbids framing, sniffing,
 *     caching and referrers (the token is in the URL), and a CSP that allows only its own
 *     inline script and requests to itself: nothing is loaded from the network.
 * A session is named by its record key; the socket path comes from the record, never from the
 * request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPidAlive } from '../adapters/process-alive.js';
import { requestControl } from '../app/control-socket.js';
import { loadSkipCache, readCachedSessionsReport, watchSessions, type ListedSession, type SessionsWatch } from '../app/session-store.js';
import type { StateHistorySnapshot } from '../core/state-history.js';
import type { EvidenceSnapshot } from '../core/types.js';
import { renderDashboardPage, renderHistoryTimeline } from './render-dashboard.js';
import { statusJson, type StatusJson } from './render-status.js';

export const DASHBOARD_HOST = '127.0.0.1';
/** Coalesces a burst of record writes (temp file + rename, many sessions) into one pass. */
const SETTLE_MS = 50;
/** Ages move and a missing directory appears: re-read this often without file events. */
const POLL_MS = 1_000;
/** A comment line now and then keeps proxies and idle timeouts from closing the stream. */
const KEEPALIVE_MS = 15_000;
const CONTROL_TIMEOUT_MS = 2_000;

export interface DashboardOptions {
  readonly root: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** For tests; a fresh random token otherwise. */
  readonly token?: string;
}

export interface Dashboard {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Connected event streams (for tests). */
  streamCount(): number;
  close(): Promise<void>;
}

type OwnSession = ListedSession & { readonly kind: 'agentwrap' };

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(given: string | null, expected: string): boolean {
  return given !== null && timingSafeEqual(digest(given), digest(expected));
}

/** Only our own origin's names: anything else is a rebinding attempt or a mistake. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `${DASHBOARD_HOST}:${port}` || host === `localhost:${port}`;
}

const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** What the list shows changed (ages and lease refreshes alone do not count). */
function signature(view: StatusJson): string {
  return JSON.stringify([
    view.warnings,
    view.sessions.map((s) => {
      const r = s.record as { state_since?: number; stuck?: boolean; title?: string; cwd?: string };
      return [s.key, s.state, r.state_since ?? null, r.stuck ?? null, r.title ?? null, r.cwd ?? null];
    }),
  ]);
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const cache = loadSkipCache(options.root);
  const streams = new Set<ServerResponse>();
  let current: StatusJson | undefined;
  let sessions: readonly ListedSession[] = [];
  let lastSignature = '';
  let settleTimer: NodeJS.Timeout | undefined;

  const read = (): StatusJson => {
    const nowMs = Date.now();
    const report = readCachedSessionsReport(options.root, nowMs, isPidAlive, cache);
    sessions = report.sessions;
    return statusJson({ nowMs, root: options.root, sessions: report.sessions, warnings: report.warning === undefined ? [] : [report.warning] });
  };
  const frame = (view: StatusJson): string => `event: sessions\ndata: ${JSON.stringify(view)}\n\n`;
  const refresh = (force: boolean): void => {
    if (streams.size === 0 && !force) return;
    current = read();
    const next = signature(current);
    // The poll also sends when nothing changed but a minute of ages moved; file events only on change.
    if (!force && next === lastSignature) return;
    lastSignature = next;
    for (const stream of streams) stream.write(frame(current));
  };
  const refreshSoon = (): void => {
    if (settleTimer !== undefined) return;
    settleTimer = setTimeout(() => {
      settleTimer = undefined;
      refresh(false);
    }, SETTLE_MS);
  };
  let polls = 0;
  const watch: SessionsWatch = watchSessions(options.root, refreshSoon, () => {
    polls += 1;
    // Every poll re-reads (a session that died leaves no file event); every 10th resends ages.
    refresh(polls % 10 === 0 && streams.size > 0);
  }, POLL_MS);
  const keepalive = setInterval(() => {
    for (const stream of streams) stream.write(': keepalive\n\n');
  }, KEEPALIVE_MS);

  const ownSession = (key: string | null): OwnSession | undefined => {
    if (key === null) return undefined;
    if (current === undefined) current = read();
    return sessions.find((s): s is OwnSession => s.kind === 'agentwrap' && s.key === key);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, port: number): Promise<void> => {
    if (!hostAllowed(req.headers.host, port)) {
      send(res, 421, 'text/plain; charset=utf-8', 'wrong host\n');
      return;
    }
    if (req.method !== 'GET') {
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET' });
      return;
    }
    const url = new URL(req.url ?? '/', `http://${DASHBOARD_HOST}:${port}`);
    if (!tokenMatches(url.searchParams.get('token'), token)) {
      send(res, 403, 'text/plain; charset=utf-8', 'this dashboard wants the token from the URL agentwrap printed\n');
      return;
    }
    switch (url.pathname) {
      case '/': {
        const nonce = randomBytes(16).toString('base64');
        const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
        send(res, 200, 'text/html; charset=utf-8', renderDashboardPage({ nonce, initial: current ?? read() }), { 'Content-Security-Policy': csp });
        return;
      }
      case '/events': {
        res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
        res.write('retry: 2000\n\n');
        streams.add(res);
        current = read();
        lastSignature = signature(current);
        res.write(frame(current));
        req.on('close', () => streams.delete(res));
        return;
      }
      case '/api/history': {
        const session = ownSession(url.searchParams.get('key'));
        if (session === undefined) {
          sendJson(res, 404, { error: 'no such live agentwrap session' });
          return;
        }
        const history = (await requestControl(session.record.control, { method: 'history' }, CONTROL_TIMEOUT_MS)) as StateHistorySnapshot & { now: number };
        sendJson(res, 200, { key: session.key, since: history.since, now: history.now, transitions: history.transitions, svg: renderHistoryTimeline(history) });
        return;
      }
      case '/api/screen': {
        const session = ownSession(url.searchParams.get('key'));
        if (session === undefined) {
          sendJson(res, 404, { error: 'no such live agentwrap session' });
          return;
        }
        const capture = (await requestControl(session.record.control, { method: 'capture' }, CONTROL_TIMEOUT_MS)) as { snapshot: EvidenceSnapshot };
        const { screen, title } = capture.snapshot;
        sendJson(res, 200, { key: session.key, cols: screen.cols, rows: screen.rows, title: title?.text ?? null });
        return;
      }
      default:
        send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    }
  };

  const server = createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    handle(req, res, port).catch((error: unknown) => {
      // A session that ended between the list and the request, or a socket that timed out.
      if (!res.headersSent) sendJson(res, 502, { error: error instanceof Error ? error.message : String(error) });
      else res.end();
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, DASHBOARD_HOST, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${DASHBOARD_HOST}:${port}/?token=${token}`,
    port,
    token,
    streamCount: () => streams.size,
    close: () =>
      new Promise<void>((resolvePromise) => {
        watch.close();
        clearInterval(keepalive);
        if (settleTimer !== undefined) clearTimeout(settleTimer);
        for (const stream of streams) stream.end();
        streams.clear();
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}
