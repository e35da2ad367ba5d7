/**
 * Settled verdicts on record files, so a reader does not open, read and parse the same dead
 * records on every pass.
 *
 * A record that is expired, corrupt or too large stays so until its file is rewritten (time only
 * moves forward; a rewrite is a rename, a new inode). One whose writer's pid is dead stays dead:
 * only that writer refreshes it. Other writers' leftovers are never deleted (convention §4.4),
 * so a state directory can hold a thousand of them, and reading each one costs an open, a stat,
 * a read, a close, a parse and, for a dead pid, a kill(2): ~0.1 ms apiece on a loaded 2-core
 * machine, 100+ ms per `status`. With the verdict cached, a settled file costs one lstat.
 *
 * A cached verdict holds only while the file's identity (inode, size, mtime, ctime) is
 * unchanged; anything else is read again. The convention's reader rules are unchanged: the
 * cache only remembers what they concluded (convention §5.5: "callers may cache").
 *
 * `status` is a new process each time, so the cache is also kept on disk, in
 * `<root>/cache/readers.json` (0600 in a 0700 directory, atomic rename, best effort: a missing,
 * corrupt or unwritable cache only means reading every file).
 */
import { join } from 'node:path';
import { writeEphemeralFileSync } from '../../adapters/fs-atomic.js';
import { ensurePrivateDir } from '../../adapters/state-dir.js';

/** Verdicts that only a rewrite of the file can change. */
export type SettledReason = 'corrupt' | 'expired' | 'dead' | 'too-large';

export interface FileIdentity {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

export interface SettledVerdict {
  readonly reason: SettledReason;
  /**
   * Written by agentwrap: the sweep still reads it (to delete it once expired and its wrapper is
   * dead); another writer's file is never agentwrap's to delete, so the sweep passes it by.
   */
  readonly isOwn: boolean;
}

type Entry = readonly [ino: number, size: number, mtimeMs: number, ctimeMs: number, reason: SettledReason, isOwn: 0 | 1];

const CACHE_VERSION = 1;
const REASONS: ReadonlySet<string> = new Set<SettledReason>(['corrupt', 'expired', 'dead', 'too-large']);
/** Beyond this many entries the cache is not kept on disk (a directory that large is read each time). */
const MAX_ENTRIES = 100_000;

export const SKIP_CACHE_DIR = 'cache';
export const SKIP_CACHE_FILE = 'readers.json';

export function skipCachePath(root: string): string {
  return join(root, SKIP_CACHE_DIR, SKIP_CACHE_FILE);
}

function isEntry(value: unknown): value is Entry {
  return (
    Array.isArray(value) &&
    value.length === 6 &&
    value.slice(0, 4).every((n) => typeof n === 'number' && Number.isFinite(n)) &&
    typeof value[4] === 'string' &&
    REASONS.has(value[4]) &&
    (value[5] === 0 || value[5] === 1)
  );
}

export class SkipCache {
  private readonly entries = new Map<string, Entry>();
  private changed = false;

  /** A cache from its stored JSON; anything malformed is ignored entry by entry. */
  static fromJson(json: unknown): SkipCache {
    const cache = new SkipCache();
    if (typeof json !== 'object' || json === null) return cache;
    const { version, entries } = json as { version?: unknown; entries?: unknown };
    if (version !== CACHE_VERSION || typeof entries !== 'object' || entries === null) return cache;
    for (const [name, entry] of Object.entries(entries)) if (isEntry(entry)) cache.entries.set(name, entry);
    return cache;
  }

  /** The settled verdict for `name` if its file is still the one judged. */
  get(name: string, identity: FileIdentity): SettledVerdict | undefined {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    if (entry[0] !== identity.ino || entry[1] !== identity.size || entry[2] !== identity.mtimeMs || entry[3] !== identity.ctimeMs) {
      this.entries.delete(name);
      this.changed = true;
      return undefined;
    }
    return { reason: entry[4], isOwn: entry[5] === 1 };
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  set(name: string, identity: FileIdentity, verdict: SettledVerdict): void {
    this.entries.set(name, [identity.ino, identity.size, identity.mtimeMs, identity.ctimeMs, verdict.reason, verdict.isOwn ? 1 : 0]);
    this.changed = true;
  }

  forget(name: string): void {
    if (this.entries.delete(name)) this.changed = true;
  }

  /** Drops entries for files no longer listed. */
  retainOnly(names: ReadonlySet<string>): void {
    for (const name of this.entries.keys()) {
      if (names.has(name)) continue;
      this.entries.delete(name);
      this.changed = true;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether anything changed since it was loaded or last marked saved. */
  isDirty(): boolean {
    return this.changed;
  }

  markSaved(): void {
    this.changed = false;
  }

  toJson(): unknown {
    return { version: CACHE_VERSION, entries: Object.fromEntries(this.entries) };
  }
}

/**
 * Writes the cache when it changed. Best effort: a root that is refused or unwritable keeps no
 * cache (every pass then reads every file, as without one). Never throws.
 */
export function saveSkipCache(root: string, cache: SkipCache, uid: number | undefined): void {
  if (!cache.isDirty() || cache.size > MAX_ENTRIES) return;
  try {
    ensurePrivateDir(join(root, SKIP_CACHE_DIR), { uid });
    writeEphemeralFileSync(skipCachePath(root), JSON.stringify(cache.toJson()));
    cache.markSaved();
  } catch {
    // A cache: failing to keep it costs time on the next pass, nothing else.
  }
}
