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
 *     inline script and requests to itself: nothing is loaded from the network;
 *   - takes the two actions that type into an agent (answer, send: actions.ts) only as a POST of
 *     JSON from its own page (Origin, Sec-Fetch-Site).
 * A session is named by its record key; the socket path comes from the record, never from the
 * request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPidAlive } from '../../app/platform.js';
import { requestControl } from '../../app/control/socket.js';
import { loadSkipCache, readCachedSessionsReport, watchSessions, type ListedSession, type SessionsWatch } from '../../app/sessions/store.js';
import type { SkipCache } from '../../app/sessions/skip-cache.js';
import type { StateHistorySnapshot } from '../../core/records/state-history.js';
import type { EvidenceSnapshot } from '../../core/types.js';
import { toJson } from '../../core/text/sanitize.js';
import { renderDashboardPage, renderHistoryTimeline, type DashboardPageInput } from './page.js';
import { actionRefusal, runAction } from './actions.js';
import { statusJson, type StatusJson } from '../render/status.js';

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
  send(res, status, 'application/json; charset=utf-8', toJson(value));
}

/** What the list shows changed (ages and lease refreshes alone do not count). */
function signature(view: StatusJson): string {
  return JSON.stringify([
    view.warnings,
    view.sessions.map((s) => {
      const r = s.record as { state_since?: number; stuck?: boolean; title?: string; cwd?: string };
      const dialog = (s.record as { dialog?: { digest?: string } }).dialog;
      return [s.key, s.state, r.state_since ?? null, r.stuck ?? null, r.title ?? null, r.cwd ?? null, dialog?.digest ?? null];
    }),
  ]);
}

/**
 * The list as `status --json` has it, re-read on file events (coalesced) and every second, and
 * pushed to every connected event stream when what it shows changed (and every 10 s for ages).
 */
class SessionFeed {
  private readonly cache: SkipCache;
  private readonly streams = new Set<ServerResponse>();
  private readonly watch: SessionsWatch;
  private readonly keepalive: NodeJS.Timeout;
  private settleTimer: NodeJS.Timeout | undefined;
  private view: StatusJson | undefined;
  private sessions: readonly ListedSession[] = [];
  private lastSignature = '';
  private polls = 0;

  constructor(private readonly root: string) {
    this.cache = loadSkipCache(root);
    this.watch = watchSessions(root, () => this.refreshSoon(), () => this.poll(), POLL_MS);
    this.keepalive = setInterval(() => {
      for (const stream of this.streams) stream.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
  }

  get streamCount(): number {
    return this.streams.size;
  }

  current(): StatusJson {
    this.view ??= this.read();
    return this.view;
  }

  ownSession(key: string | null): OwnSession | undefined {
    if (key === null) return undefined;
    this.current();
    return this.sessions.find((s): s is OwnSession => s.kind === 'agentwrap' && s.key === key);
  }

  addStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    this.streams.add(res);
    this.view = this.read();
    this.lastSignature = signature(this.view);
    res.write(frame(this.view));
    req.on('close', () => this.streams.delete(res));
  }

  close(): void {
    this.watch.close();
    clearInterval(this.keepalive);
    if (this.settleTimer !== undefined) clearTimeout(this.settleTimer);
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private read(): StatusJson {
    const nowMs = Date.now();
    const report = readCachedSessionsReport(this.root, nowMs, isPidAlive, this.cache);
    this.sessions = report.sessions;
    return statusJson({ nowMs, root: this.root, sessions: report.sessions, warnings: report.warning === undefined ? [] : [report.warning] });
  }

  /** Re-reads and pushes when what the list shows changed, or always when `force`. */
  private refresh(force: boolean): void {
    if (this.streams.size === 0) {
      this.view = undefined;
      return;
    }
    this.view = this.read();
    const next = signature(this.view);
    if (!force && next === this.lastSignature) return;
    this.lastSignature = next;
    for (const stream of this.streams) stream.write(frame(this.view));
  }

  private refreshSoon(): void {
    if (this.settleTimer !== undefined) return;
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      this.refresh(false);
    }, SETTLE_MS);
  }

  /** A session that died leaves no file event: every poll re-reads; every 10th resends the ages. */
  private poll(): void {
    this.polls += 1;
    this.refresh(this.polls % 10 === 0);
  }
}

function frame(view: StatusJson): string {
  return `event: sessions\ndata: ${toJson(view)}\n\n`;
}

const PAGE_CSP = (nonce: string): string =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * The timelines and the most urgent session's screen, fetched before the page is sent, so its
 * first paint is whole (a browser that reads the page once, as a screenshot does, sees them).
 * A session that does not answer in time is left to the page's own fetches.
 */
async function firstPaint(view: StatusJson, feed: SessionFeed): Promise<Pick<DashboardPageInput, 'timelines' | 'screen'>> {
  const own = view.sessions.filter((s) => s.agentwrap).map((s) => feed.ownSession(s.key)).filter((s): s is OwnSession => s !== undefined);
  const ask = (session: OwnSession, method: 'history' | 'capture'): Promise<unknown> =>
    requestControl(session.record.control, { method }, CONTROL_TIMEOUT_MS).catch(() => undefined);
  const histories = await Promise.all(own.map((session) => ask(session, 'history')));
  const timelines: Record<string, { svg: string; since: number }> = {};
  own.forEach((session, i) => {
    const history = histories[i] as (StateHistorySnapshot & { now: number }) | undefined;
    if (history !== undefined) timelines[session.key] = { svg: renderHistoryTimeline(history), since: session.record.state_since };
  });
  const first = own[0];
  const capture = first === undefined ? undefined : ((await ask(first, 'capture')) as { snapshot: EvidenceSnapshot } | undefined);
  const screen = first === undefined || capture === undefined ? undefined : { key: first.key, rows: capture.snapshot.screen.rows, title: capture.snapshot.title?.text ?? null };
  return { timelines, ...(screen === undefined ? {} : { screen }) };
}

async function handle(req: IncomingMessage, res: ServerResponse, port: number, token: string, feed: SessionFeed): Promise<void> {
  if (!hostAllowed(req.headers.host, port)) return send(res, 421, 'text/plain; charset=utf-8', 'wrong host\n');
  const url = new URL(req.url ?? '/', `http://${DASHBOARD_HOST}:${port}`);
  const isAction = url.pathname === '/api/answer' || url.pathname === '/api/send';
  if (isAction && req.method !== 'POST') return sendJson(res, 405, { error: 'actions are POST requests' });
  if (!isAction && req.method !== 'GET') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET' });
  if (!tokenMatches(url.searchParams.get('token'), token)) {
    if (isAction) return sendJson(res, 403, { error: 'this dashboard wants the token from the URL agentwrap printed' });
    return send(res, 403, 'text/plain; charset=utf-8', 'this dashboard wants the token from the URL agentwrap printed\n');
  }
  if (url.pathname === '/api/answer' || url.pathname === '/api/send') {
    const result = actionRefusal(req, port) ?? (await runAction(url.pathname, req, port, (key) => feed.ownSession(key)));
    return sendJson(res, result.status, result.body);
  }
  switch (url.pathname) {
    case '/': {
      const nonce = randomBytes(16).toString('base64');
      const initial = feed.current();
      const page = renderDashboardPage({ nonce, initial, ...(await firstPaint(initial, feed)) });
      return send(res, 200, 'text/html; charset=utf-8', page, { 'Content-Security-Policy': PAGE_CSP(nonce) });
    }
    case '/events':
      return feed.addStream(req, res);
    case '/api/history': {
      const session = feed.ownSession(url.searchParams.get('key'));
      if (session === undefined) return sendJson(res, 404, { error: 'no such live agentwrap session' });
      const history = (await requestControl(session.record.control, { method: 'history' }, CONTROL_TIMEOUT_MS)) as StateHistorySnapshot & { now: number };
      return sendJson(res, 200, { key: session.key, since: history.since, now: history.now, transitions: history.transitions, svg: renderHistoryTimeline(history) });
    }
    case '/api/screen': {
      const session = feed.ownSession(url.searchParams.get('key'));
      if (session === undefined) return sendJson(res, 404, { error: 'no such live agentwrap session' });
      const capture = (await requestControl(session.record.control, { method: 'capture' }, CONTROL_TIMEOUT_MS)) as { snapshot: EvidenceSnapshot };
      const { screen, title } = capture.snapshot;
      return sendJson(res, 200, { key: session.key, cols: screen.cols, rows: screen.rows, title: title?.text ?? null });
    }
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
}

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const feed = new SessionFeed(options.root);
  const server = createServer((req, res) => {
    handle(req, res, (server.address() as AddressInfo).port, token, feed).catch((error: unknown) => {
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
    streamCount: () => feed.streamCount,
    close: () =>
      new Promise<void>((resolvePromise) => {
        feed.close();
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}
