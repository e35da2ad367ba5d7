/**
 * When the dashboard re-reads the state directories. Transitions arrive over sockets, so a
 * re-read only brings new and ended sessions and titles; it is paced rather than run on every
 * file event: a new session's file after it settles, rewrites of listed ones at most every few
 * seconds, and a safety re-read when nothing else caused one.
 */
import { watchSessions, type SessionsWatch } from '../../app/sessions/store.js';

/** Re-read of the state directories when nothing else caused one (expired leases, no inotify). */
const SAFETY_REREAD_MS = 5_000;
/** A new session's record (a file name not listed yet) is read this long after it appears. */
const NEW_FILE_SETTLE_MS = 250;
/**
 * A listed session's record is rewritten every few seconds (its lease, its title): those
 * rewrites are read at most this often. Its transitions come over its socket at once, and its
 * end closes the socket (which re-reads at once), so only titles wait for this.
 */
const REWRITE_REREAD_INTERVAL_MS = 3_000;

export interface RereadSchedule {
  /** Starts following file events in each root (the first one also drives the safety re-read). */
  watch(roots: readonly string[]): void;
  now(): void;
  /** Something changed that only a re-read tells (a session ended, a host answered). */
  soon(): void;
  close(): void;
}

/** `isListed(key)`: whether a local session with that key is on screen already. */
export function scheduleRereads(reread: () => void, isListed: (key: string) => boolean): RereadSchedule {
  const watches: SessionsWatch[] = [];
  let settleTimer: NodeJS.Timeout | undefined;
  let settleDueMs = Number.POSITIVE_INFINITY;
  let lastRereadMs = Number.NEGATIVE_INFINITY;
  let isClosed = false;

  const now = (): void => {
    if (isClosed) return;
    lastRereadMs = performance.now();
    reread();
  };
  /** An earlier due time replaces a later one; a later one waits for the pending re-read. */
  const rereadAt = (dueMs: number): void => {
    if (isClosed || dueMs >= settleDueMs) return;
    if (settleTimer !== undefined) clearTimeout(settleTimer);
    settleDueMs = dueMs;
    settleTimer = setTimeout(() => {
      settleTimer = undefined;
      settleDueMs = Number.POSITIVE_INFINITY;
      now();
    }, Math.max(0, dueMs - performance.now()));
  };
  const onFileEvent = (_eventType?: string, filename?: string | null): void => {
    if (typeof filename === 'string' && filename.startsWith('.')) return; // a writer's temp file: its rename follows
    const key = typeof filename === 'string' && filename.endsWith('.json') ? filename.slice(0, -'.json'.length) : undefined;
    const settledMs = performance.now() + NEW_FILE_SETTLE_MS;
    rereadAt(key !== undefined && isListed(key) ? Math.max(settledMs, lastRereadMs + REWRITE_REREAD_INTERVAL_MS) : settledMs);
  };
  const onPoll = (): void => {
    if (performance.now() - lastRereadMs >= SAFETY_REREAD_MS - 100) now();
  };

  return {
    watch(roots) {
      if (isClosed) return; // the terminal went away while opening: no watch would ever be closed
      roots.forEach((root, i) => watches.push(watchSessions(root, onFileEvent, i === 0 ? onPoll : () => undefined, SAFETY_REREAD_MS)));
    },
    now,
    soon: () => rereadAt(performance.now() + NEW_FILE_SETTLE_MS),
    close() {
      isClosed = true;
      for (const watch of watches) watch.close();
      if (settleTimer !== undefined) clearTimeout(settleTimer);
    },
  };
}
