/**
 * Which agent releases this user has already been told about. A release newer than its pack's
 * span is said once per release, not once per session (a user who sees the same note in every
 * session learns to ignore notes): the first session of `claude 2.1.337` says it, the next ones
 * do not. Kept as one line per release in a private file of agentwrap's state directory.
 * Whatever goes wrong (no HOME, an unwritable or hostile file) only means the note is said again.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { userStateDir } from '../../adapters/paths.js';

const FILE_NAME = 'noted-releases';
/** More than any real list (a line per agent release seen); a larger file is not read. */
const MAX_BYTES = 64 * 1024;

/** True the first time `agent version` is asked about for this user, and records it. */
export function isFirstMention(env: NodeJS.ProcessEnv, agent: string, version: string): boolean {
  const dir = userStateDir(env);
  if (dir === undefined) return true;
  const line = `${agent} ${version}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // No-follow and non-blocking: a symlink or a FIFO planted at the name is refused, not obeyed.
    const fd = openSync(join(dir, FILE_NAME), constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.size > MAX_BYTES) return true;
      const buffer = Buffer.alloc(stat.size);
      const read = stat.size === 0 ? 0 : readSync(fd, buffer, 0, stat.size, 0);
      if (buffer.subarray(0, read).toString('utf8').split('\n').includes(line)) return false;
      writeSync(fd, `${line}\n`);
      return true;
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
}
