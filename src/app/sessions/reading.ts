/**
 * Reading every writer's session records and heartbeats from the state directory, per the
 * Agent Status Providers convention (shared/seeds/000): corrupt, expired, foreign or dead-pid
 * files are skipped, never fatal (convention §5). Also sweeping stale records of crashed
 * agentwrap peers, resolving what a user typed to one session, and watching for changes.
 * Writing one session's record is store.ts.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  isHeartbeatLive,
  isLive,
  isRecordLive,
  parseHeartbeat,
  parsePublishedRecord,
  parseRecord,
  type ProviderHeartbeat,
  type PublishedRecord,
} from '../../core/records/session-record.js';
import { checkStateRootForReading, currentUid, stateLayout } from '../../adapters/state-dir.js';
import { saveSkipCache, skipCachePath, SkipCache, type FileIdentity, type SettledVerdict } from './skip-cache.js';

export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** A record or heartbeat file larger than this is not one (and is not read into memory). */
export const RECORD_MAX_BYTES = 64 * 1024;

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


export class SkipFile extends Error {
  constructor(
    readonly reason: SkippedFile['reason'],
    /** The file judged, when it was opened (a settled verdict is cached against it). */
    readonly identity?: FileIdentity,
  ) {
    super(reason);
  }
}

function identityOf(stats: Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

/** The identity of the file at `path` without following a link; undefined when it is gone. */
function lstatIdentity(path: string): FileIdentity | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats === undefined || !stats.isFile() ? undefined : identityOf(stats);
  } catch {
    return undefined;
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads a small JSON file without following a symlink or blocking on a FIFO; undefined when
 * absent; throws SkipFile for anything that is not a plain, small file of ours holding JSON.
 */
export function readJsonFile(path: string, uid: number | undefined, maxBytes = RECORD_MAX_BYTES): unknown {
  return readJsonFileWithIdentity(path, uid, maxBytes)?.json;
}

function readJsonFileWithIdentity(path: string, uid: number | undefined, maxBytes: number): { json: unknown; identity: FileIdentity } | undefined {
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
    const identity = identityOf(stats);
    if (stats.size > maxBytes) throw new SkipFile('too-large', identity);
    const buffer = Buffer.alloc(stats.size);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    try {
      return { json: JSON.parse(buffer.subarray(0, offset).toString('utf8')) as unknown, identity };
    } catch {
      throw new SkipFile('corrupt', identity);
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
 * dead-pid files are skipped (and listed in `skipped`); nothing throws. With a `cache`, files
 * already judged expired, corrupt, too large or dead cost one lstat while unchanged, and new
 * such verdicts are added to it (the caller saves it).
 */
export function readSessionsReport(
  root: string,
  nowWallMs: number,
  isPidAlive: (pid: number) => boolean,
  uid: number | undefined = currentUid(),
  cache?: SkipCache,
): SessionsReport {
  const refusal = checkStateRootForReading(root, uid);
  if (refusal !== undefined) return { sessions: [], skipped: [], warning: refusal.message };
  const dir = stateLayout(root).sessionsDir;
  const refusedDir = checkStateRootForReading(dir, uid);
  if (refusedDir !== undefined) return { sessions: [], skipped: [], warning: refusedDir.message };
  const sessions: ListedSession[] = [];
  const skipped: SkippedFile[] = [];
  const names = listJsonFiles(dir).sort();
  cache?.retainOnly(new Set(names));
  for (const name of names) {
    const path = join(dir, name);
    const settled = cachedVerdict(cache, name, path);
    if (settled !== undefined) {
      skipped.push({ path, reason: settled.reason });
      continue;
    }
    const verdict = judgeFile(path, name, nowWallMs, isPidAlive, uid);
    if (verdict === undefined) continue; // Removed between listing and reading: a session that just ended.
    if ('session' in verdict) {
      sessions.push(verdict.session);
      continue;
    }
    skipped.push({ path, reason: verdict.reason });
    if (cache !== undefined && verdict.settled !== undefined) cache.set(name, verdict.settled.identity, verdict.settled);
  }
  return { sessions, skipped, warning: undefined };
}

/** One live session by key, read alone (after subscribing, `events` re-checks just that one). */
export function readLiveSession(root: string, key: string, nowWallMs: number, isPidAlive: (pid: number) => boolean, uid: number | undefined = currentUid()): ListedSession | undefined {
  if (checkStateRootForReading(root, uid) !== undefined) return undefined;
  const name = `${key}.json`;
  const verdict = judgeFile(join(stateLayout(root).sessionsDir, name), name, nowWallMs, isPidAlive, uid);
  return verdict !== undefined && 'session' in verdict ? verdict.session : undefined;
}

function cachedVerdict(cache: SkipCache | undefined, name: string, path: string): SettledVerdict | undefined {
  if (cache === undefined || !cache.has(name)) return undefined;
  const identity = lstatIdentity(path);
  if (identity === undefined) {
    cache.forget(name);
    return undefined;
  }
  return cache.get(name, identity);
}

type Verdict =
  | { readonly session: ListedSession }
  | { readonly reason: SkippedFile['reason']; readonly settled: (SettledVerdict & { readonly identity: FileIdentity }) | undefined };

/** The convention's reader rules (§5) for one file; undefined when it is gone. */
function judgeFile(path: string, name: string, nowWallMs: number, isPidAlive: (pid: number) => boolean, uid: number | undefined): Verdict | undefined {
  let read: { json: unknown; identity: FileIdentity } | undefined;
  try {
    read = readJsonFileWithIdentity(path, uid, RECORD_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof SkipFile)) return { reason: 'unreadable', settled: undefined };
    const settledReason = error.reason === 'corrupt' || error.reason === 'too-large' ? error.reason : undefined;
    return { reason: error.reason, settled: settledReason === undefined || error.identity === undefined ? undefined : { reason: settledReason, isOwn: false, identity: error.identity } };
  }
  if (read === undefined) return undefined;
  const { identity } = read;
  const published = parsePublishedRecord(read.json);
  if (published === undefined) return { reason: 'corrupt', settled: { reason: 'corrupt', isOwn: false, identity } };
  const isOwn = published.kind === 'agentwrap';
  // The file's mtime is when it was last written on this clock: a record dated ahead counts from there.
  if (!isRecordLive(published, nowWallMs, () => true, identity.mtimeMs)) return { reason: 'expired', settled: { reason: 'expired', isOwn, identity } };
  if (!isRecordLive(published, nowWallMs, isPidAlive, identity.mtimeMs)) return { reason: 'dead', settled: { reason: 'dead', isOwn, identity } };
  return { session: { ...published, key: name.slice(0, -'.json'.length), path } };
}

export function readSessions(root: string, nowWallMs: number, isPidAlive: (pid: number) => boolean): ListedSession[] {
  return [...readCachedSessionsReport(root, nowWallMs, isPidAlive).sessions];
}

/** The cache file holds one short entry per settled record; far below this even at 100k files. */
const SKIP_CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** `root`'s on-disk skip cache (skip-cache.ts); empty when absent, refused or corrupt. */
export function loadSkipCache(root: string, uid: number | undefined = currentUid()): SkipCache {
  try {
    return SkipCache.fromJson(readJsonFile(skipCachePath(root), uid, SKIP_CACHE_MAX_BYTES));
  } catch {
    // Not a plain file of ours, or unreadable: no cache, every record is read.
    return new SkipCache();
  }
}

/**
 * `readSessionsReport` for a reader that runs once (`status`, `ack`): loads the on-disk skip
 * cache, reads, and saves the cache when it learnt something. `cache` keeps it across passes in
 * a long-running reader (`status --watch`, `events`, `dashboard`).
 */
export function readCachedSessionsReport(
  root: string,
  nowWallMs: number,
  isPidAlive: (pid: number) => boolean,
  cache: SkipCache = loadSkipCache(root),
  uid: number | undefined = currentUid(),
): SessionsReport {
  const report = readSessionsReport(root, nowWallMs, isPidAlive, uid, cache);
  if (report.warning === undefined) saveSkipCache(root, cache, uid);
  return report;
}

/** Live provider heartbeats (`providers/*.json`), for `status` to say which tools are around. */
export function readHeartbeats(root: string, nowWallMs: number, uid: number | undefined = currentUid()): ProviderHeartbeat[] {
  if (checkStateRootForReading(root, uid) !== undefined) return [];
  const dir = stateLayout(root).providersDir;
  const heartbeats: ProviderHeartbeat[] = [];
  for (const name of listJsonFiles(dir).sort()) {
    try {
      const read = readJsonFileWithIdentity(join(dir, name), uid, RECORD_MAX_BYTES);
      const heartbeat = read === undefined ? undefined : parseHeartbeat(read.json);
      if (heartbeat !== undefined && isHeartbeatLive(heartbeat, nowWallMs, read?.identity.mtimeMs)) heartbeats.push(heartbeat);
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
  cache: SkipCache = loadSkipCache(root, uid),
): string[] {
  if (checkStateRootForReading(root, uid) !== undefined) return [];
  const layout = stateLayout(root);
  const removed: string[] = [];
  for (const name of listJsonFiles(layout.sessionsDir)) {
    const path = join(layout.sessionsDir, name);
    // Another writer's settled leftover is never ours to delete: no need to read it again.
    if (cachedVerdict(cache, name, path)?.isOwn === false) continue;
    try {
      const read = readJsonFileWithIdentity(path, uid, RECORD_MAX_BYTES);
      const record = read === undefined ? undefined : parseRecord(read.json);
      if (record === undefined || isLive(record, nowWallMs, read?.identity.mtimeMs) || isPidAlive(record.wrapper_pid)) continue;
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
