/**
 * Reading a file someone else may have placed: a config file, a pack, a recording. Symlinks are
 * followed (dotfiles often link config.toml), but what is read must be a regular file: the
 * open never blocks (O_NONBLOCK, so a FIFO at the path cannot hang every command), and a file
 * over the size cap is refused before any of it is read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The path names something that is not a regular file (a FIFO, a device, a directory). */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  /** What is wrong, without the path: `is a FIFO, not a regular file`. */
  readonly reason: string;
  constructor(readonly path: string, kind: string) {
    const reason = `is ${kind}, not a regular file`;
    super(`${path} ${reason}`);
    this.reason = reason;
  }
}

/** The file is larger than the reader allows. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'EFBIG';
  /** What is wrong, without the path: `is 5000000 bytes, more than the 1048576 allowed`. */
  readonly reason: string;
  constructor(readonly path: string, readonly size: number, readonly maxBytes: number) {
    const reason = `is ${size} bytes, more than the ${maxBytes} allowed`;
    super(`${path} ${reason}`);
    this.reason = reason;
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * The bytes of `path`, at most `maxBytes` of them. Throws the fs error (ENOENT…) when it cannot
 * be opened, NotRegularFileError or FileTooLargeError. A file that grows while it is read is cut
 * at `maxBytes` + 1 and refused.
 */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, describeKind(stats));
    if (stats.size > maxBytes) throw new FileTooLargeError(path, stats.size, maxBytes);
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    if (offset > maxBytes) throw new FileTooLargeError(path, offset, maxBytes);
    return buffer.subarray(0, offset);
  } finally {
    closeSync(fd);
  }
}

/** Why a read failed, without the path: a refusal's reason, else `cannot read: <fs message>`. */
export function describeReadFailure(error: unknown): string {
  if (error instanceof NotRegularFileError || error instanceof FileTooLargeError) return `${error.reason}; not read`;
  return `cannot read: ${error instanceof Error ? error.message : String(error)}`;
}

/** The same as UTF-8 text. */
export function readRegularTextFileSync(path: string, maxBytes: number): string {
  return readRegularFileSync(path, maxBytes).toString('utf8');
}

function describeKind(stats: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'a special file';
}
