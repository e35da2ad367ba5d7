/**
 * Publishing one session's record (and agentwrap's provider heartbeat), and reading every
 * writer's records, per the Agent Status Providers convention (shared/seeds/000) and the
 * privacy rules of shared/seeds/001.
 *
 * The soft-fail law: a publishing failure never reaches the session. It becomes one warning
 * (through `onWarning`), the store keeps the latest record and retries on its own timer; the
 * next success ends the episode, and a later failure warns again.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  createHeartbeat,
  DEFAULT_RECORD_TTL_MS,
  isHeartbeatLive,
  isLive,
  isRecordLive,
  parseHeartbeat,
  parsePublishedRecord,
  parseRecord,
  refreshIntervalMs,
  type ProviderHeartbeat,
  type PublishedRecord,
  type SessionRecord,
} from '../core/record.js';
import type { Clock } from '../adapters/clock.js';
import { writeEphemeralFileSync } from '../adapters/fs-atomic.js';
import {
  checkRecordPath,
  checkStateRootForReading,
  currentUid,
  ensureStateDirs,
  stateLayout,
  StateDirError,
  type StateLayout,
} from '../adapters/state-dir.js';

/** Pause between attempts while publishing fails (unwritable, refused, disk full). */
export const PUBLISH_RETRY_MS = 5_000;

/** A record or heartbeat file larger than this is not one (and is not read into memory). */
export const RECORD_MAX_BYTES = 64 * 1024;

export const HEARTBEAT_FILE = 'agentwrap.json';

/** …and never spins: a failing write is retried on PUBLISH_RETRY_MS, not in a tight loop. */
const MIN_TIMER_MS = 50;

export interface SessionStoreOptions {
  /** The resolved state root (adapters/state-dir `resolveStateRoot`). */
  readonly root: string;
  /** `recordKey(sourceCli, sessionId | pid)`; the file is `sessions/<key>.json`. */
  readonly key: string;
  readonly clock: Clock;
  /** Called once per failure episode with one line saying what failed and that the agent keeps running. */
  readonly onWarning: (message: string) => void;
  /** Called when publishing works again after a warning. */
  readonly onRecovered?: () => void;
  /** Owner the directories must have; defaults to the current user. */
  readonly uid?: number | undefined;
  /** The writing process (heartbeat `pid`); defaults to this process. */
  readonly writerPid?: number;
  readonly heartbeatTtlMs?: number;
  readonly retryMs?: number;
  /** Run the refresh/retry timer (unref'd). Tests turn it off and call `refreshIfDue`. Default true. */
  readonly autoRefresh?: boolean;
  /**
   * How long after a refresh (or retry) is due the store's own timer fires. An owner that already
   * wakes up regularly (the live session's 1 Hz tick) calls `refreshIfDue` itself and passes a
   * slack longer than its period: the refresh then rides on a wake-up that happens anyway, and
   * the timer only stands in if that owner stops. Default 0.
   */
  readonly timerSlackMs?: number;
}

export interface SessionStore {
  readonly key: string;
  readonly layout: StateLayout;
  readonly recordPath: string;
  /**
   * Publishes `record` now (on every state change), with `updated_at` set to the clock's wall
   * time. Writes are serialized and coalesced: the newest record wins. Resolves true when the
   * write landed, false when it failed (already warned) or the store is closed; never rejects.
   */
  publish(record: SessionRecord): Promise<boolean>;
  /** Rewrites the latest record (and the heartbeat) if its refresh or a retry is due. Never rejects. */
  refreshIfDue(): Promise<void>;
  /** Monotonic ms until `refreshIfDue` has something to do (0 = now); Infinity before the first publish. */
  refreshDueMs(): number;
  /** Whether the last attempt succeeded (true before any attempt). */
  isHealthy(): boolean;
  /** Clean exit: waits for writes in flight, deletes this session's record (only ours), stops the timer. */
  remove(): Promise<void>;
  /** Same, synchronously, for exit handlers. */
  removeSync(): void;
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function describeFailure(error: unknown): string {
  const code = errnoCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === 'ENOSPC') return `disk full (${detail})`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return `not writable (${detail})`;
  return detail;
}

export function openSessionStore(options: SessionStoreOptions): SessionStore {
  const layout = stateLayout(options.root);
  const recordPath = join(layout.sessionsDir, `${options.key}.json`);
  const heartbeatPath = join(layout.providersDir, HEARTBEAT_FILE);
  const uid = options.uid ?? currentUid();
  const writerPid = options.writerPid ?? process.pid;
  const heartbeatTtlMs = options.heartbeatTtlMs ?? DEFAULT_RECORD_TTL_MS;
  const retryMs = options.retryMs ?? PUBLISH_RETRY_MS;
  const { clock } = options;

  let latest: SessionRecord | undefined;
  let lastSuccessMs: number | undefined;
  let lastHeartbeatMs: number | undefined;
  let lastAttemptMs: number | undefined;
  let healthy = true;
  let warned = false;
  let closed = false;
  let chain: Promise<boolean> = Promise.resolve(true);
  let timer: NodeJS.Timeout | undefined;

  function fail(error: unknown): void {
    healthy = false;
    if (warned) return;
    warned = true;
    // A StateDirError already names the path; other errors (disk full, EACCES) get the root.
    const what = error instanceof StateDirError ? error.message : `${options.root}: ${describeFailure(error)}`;
    options.onWarning(`not publishing session state: ${what}. The agent keeps running; agentwrap retries every ${Math.round(retryMs / 1000)} s.`);
  }

  function succeed(): void {
    healthy = true;
    if (warned) {
      warned = false;
      options.onRecovered?.();
    }
  }

  function writeHeartbeatIfDue(nowMs: number): void {
    if (lastHeartbeatMs !== undefined && nowMs - lastHeartbeatMs < refreshIntervalMs(heartbeatTtlMs)) return;
    checkRecordPath(heartbeatPath);
    const heartbeat = createHeartbeat(writerPid, clock.wallMs(), heartbeatTtlMs);
    writeEphemeralFileSync(heartbeatPath, `${JSON.stringify(heartbeat)}\n`);
    lastHeartbeatMs = nowMs;
  }

  // Synchronous, without fsync (fs-atomic writeEphemeralFileSync): a record is a lease on a live
  // pid, worthless after a crash, and a write is a few small syscalls, cheaper than the
  // thread-pool round trips of an async write. Still queued on `chain`, so publish and remove
  // keep their order and a burst of publishes still writes the newest record.
  function writeLatest(): boolean {
    const record = latest;
    if (closed || record === undefined) return false;
    const nowMs = clock.nowMs();
    lastAttemptMs = nowMs;
    try {
      // Checked before every write, not once: the directory may have been deleted (recreated
      // here) or replaced by a symlink (refused here) while the session runs.
      ensureStateDirs(options.root, uid);
      checkRecordPath(recordPath);
      writeEphemeralFileSync(recordPath, `${JSON.stringify({ ...record, updated_at: clock.wallMs() })}\n`);
      lastSuccessMs = nowMs;
      writeHeartbeatIfDue(nowMs);
      succeed();
      return true;
    } catch (error) {
      fail(error);
      return false;
    }
  }

  function enqueue(): Promise<boolean> {
    chain = chain.then(writeLatest, writeLatest);
    return chain;
  }

  function refreshDueMs(): number {
    if (latest === undefined || closed) return Number.POSITIVE_INFINITY;
    const nowMs = clock.nowMs();
    if (!healthy) return Math.max(0, (lastAttemptMs ?? nowMs) + retryMs - nowMs);
    if (lastSuccessMs === undefined) return 0;
    return Math.max(0, lastSuccessMs + refreshIntervalMs(latest.ttl_ms) - nowMs);
  }

  /**
   * Whether the root and the directory holding `path` are still ours: a root swapped for a
   * symlink (or handed to someone else) while we ran is not deleted from either — what we
   * left there expires by TTL.
   */
  function isDirStillOurs(dir: string): boolean {
    return checkStateRootForReading(options.root, uid) === undefined && checkStateRootForReading(dir, uid) === undefined;
  }

  function unlinkOwnRecord(): void {
    if (!isDirStillOurs(layout.sessionsDir)) return;
    try {
      // Only our own file: a same-key record written by another agentwrap process is left alone.
      const current = readJsonFile(recordPath, uid);
      const parsed = current === undefined ? undefined : parseRecord(current);
      if (parsed !== undefined && parsed.wrapper_pid !== writerPid) return;
      unlinkSync(recordPath);
    } catch (error) {
      // A file there that is not a record of ours (a symlink, another owner's) is not ours to delete.
      if (error instanceof SkipFile) return;
      if (errnoCode(error) !== 'ENOENT') fail(error);
    }
  }

  function unlinkOwnHeartbeat(): void {
    if (!isDirStillOurs(layout.providersDir)) return;
    try {
      // The heartbeat is shared by every agentwrap process; delete it only while it names us,
      // otherwise another live wrapper keeps it fresh and it expires by TTL.
      const current = readJsonFile(heartbeatPath, uid);
      const heartbeat = current === undefined ? undefined : parseHeartbeat(current);
      if (heartbeat !== undefined && heartbeat.pid === writerPid) unlinkSync(heartbeatPath);
    } catch (error) {
      if (error instanceof SkipFile) return; // Not a heartbeat we wrote: leave it.
      if (errnoCode(error) !== 'ENOENT') fail(error);
    }
  }

  function stop(): void {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  // The refresh timer sleeps until the refresh (or a retry) is actually due, and is re-armed by
  // every publish: waking every second to find nothing due was a measurable share of idle CPU.
  const schedule = (): void => {
    if (closed || options.autoRefresh === false) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const dueMs = refreshDueMs();
    if (!Number.isFinite(dueMs)) return;
    timer = setTimeout(() => {
      timer = undefined;
      void store.refreshIfDue().then(schedule);
    }, Math.max(MIN_TIMER_MS, dueMs + (options.timerSlackMs ?? 0)));
    // The record must never keep a finished wrapper alive.
    timer.unref();
  };

  const store: SessionStore = {
    key: options.key,
    layout,
    recordPath,
    publish(record) {
      if (closed) return Promise.resolve(false);
      latest = record;
      const written = enqueue();
      void written.then(schedule);
      return written;
    },
    async refreshIfDue() {
      if (refreshDueMs() > 0) return;
      await enqueue();
      // Called by the owner rather than the timer: move the fallback timer past the next refresh.
      schedule();
    },
    refreshDueMs,
    isHealthy: () => healthy,
    async remove() {
      stop();
      await chain;
      unlinkOwnRecord();
      unlinkOwnHeartbeat();
    },
    removeSync() {
      stop();
      unlinkOwnRecord();
      unlinkOwnHeartbeat();
    },
  };

  return store;
}

// ── reading ────────────────────────────────────────────────────────────────────────────────

/** A live record from `sessions/`, with the file it came from. */
export type ListedSession = PublishedRecord & { readonly key: string; readonly path: string };

export interface SkippedFile {
  readonly path: string;
  readonly reason: 'corrupt' | 'expired' | 'dead' | 'foreign-owner' | 'not-a-file' | 'too-large' | 'unreadable';
}

export interface SessionsReport {
  readonly sessions: readonly ListedSession[];
  readonly skipped: readonly SkippedFile[];
  /** Set when the root itself is unsafe (then nothing is read). */
  readonly warning: string | undefined;
}

class SkipFile extends Error {
  constructor(readonly reason: SkippedFile['reason']) {
    super(reason);
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads a small JSON file without following a symlink or blocking on a FIFO; undefined when
 * absent; throws SkipFile for anything that is not a plain, small file of ours holding JSON.
 */
function readJsonFile(path: string, uid: number | undefined): unknown {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new SkipFile('not-a-file');
    throw new SkipFile('unreadable');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new SkipFile('not-a-file');
    if (uid !== undefined && stats.uid !== uid) throw new SkipFile('foreign-owner');
    if (stats.size > RECORD_MAX_BYTES) throw new SkipFile('too-large');
    const buffer = Buffer.alloc(stats.size);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    try {
      return JSON.parse(buffer.subarray(0, offset).toString('utf8')) as unknown;
    } catch {
      throw new SkipFile('corrupt');
    }
  } finally {
    closeSync(fd);
  }
}

function listJsonFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  } catch {
    // Missing or unreadable directory = no records (convention §5.3).
    return [];
  }
}

/**
 * Every live session record from every writer: corrupt, expired, schema-2, foreign-owned and
 * dead-pid files are skipped (and listed in `skipped`); nothing throws.
 */
export function readSessionsReport(
  root: string,
  nowWallMs: number,
  isPidAlive: (pid: number) => boolean,
  uid: number | undefined = currentUid(),
): SessionsReport {
  const refusal = checkStateRootForReading(root, uid);
  if (refusal !== undefined) return { sessions: [], skipped: [], warning: refusal.message };
  const dir = stateLayout(root).sessionsDir;
  const refusedDir = checkStateRootForReading(dir, uid);
  if (refusedDir !== undefined) return { sessions: [], skipped: [], warning: refusedDir.message };
  const sessions: ListedSession[] = [];
  const skipped: SkippedFile[] = [];
  for (const name of listJsonFiles(dir).sort()) {
    const path = join(dir, name);
    try {
      const json = readJsonFile(path, uid);
      if (json === undefined) continue; // Removed between listing and reading: a session that just ended.
      const published = parsePublishedRecord(json);
      if (published === undefined) throw new SkipFile('corrupt');
      if (!isRecordLive(published, nowWallMs, () => true)) throw new SkipFile('expired');
      if (!isRecordLive(published, nowWallMs, isPidAlive)) throw new SkipFile('dead');
      sessions.push({ ...published, key: name.slice(0, -'.json'.length), path });
    } catch (error) {
      skipped.push({ path, reason: error instanceof SkipFile ? error.reason : 'unreadable' });
    }
  }
  return { sessions, skipped, warning: undefined };
}

export function readSessions(root: string, nowWallMs: number, isPidAlive: (pid: number) => boolean): ListedSession[] {
  return [...readSessionsReport(root, nowWallMs, isPidAlive).sessions];
}

/** Live provider heartbeats (`providers/*.json`), for `status` to say which tools are around. */
export function readHeartbeats(root: string, nowWallMs: number, uid: number | undefined = currentUid()): ProviderHeartbeat[] {
  if (checkStateRootForReading(root, uid) !== undefined) return [];
  const dir = stateLayout(root).providersDir;
  const heartbeats: ProviderHeartbeat[] = [];
  for (const name of listJsonFiles(dir).sort()) {
    try {
      const heartbeat = parseHeartbeat(readJsonFile(join(dir, name), uid));
      if (heartbeat !== undefined && isHeartbeatLive(heartbeat, nowWallMs)) heartbeats.push(heartbeat);
    } catch (error) {
      // A bad heartbeat is absent (convention §5.2); SkipFile carries nothing more to say.
      if (!(error instanceof SkipFile)) throw error;
    }
  }
  return heartbeats;
}

/**
 * Deletes agentwrap's own leftovers from crashed wrappers: records written by agentwrap whose
 * lease has expired AND whose wrapper is dead, and their stale socket file when it sits in
 * `<root>/sockets/`. Other writers' files are never touched (convention §4.4: they expire by
 * TTL). Returns the keys removed. Never throws.
 */
export function sweepStaleRecords(
  root: string,
  nowWallMs: number,
  isPidAlive: (pid: number) => boolean,
  uid: number | undefined = currentUid(),
): string[] {
  if (checkStateRootForReading(root, uid) !== undefined) return [];
  const layout = stateLayout(root);
  const removed: string[] = [];
  for (const name of listJsonFiles(layout.sessionsDir)) {
    const path = join(layout.sessionsDir, name);
    try {
      const record = parseRecord(readJsonFile(path, uid));
      if (record === undefined || isLive(record, nowWallMs) || isPidAlive(record.wrapper_pid)) continue;
      unlinkSync(path);
      removed.push(name.slice(0, -'.json'.length));
      if (dirname(record.control) === layout.socketsDir && lstatSync(record.control).isSocket()) unlinkSync(record.control);
    } catch (error) {
      // Best effort: a file that vanished, is not ours, or cannot be removed is left for next time.
      if (!(error instanceof SkipFile) && errnoCode(error) === undefined) throw error;
    }
  }
  return removed;
}

// ── finding a session by what a person types ──────────────────────────────────────────────

export type SessionMatch =
  | { readonly ok: true; readonly session: ListedSession & { readonly kind: 'agentwrap' } }
  | { readonly ok: false; readonly reason: 'none' | 'ambiguous'; readonly candidates: readonly string[] };

/**
 * agentwrap's session for `query`: an exact key, a pid (the agent's or the wrapper's), an exact
 * session id, else a unique key prefix. Other writers' records have no control socket and are
 * not candidates.
 */
export function resolveSession(sessions: readonly ListedSession[], query: string): SessionMatch {
  const own = sessions.filter((s): s is ListedSession & { kind: 'agentwrap' } => s.kind === 'agentwrap');
  const pick = (found: (ListedSession & { kind: 'agentwrap' })[]): SessionMatch | undefined => {
    const [first] = found;
    if (found.length === 1 && first !== undefined) return { ok: true, session: first };
    if (found.length > 1) return { ok: false, reason: 'ambiguous', candidates: found.map((s) => s.key) };
    return undefined;
  };
  const asPid = /^\d+$/.test(query) ? Number(query) : undefined;
  return (
    pick(own.filter((s) => s.key === query)) ??
    pick(own.filter((s) => asPid !== undefined && (s.record.pid === asPid || s.record.wrapper_pid === asPid))) ??
    pick(own.filter((s) => s.record.session_id === query)) ??
    pick(own.filter((s) => query !== '' && s.key.startsWith(query))) ?? {
      ok: false,
      reason: 'none',
      candidates: own.map((s) => s.key),
    }
  );
}

// ── watching ───────────────────────────────────────────────────────────────────────────────

export interface SessionsWatch {
  close(): void;
}

/**
 * Calls `onFileEvent` (with fs.watch's event type and file name) when something in `sessions/`
 * changes (inotify) and `onPoll` every
 * `pollMs` whatever happens: the poll covers a directory that does not exist yet, one that went
 * away, and systems without inotify, and re-arms the watch once the directory is there.
 */
export function watchSessions(root: string, onFileEvent: (eventType?: string, filename?: string | null) => void, onPoll: () => void, pollMs: number): SessionsWatch {
  let watcher: FSWatcher | undefined;
  const startWatcher = (): void => {
    if (watcher !== undefined) return;
    try {
      watcher = watch(stateLayout(root).sessionsDir, onFileEvent);
      watcher.on('error', () => {
        // The directory went away (or inotify ran out): polling covers it until it is back.
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      // No sessions directory yet (or no inotify): the poll covers it and retries.
      watcher = undefined;
    }
  };
  const poll = setInterval(() => {
    startWatcher();
    onPoll();
  }, pollMs);
  startWatcher();
  return {
    close() {
      clearInterval(poll);
      watcher?.close();
      watcher = undefined;
    },
  };
}
