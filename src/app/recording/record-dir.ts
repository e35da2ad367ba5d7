/**
 * Automatic recording (`record_dir` in config.toml): every wrapped session is recorded into a
 * fresh file in one directory, created 0700 (recordings hold whatever the agent showed), and
 * only the newest `keep` recordings agentwrap made there are kept. Files it did not name are
 * never touched. Any failure is a reason for the caller to warn; the agent runs anyway.
 *
 * A recording holds secrets, so the directory must be the user's alone: owned by them, not a
 * symlink (whoever owns the link's target could read the files), not writable by others (who
 * could plant a FIFO or a link at the next name). Each file is created new (exclusive, no
 * symlink followed) under a name with random bits, so no name can be guessed in advance.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { randomHex } from '../../adapters/crypto-on-demand.js';
import { currentUid } from '../../adapters/state-dir.js';
import { RECORDING_FILE_MODE } from '../../core/recordings/recording.js';

/**
 * The names agentwrap gives automatic recordings: `<agent>-<UTC stamp>-<pid>-<random>.cast`
 * (before the random part was added: `<agent>-<UTC stamp>-<pid>.cast`, still pruned).
 */
const AUTO_NAME = /^[A-Za-z0-9_.-]+-\d{8}T\d{6}Z-\d+(-[0-9a-f]{12})?\.cast$/;

/** Names tried before giving up when each already exists (48 random bits: never in practice). */
const CREATE_ATTEMPTS = 4;

export type AutoRecording = { readonly ok: true; readonly path: string; readonly removed: number } | { readonly ok: false; readonly reason: string };

/** `2026-12-01T21:40:05.123Z` → `20261201T214005Z`. */
function compactStamp(wallIso: string): string {
  return `${wallIso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** Why `dir` is no place for recordings, or undefined when it is the user's alone. */
function refusalOf(dir: string, uid: number | undefined): string | undefined {
  const stats = lstatSync(dir);
  if (stats.isSymbolicLink()) return `record_dir ${dir} is a symbolic link; not recording there (name the real directory)`;
  if (!stats.isDirectory()) return `record_dir ${dir} is not a directory`;
  if (uid !== undefined && stats.uid !== uid) return `record_dir ${dir} belongs to uid ${stats.uid}, not you; not recording there`;
  if ((stats.mode & 0o022) !== 0) {
    return `record_dir ${dir} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)}); not recording there (chmod 700 it)`;
  }
  return undefined;
}

/** Creates a new empty 0600 recording (never an existing name, never through a link) and returns its path. */
function createFresh(dir: string, stem: string): string {
  for (let attempt = 1; ; attempt += 1) {
    const path = join(dir, `${stem}-${randomHex(6)}.cast`);
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, RECORDING_FILE_MODE));
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= CREATE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Makes sure `dir` exists and is the user's alone, removes the oldest automatic recordings so
 * that, with the new one, `keep` remain, and creates the new recording (empty); returns its path.
 */
export function prepareAutoRecording(dir: string, keep: number, agent: string, wallIso: string, pid: number, uid: number | undefined = currentUid()): AutoRecording {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const refusal = refusalOf(dir, uid);
    if (refusal !== undefined) return { ok: false, reason: refusal };
    const removed = pruneAutoRecordings(dir, Math.max(0, keep - 1));
    const safeAgent = agent.replace(/[^A-Za-z0-9_.-]/g, '_') || 'agent';
    return { ok: true, path: createFresh(dir, `${safeAgent}-${compactStamp(wallIso)}-${pid}`), removed };
  } catch (error) {
    return { ok: false, reason: `record_dir ${dir}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Deletes the oldest automatic recordings beyond the newest `keep`; returns how many went. */
export function pruneAutoRecordings(dir: string, keep: number): number {
  const recordings = readdirSync(dir)
    .filter((name) => AUTO_NAME.test(name))
    .map((name) => {
      const path = join(dir, name);
      return { path, mtimeMs: statSync(path).mtimeMs };
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs || b.path.localeCompare(a.path));
  let removed = 0;
  for (const old of recordings.slice(keep)) {
    unlinkSync(old.path);
    removed += 1;
  }
  return removed;
}
