/**
 * One file per cause per agent in the state directory (`causes/<agent>.<cause>`), shared by every
 * wrapped session of that user: the first session to see a cause (a usage limit, an expired
 * login) creates it and says so; the others find it and stay quiet; the first to see the cause
 * lift removes it and says that. Creation and removal are each atomic (O_EXCL, unlink), so two
 * sessions seeing the same thing at once announce it once. Account-wide because an agent CLI's
 * limits and login belong to the account its sessions share, not to one session.
 */
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from './state-dir.js';

/** A marker name's parts are kept to these characters; anything else becomes `_`. */
function safePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export function causesDir(stateRoot: string): string {
  return join(stateRoot, 'causes');
}

function markerPath(stateRoot: string, agent: string, cause: string): string {
  return join(causesDir(stateRoot), `${safePart(agent)}.${safePart(cause)}`);
}

/**
 * True when this call claimed the cause: created its marker, or replaced one older than
 * `staleMs` (left by a session that ended before the cause lifted). Throws on I/O errors other
 * than the marker already being there.
 */
export function claimCause(stateRoot: string, agent: string, cause: string, nowWallMs: number, staleMs: number): boolean {
  ensurePrivateDir(causesDir(stateRoot), { uid: process.getuid?.() });
  const path = markerPath(stateRoot, agent, cause);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${nowWallMs}\n`);
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (nowWallMs - statSync(path).mtimeMs < staleMs) return false;
      // Stale: removed, then claimed afresh (whoever removes it first claims it).
      if (!releaseCause(stateRoot, agent, cause)) return false;
    }
  }
  return false;
}

/** True when this call removed the marker (the first to see the cause lift); false when none was there. */
export function releaseCause(stateRoot: string, agent: string, cause: string): boolean {
  try {
    unlinkSync(markerPath(stateRoot, agent, cause));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
