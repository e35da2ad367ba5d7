/**
 * Publishing one session's record (and agentwrap's provider heartbeat), per the Agent Status
 * Providers convention (shared/seeds/000) and the privacy rules of shared/seeds/001. Reading
 * every writer's records is reading.ts (re-exported here).
 *
 * The soft-fail law: a publishing failure never reaches the session. It becomes one warning
 * (through `onWarning`), the store keeps the latest record and retries on its own timer; the
 * next success ends the episode, and a later failure warns again.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createHeartbeat, DEFAULT_RECORD_TTL_MS, parseHeartbeat, parseRecord, refreshIntervalMs, type SessionRecord } from '../../core/records/session-record.js';
import type { Clock } from '../../adapters/clock.js';
import { writeEphemeralFileSync } from '../../adapters/fs-atomic.js';
import {
  checkRecordPath,
  checkStateRootForReading,
  currentUid,
  ensureStateDirs,
  stateLayout,
  StateDirError,
  type StateLayout,
} from '../../adapters/state-dir.js';
import { errnoCode, readJsonFile, SkipFile } from './reading.js';

export * from './reading.js';

/** Pause between attempts while publishing fails (unwritable, refused, disk full). */
export const PUBLISH_RETRY_MS = 5_000;

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
  /**
   * Rewrites the latest record (and the heartbeat) if its refresh or a retry is due, or comes
   * due within `earlyByMs`: an owner that knows its next wake-up is that far off refreshes now
   * rather than waking again for it. Never rejects.
   */
  refreshIfDue(earlyByMs?: number): Promise<void>;
  /** Monotonic ms until `refreshIfDue` has something to do (0 = now); Infinity before the first publish. */
  refreshDueMs(): number;
  /** Whether the last attempt succeeded (true before any attempt). */
  isHealthy(): boolean;
  /** Clean exit: waits for writes in flight, deletes this session's record (only ours), stops the timer. */
  remove(): Promise<void>;
  /** Same, synchronously, for exit handlers. */
  removeSync(): void;
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
  const owned: OwnFiles = { root: options.root, layout, recordPath, heartbeatPath, uid, writerPid };

  let latest: SessionRecord | undefined;
  let lastSuccessMs: number | undefined;
  let lastHeartbeatMs: number | undefined;
  let lastAttemptMs: number | undefined;
  let closed = false;
  let chain: Promise<boolean> = Promise.resolve(true);
  let timer: NodeJS.Timeout | undefined;

  const health = new PublishHealth(options.root, retryMs, options.onWarning, options.onRecovered);
  function writeHeartbeatIfDue(nowMs: number): void {
    lastHeartbeatMs = refreshSharedHeartbeat(owned, lastHeartbeatMs, nowMs, clock.wallMs(), heartbeatTtlMs);
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
      health.succeed();
      return true;
    } catch (error) {
      health.fail(error);
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
    if (!health.isHealthy) return Math.max(0, (lastAttemptMs ?? nowMs) + retryMs - nowMs);
    if (lastSuccessMs === undefined) return 0;
    return Math.max(0, lastSuccessMs + refreshIntervalMs(latest.ttl_ms) - nowMs);
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
    async refreshIfDue(earlyByMs = 0) {
      if (refreshDueMs() > earlyByMs) return;
      await enqueue();
      // Called by the owner rather than the timer: move the fallback timer past the next refresh.
      schedule();
    },
    refreshDueMs,
    isHealthy: () => health.isHealthy,
    async remove() {
      stop();
      await chain;
      removeOwnFiles(owned, (error) => health.fail(error));
    },
    removeSync() {
      stop();
      removeOwnFiles(owned, (error) => health.fail(error));
    },
  };

  return store;
}

interface OwnFiles {
  readonly root: string;
  readonly layout: StateLayout;
  readonly recordPath: string;
  readonly heartbeatPath: string;
  readonly uid: number | undefined;
  readonly writerPid: number;
}

/** Deletes this session's record and, while it names us, the heartbeat; `fail` hears real errors. */
/**
 * Writes the provider heartbeat when due; returns when it was last written (session clock).
 * The heartbeat is shared: with fifty sessions, fifty writers rewrote the same file every 5 s.
 * One that another live wrapper refreshed lately is left alone (one lstat instead of open,
 * write, close and rename); whoever finds it stale rewrites it with its own pid.
 */
function refreshSharedHeartbeat(own: OwnFiles, lastMs: number | undefined, nowMs: number, nowWallMs: number, ttlMs: number): number {
  const intervalMs = refreshIntervalMs(ttlMs);
  if (lastMs !== undefined && nowMs - lastMs < intervalMs) return lastMs;
  const ageMs = heartbeatAgeMs(own.heartbeatPath, own.uid, nowWallMs, intervalMs);
  if (ageMs !== undefined && ageMs < intervalMs) return nowMs - ageMs;
  checkRecordPath(own.heartbeatPath);
  writeEphemeralFileSync(own.heartbeatPath, `${JSON.stringify(createHeartbeat(own.writerPid, nowWallMs, ttlMs))}\n`);
  return nowMs;
}

/** How long ago someone wrote the heartbeat, by its mtime; undefined when absent, foreign or not a plain file. */
function heartbeatAgeMs(path: string, uid: number | undefined, nowWallMs: number, intervalMs: number): number | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isFile() || (uid !== undefined && stats.uid !== uid)) return undefined;
    const ageMs = nowWallMs - stats.mtimeMs;
    // A little in the future is clock granularity; far in the future, a clock that jumped back.
    return ageMs < -intervalMs ? undefined : Math.max(0, ageMs);
  } catch {
    return undefined;
  }
}

function removeOwnFiles(own: OwnFiles, fail: (error: unknown) => void): void {
  unlinkOwnRecord(own, fail);
  unlinkOwnHeartbeat(own, fail);
}

/**
 * Whether the root and `dir` are still ours: a root swapped for a symlink (or handed to someone
 * else) while we ran is not deleted from either — what we left there expires by TTL.
 */
function isDirStillOurs(own: OwnFiles, dir: string): boolean {
  return checkStateRootForReading(own.root, own.uid) === undefined && checkStateRootForReading(dir, own.uid) === undefined;
}

function unlinkOwnRecord(own: OwnFiles, fail: (error: unknown) => void): void {
  if (!isDirStillOurs(own, own.layout.sessionsDir)) return;
  try {
    // Only our own file: a same-key record written by another agentwrap process is left alone.
    const current = readJsonFile(own.recordPath, own.uid);
    const parsed = current === undefined ? undefined : parseRecord(current);
    if (parsed !== undefined && parsed.wrapper_pid !== own.writerPid) return;
    unlinkSync(own.recordPath);
  } catch (error) {
    // A file there that is not a record of ours (a symlink, another owner's) is not ours to delete.
    if (error instanceof SkipFile) return;
    if (errnoCode(error) !== 'ENOENT') fail(error);
  }
}

function unlinkOwnHeartbeat(own: OwnFiles, fail: (error: unknown) => void): void {
  if (!isDirStillOurs(own, own.layout.providersDir)) return;
  try {
    // The heartbeat is shared by every agentwrap process; delete it only while it names us,
    // otherwise another live wrapper keeps it fresh and it expires by TTL.
    const current = readJsonFile(own.heartbeatPath, own.uid);
    const heartbeat = current === undefined ? undefined : parseHeartbeat(current);
    if (heartbeat !== undefined && heartbeat.pid === own.writerPid) unlinkSync(own.heartbeatPath);
  } catch (error) {
    if (error instanceof SkipFile) return; // Not a heartbeat we wrote: leave it.
    if (errnoCode(error) !== 'ENOENT') fail(error);
  }
}

/** Whether publishing works, warning once per failure episode and saying when it recovered. */
class PublishHealth {
  isHealthy = true;
  private isWarned = false;

  constructor(
    private readonly root: string,
    private readonly retryMs: number,
    private readonly onWarning: (message: string) => void,
    private readonly onRecovered: (() => void) | undefined,
  ) {}

  fail(error: unknown): void {
    this.isHealthy = false;
    if (this.isWarned) return;
    this.isWarned = true;
    // A StateDirError already names the path; other errors (disk full, EACCES) get the root.
    const what = error instanceof StateDirError ? error.message : `${this.root}: ${describeFailure(error)}`;
    this.onWarning(`not publishing session state: ${what}. The agent keeps running; agentwrap retries every ${Math.round(this.retryMs / 1000)} s.`);
  }

  succeed(): void {
    this.isHealthy = true;
    if (this.isWarned) {
      this.isWarned = false;
      this.onRecovered?.();
    }
  }
}
