/**
 * Automatic recording (`record_dir` in config.toml): every wrapped session is recorded into a
 * fresh file in one directory, created 0700 (recordings hold whatever the agent showed), and
 * only the newest `keep` recordings agentwrap made there are kept. Files it did not name are
 * never touched. Any failure is a reason for the caller to warn; the agent runs anyway.
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The names agentwrap gives automatic recordings: `<agent>-<UTC stamp>-<pid>.cast`. */
const AUTO_NAME = /^[A-Za-z0-9_.-]+-\d{8}T\d{6}Z-\d+\.cast$/;

export type AutoRecording = { readonly ok: true; readonly path: string; readonly removed: number } | { readonly ok: false; readonly reason: string };

/** `2026-12-01T21:40:05.123Z` → `20261201T214005Z`. */
function compactStamp(wallIso: string): string {
  return `${wallIso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/**
 * Makes sure `dir` exists and is private enough, removes the oldest automatic recordings so
 * that, with the new one, `keep` remain, and returns the new recording's path.
 */
export function prepareAutoRecording(dir: string, keep: number, agent: string, wallIso: string, pid: number): AutoRecording {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = statSync(dir);
    if (!stats.isDirectory()) return { ok: false, reason: `record_dir ${dir} is not a directory` };
    if ((stats.mode & 0o022) !== 0) {
      return { ok: false, reason: `record_dir ${dir} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)}); not recording there (chmod 700 it)` };
    }
    const removed = pruneAutoRecordings(dir, Math.max(0, keep - 1));
    const safeAgent = agent.replace(/[^A-Za-z0-9_.-]/g, '_') || 'agent';
    return { ok: true, path: join(dir, `${safeAgent}-${compactStamp(wallIso)}-${pid}.cast`), removed };
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
