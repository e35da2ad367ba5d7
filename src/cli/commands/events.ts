/**
 * `agentwrap events`: NDJSON, one `{t, session, agent, from, to, winner, rule_id}` per line.
 * First one line per live session (`from: null`), then every transition of every agentwrap
 * session, including sessions that start later, until Ctrl-C.
 */
import { isPidAlive } from '../../app/sessions/state-access.js';
import { resolveStateRoot } from '../../app/sessions/state-access.js';
import { subscribeControl, type ControlSubscription, type StateChangeEvent } from '../../app/control/socket.js';
import { loadSkipCache, readCachedSessionsReport, readLiveSession, watchSessions, type ListedSession, type SessionsWatch } from '../../app/sessions/store.js';
import { EVENTS_UNTIL_EOF_ENV, followRemoteEvents, type RemoteEvents } from '../../app/sessions/remote-events.js';
import { isSafeHost } from '../../app/sessions/state-access.js';
import { toJson } from '../../core/text/sanitize.js';
import { COMMANDS } from '../command-table.js';
import { UsageError } from '../errors.js';
import { parseCommand } from '../flags.js';

/** How often the directory is re-read for new sessions when no file event arrives. */
const DISCOVER_POLL_MS = 1_000;
/**
 * File events in `sessions/` are coalesced for this long before the directory is read again:
 * fifty live sessions rewrite their records ten times a second in all (each a create, a write
 * and a rename), and a pass per event kept `events` busy. Transitions do not wait on this: they
 * arrive over each session's control socket; only a new session's first line does.
 */
const DISCOVER_SETTLE_MS = 50;

const SPEC = { name: 'events', options: COMMANDS.events.options, usage: `usage: agentwrap events [--host USER@BOX]…

Prints one JSON object per line: first the current state of every live session (from: null),
then every state change of every agentwrap session until Ctrl-C:
  {"t":1784200000000,"session":"claude-abc","agent":"claude","from":"working","to":"blocked","winner":"pack","rule_id":"permission-dialog"}

  --host USER@BOX   also follow another machine's sessions over ssh (repeatable); its lines
                    end with "host":"USER@BOX", and a host that stops answering is one line
                    {"t":…,"host":"USER@BOX","reachable":false,"error":"…"} (asked again every 10 s)
` } as const;

type OwnSession = ListedSession & { readonly kind: 'agentwrap' };

function snapshotEvent(session: OwnSession, from: StateChangeEvent['from'], nowMs: number): StateChangeEvent {
  const { record } = session;
  return { t: nowMs, session: session.key, agent: record.source_cli, from, to: record.state, winner: record.winner, rule_id: record.rule_id, reason: record.reason ?? null, ...(record.dialog === undefined ? {} : { dialog: record.dialog }) };
}

/** Field order fixed as documented, whatever order the session sent. */
function formatEvent(event: StateChangeEvent, host?: string): string {
  const { t, session, agent, from, to, winner, rule_id, dialog } = event;
  // A session from before causes were published sends none: null, like a session that has none.
  const reason = typeof event.reason === 'string' ? event.reason : null;
  return `${toJson({ t, session, agent, from, to, winner, rule_id, reason, ...(dialog === undefined ? {} : { dialog }), ...(host === undefined ? {} : { host }) })}\n`;
}

interface Tracked {
  /** Identity of the session instance: a restarted session with the same key is a new one. */
  readonly instance: string;
  lastState: StateChangeEvent['to'];
  subscription: ControlSubscription | undefined;
  connecting: boolean;
  /** Its socket closed: the session is ending; its record may linger a moment, but it is not re-announced. */
  ended: boolean;
}

/**
 * Another machine's transitions, each line marked with its host; a host that stops answering is
 * said once per outage (its sessions are unknown now, not gone).
 */
function followHost(host: string, write: (line: string) => void): RemoteEvents {
  let isReachable = true;
  return followRemoteEvents(
    { host, env: process.env },
    {
      onEvent: (event) => {
        isReachable = true;
        write(formatEvent(event, host));
      },
      onUnreachable: (error) => {
        if (!isReachable) return;
        isReachable = false;
        write(`${toJson({ t: Date.now(), host, reachable: false, error })}\n`);
      },
      onWarning: (message) => process.stderr.write(`agentwrap: ${host}: ${message}\n`),
    },
  );
}

/**
 * Follows one session's transitions over its control socket. `isWanted` says, once subscribed,
 * whether the session is still followed (else the subscription is closed at once).
 */
async function subscribeSession(root: string, session: OwnSession, entry: Tracked, emit: (event: StateChangeEvent) => void, isWanted: () => boolean): Promise<void> {
  entry.connecting = true;
  // Once an event came, the stream is newer than any record: a session sends the event
  // before its (queued) record write lands, so the record read below may still be older.
  let isEventHeard = false;
  try {
    const subscription = await subscribeControl(session.record.control, (event) => {
      isEventHeard = true;
      // Already reported: a transition rebuilt from the record just before its event arrived.
      if (event.to === entry.lastState) return;
      entry.lastState = event.to;
      emit(event);
    });
    if (!isWanted()) {
      subscription.close();
      return;
    }
    entry.subscription = subscription;
    // A change between reading the record and subscribing would be lost; the record read
    // now tells, and the missed transition is reported from what the record says.
    const now = isEventHeard ? undefined : readLiveSession(root, session.key, Date.now(), isPidAlive);
    if (now !== undefined && now.kind === 'agentwrap' && now.record.state !== entry.lastState) {
      const from = entry.lastState;
      entry.lastState = now.record.state;
      emit(snapshotEvent(now as OwnSession, from, Date.now()));
    }
    void subscription.closed.then(() => {
      entry.subscription = undefined;
      entry.ended = true;
    });
  } catch {
    // Not reachable yet (socket not bound) or already gone: the next discovery pass retries.
    entry.subscription = undefined;
  } finally {
    entry.connecting = false;
  }
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  if (parsed.positionals.length > 0) throw new UsageError(`events: unexpected argument ${parsed.positionals[0] ?? ''}`);
  const hosts = [...new Set(parsed.values.host ?? [])];
  for (const host of hosts) if (!isSafeHost(host)) throw new UsageError(`--host: "${host}" is not a host name`);
  const root = resolveStateRoot(process.env);
  const out = process.stdout;

  return new Promise<number>((resolvePromise) => {
    const tracked = new Map<string, Tracked>();
    let sessionsWatch: SessionsWatch | undefined;
    let settleTimer: NodeJS.Timeout | undefined;
    let isDone = false;
    // Settled verdicts on dead records, kept across passes (skip-cache.ts).
    const cache = loadSkipCache(root);

    const emit = (event: StateChangeEvent): void => {
      if (!isDone) out.write(formatEvent(event));
    };
    const remotes = hosts.map((host) => followHost(host, (line) => {
      if (!isDone) out.write(line);
    }));

    const liveSessions = (): OwnSession[] =>
      readCachedSessionsReport(root, Date.now(), isPidAlive, cache).sessions.filter((s): s is OwnSession => s.kind === 'agentwrap');

    const connect = (session: OwnSession, entry: Tracked): Promise<void> =>
      subscribeSession(root, session, entry, emit, () => !isDone && tracked.get(session.key) === entry);

    const discover = (): void => {
      if (isDone) return;
      const sessions = liveSessions();
      for (const [key, entry] of tracked) {
        if (sessions.some((s) => s.key === key)) continue;
        entry.subscription?.close();
        tracked.delete(key);
      }
      for (const session of sessions) {
        const instance = `${session.record.wrapper_pid}:${session.record.control}`;
        let entry = tracked.get(session.key);
        if (entry !== undefined && entry.instance !== instance) {
          entry.subscription?.close();
          entry = undefined;
        }
        if (entry === undefined) {
          entry = { instance, lastState: session.record.state, subscription: undefined, connecting: false, ended: false };
          tracked.set(session.key, entry);
          emit(snapshotEvent(session, null, Date.now()));
        }
        if (entry.subscription === undefined && !entry.connecting && !entry.ended) void connect(session, entry);
      }
    };

    const discoverSoon = (): void => {
      if (settleTimer !== undefined) return;
      settleTimer = setTimeout(() => {
        settleTimer = undefined;
        discover();
      }, DISCOVER_SETTLE_MS);
    };

    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const finish = (): void => {
      if (isDone) return;
      isDone = true;
      sessionsWatch?.close();
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      for (const remote of remotes) remote.close();
      for (const signal of SIGNALS) process.off(signal, finish);
      for (const entry of tracked.values()) entry.subscription?.close();
      resolvePromise(0);
    };
    for (const signal of SIGNALS) process.on(signal, finish);
    // `agentwrap events | head -3`: a closed pipe ends the stream quietly.
    out.on('error', finish);
    // The far side of `events --host`: its follower is gone when stdin ends (remote-events.ts).
    if (process.env[EVENTS_UNTIL_EOF_ENV] === '1') {
      process.stdin.once('end', finish);
      process.stdin.once('error', finish);
      process.stdin.resume();
    }

    sessionsWatch = watchSessions(root, discoverSoon, discover, DISCOVER_POLL_MS);
    discover();
  });
}
