/**
 * The two node-pty 1.1.0 internals agentwrap relies on, named and checked at spawn time: the
 * read socket (to drain its tail and, with the native relay, to stop it reading), and the write
 * queue (to write keystrokes straight to the master while it is empty).
 */
import { writeSync } from 'node:fs';
import { ReadStream } from 'node:tty';
import type { IPty } from 'node-pty';

/** The node-pty 1.1.0 internals we rely on, checked at spawn time. */
interface NodePtyInternals {
  readonly _socket?: unknown;
  readonly fd?: unknown;
  readonly _writeStream?: { _writeQueue?: unknown };
}

interface ReadableInternals {
  _readableState?: { decoder: unknown; encoding: unknown };
}

interface SocketReadInternals {
  _read: (size: number) => void;
  _handle?: { reading?: boolean; readStop?: () => number } | null;
}

export interface PtyInternals {
  readonly socket: ReadStream;
  /** The master fd, where node-pty exposes it. */
  readonly masterFd: number | undefined;
  /** node-pty's pending writes; a direct write is only safe while it is empty. Undefined in another version. */
  readonly directWriteQueue: readonly unknown[] | undefined;
}

/**
 * Reaches into `term`; kills it and throws when the internals are not what 1.1.0 has. Removes
 * the socket's string decoder before the first read: spawned with 'utf8' only to get IUTF8 on
 * the pty (see pty/spawn.ts), the data then arrives as Buffers, undecoded.
 */
export function takeInternals(term: IPty): PtyInternals {
  const internals = term as unknown as NodePtyInternals;
  const socket = internals._socket;
  if (!(socket instanceof ReadStream)) {
    term.kill('SIGKILL');
    throw new Error('node-pty internals changed: UnixTerminal._socket is not a tty.ReadStream (expected node-pty 1.1.0)');
  }
  const readable = (socket as unknown as ReadableInternals)._readableState;
  if (readable !== undefined) {
    readable.decoder = null;
    readable.encoding = null;
  }
  const queue = internals._writeStream?._writeQueue;
  return {
    socket,
    masterFd: typeof internals.fd === 'number' ? internals.fd : undefined,
    directWriteQueue: Array.isArray(queue) ? (queue as readonly unknown[]) : undefined,
  };
}

/** Stops a net.Socket from ever reading again, without closing it (see relay-choice.ts). */
export function stopSocketReads(socket: ReadStream): void {
  socket.pause();
  const internals = socket as unknown as SocketReadInternals;
  internals._read = () => undefined;
  const handle = internals._handle;
  if (handle?.readStop !== undefined) {
    handle.reading = false;
    handle.readStop();
  }
}

/**
 * Keystrokes: node-pty writes with fs.write, a hop through libuv's thread pool and back for
 * every key (measured ~+100 µs of round trip on a loaded 2-core machine). When its queue is
 * empty, write to the (non-blocking) master directly; whatever the kernel does not take now
 * (EAGAIN, a short write) goes to node-pty's queue, which keeps the order.
 */
export function writeToAgent(term: IPty, internals: PtyInternals, data: Buffer | string): void {
  const { directWriteQueue, masterFd } = internals;
  if (directWriteQueue === undefined || directWriteQueue.length !== 0 || masterFd === undefined) {
    term.write(data);
    return;
  }
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let written = 0;
  try {
    written = writeSync(masterFd, bytes);
  } catch {
    // EAGAIN (the agent is not reading) or EIO (it is gone): node-pty's queue retries or
    // reports it, as it would have without this shortcut.
    written = 0;
  }
  if (written < bytes.length) term.write(written === 0 ? bytes : bytes.subarray(written));
}
