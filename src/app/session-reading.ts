/**
 * Reading every writer's session records and heartbeats from the state directory, per the
 * Agent Status Providers convention (shared/seeds/000): corrupt, expired, foreign or dead-pid
 * files are skipped, never fatal (convention §5). Also sweeping stale records of crashed
 * agentwrap peers, resolving what a user typed to one session, and watching for changes.
 * Writing one session's record is session-store.ts.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
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
} from '../core/session-record.js';
import { checkStateRootForReading, currentUid, stateLayout } from '../adapters/state-dir.js';

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
  constructor(readonly reason: SkippedFile['reason']) {
    super(reason);
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads a small JSON file without following a symlink or blocking on a FIFO; undefined when
 * absent; throws SkipFile for anything that is not a plain, small file of ours holding JSON.
 */
export function readJsonFile(path: string, uid: number | undefined): unknown {
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
 * Calls `onFileEvent` when something in `sessions/` changes (inotify) and `onPoll` every
 * `pollMs` whatever happens: the poll covers a directory that does not exist yet, one that went
 * away, and systems without inotify, and re-arms the watch once the directory is there.
 */
export function watchSessions(root: string, onFileEvent: () => void, onPoll: () => void, pollMs: number): SessionsWatch {
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
