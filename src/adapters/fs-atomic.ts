/**
 * The only way agentwrap writes a record: a uniquely named temp file in the same directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), the data written (and fsynced, but for ephemeral files), then rename(2) onto the
 * final name. A reader sees the old file or the new one, never a partial one. The temp name
 * starts with a dot and ends in `.tmp`, so `*.json` readers never pick it up (convention §4.1).
 */
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const TEMP_OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Random per process, counted per write: unique among live writers without asking for entropy
 * each time. Math.random, not node:crypto: the name needs no secrecy (O_EXCL in a 0700
 * directory refuses a collision), and loading node:crypto cost ~10 ms of every reader's start.
 */
const TEMP_TAG = Math.floor(Math.random() * 0x1_0000_0000).toString(16).padStart(8, '0');
let tempCount = 0;

/** `.<name>.<pid>.<random>.tmp` beside the target. */
export function tempPathFor(path: string): string {
  tempCount += 1;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${TEMP_TAG}${tempCount.toString(16)}.tmp`);
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

function removeTemp(tempPath: string): void {
  try {
    unlinkSync(tempPath);
  } catch {
    // Best effort after a failed write: the original error is what the caller needs, and a
    // leftover dot-file named *.tmp is ignored by every reader.
  }
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const tempPath = tempPathFor(path);
  const bytes = toBytes(data);
  const handle = await open(tempPath, TEMP_OPEN_FLAGS, mode);
  try {
    try {
      // The mode given to open passes through the umask; make it exact.
      await handle.chmod(mode);
      let offset = 0;
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, path);
  } catch (error) {
    await unlink(tempPath).catch(() => {
      // Same as removeTemp: keep the original error; a stray *.tmp is ignored by readers.
    });
    throw error;
  }
}

/** Synchronous twin for exit paths, where the event loop will not run again. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, mode = 0o600): void {
  writeSyncThenRename(path, data, mode, true);
}

/**
 * The same atomic replace (a reader still sees the old file or the new one, never a partial
 * one), synchronous and without fsync, for small files that mean nothing after a crash: a
 * session record or heartbeat names a live pid and a lease, so after a power loss it is stale
 * whatever it holds, and readers already skip one that is empty or corrupt. On the state root's
 * usual home (tmpfs under $XDG_RUNTIME_DIR) fsync does nothing anyway; elsewhere it forced a
 * disk flush per refresh. Five plain syscalls (open, fchmod, write, close, rename) on the
 * caller's thread instead of ~12 thread-pool round trips: the record's refresh every 5 s was
 * over a third of an idle session's CPU.
 */
export function writeEphemeralFileSync(path: string, data: string | Uint8Array, mode = 0o600): void {
  writeSyncThenRename(path, data, mode, false);
}

function writeSyncThenRename(path: string, data: string | Uint8Array, mode: number, isDurable: boolean): void {
  const tempPath = tempPathFor(path);
  const bytes = toBytes(data);
  const fd = openSync(tempPath, TEMP_OPEN_FLAGS, mode);
  try {
    try {
      fchmodSync(fd, mode);
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      if (isDurable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, path);
  } catch (error) {
    removeTemp(tempPath);
    throw error;
  }
}
