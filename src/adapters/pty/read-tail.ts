/**
 * The tail of the agent's output, which node-pty loses in two ways (pty/spawn.ts explains both):
 * libuv's early EOF, answered by draining the master by hand on 'end'; and node-pty's 200 ms
 * exit timer destroying the socket with bytes still in the kernel, answered by deferring that
 * destroy until the read side really ended, went quiet (DRAIN_QUIET_MS) or DRAIN_MAX_MS passed.
 * Also the fan-out of output to the onData listeners, which counts chunks for the quiet check.
 */
import { readSync } from 'node:fs';
import type { ReadStream } from 'node:tty';

/** Read size when draining the pty by hand after libuv's early EOF (see the 'end' handler). */
const DRAIN_READ_BYTES = 64 * 1024;

/** After the child exits, the pty counts as drained once nothing arrived for this long. */
export const DRAIN_QUIET_MS = 500;
/**
 * Upper bound on draining after exit. Only a background process that inherited the pty and
 * keeps writing can reach it; the agent's own leftover output is at most the kernel buffer.
 */
export const DRAIN_MAX_MS = 5_000;

export type OutputListener = (chunk: Buffer, isFlooding: boolean, atMs: number | undefined) => void;

/** Output to the onData listeners, in subscription order, counted for the drain's quiet check. */
export class OutputFanout {
  readonly listeners = new Set<OutputListener>();
  count = 0;
  lastAtMs = performance.now();

  dispatch(chunk: Buffer, isFlooding = false, atMs?: number): void {
    for (const listener of this.listeners) listener(chunk, isFlooding, atMs);
    this.count += 1;
    this.lastAtMs = performance.now();
  }
}

export class ReadTail {
  /** The read side ended: EOF/EIO after the kernel buffer drained, or the socket closed. */
  isReadEnded = false;
  /** The pty was disposed: destroying loses nothing any more. */
  isDisposed = false;
  /** How reading is ended once the pty drained: the relay's stop, or `destroyNow` (the default). */
  finishReading: () => void = () => this.destroyNow();
  private drainStartedAtMs: number | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private drainImmediate: NodeJS.Immediate | undefined;
  private readonly originalDestroy: (error?: Error) => ReadStream;

  constructor(
    private readonly socket: ReadStream,
    private readonly masterFd: number | undefined,
    private readonly output: OutputFanout,
  ) {
    this.originalDestroy = socket.destroy.bind(socket);
    socket.destroy = (error?: Error): ReadStream => {
      // With an error (EIO at the end of output, or any read failure) or once the read side has
      // ended, destroying loses nothing. Without one it is node-pty's 200 ms exit timer: defer.
      if (error !== undefined || this.isReadEnded || this.isDisposed) return this.originalDestroy(error);
      if (this.drainStartedAtMs === undefined) {
        this.drainStartedAtMs = performance.now();
        this.drainTimer = setTimeout(() => this.checkDrained(), DRAIN_QUIET_MS);
      }
      return socket;
    };
    // libuv reports EOF early on a pty: when poll says POLLHUP (the slave side closed) and the
    // last read was partial, uv__stream_io assumes the rest is empty. A pty hands its buffer
    // out in pieces, so up to ~64 KiB may still be there. 'end' runs before autoDestroy closes
    // the fd, so read the remainder here, synchronously, until the kernel says EIO (drained).
    socket.once('end', () => {
      this.drainSync();
      this.isReadEnded = true;
    });
    socket.once('close', () => {
      this.isReadEnded = true;
      this.clearTimers();
    });
  }

  /** Destroys the socket now, whatever is pending. */
  destroyNow(): void {
    this.clearTimers();
    this.originalDestroy();
  }

  clearTimers(): void {
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    if (this.drainImmediate !== undefined) clearImmediate(this.drainImmediate);
    this.drainTimer = undefined;
    this.drainImmediate = undefined;
  }

  /**
   * A drain check runs in a timer, then looks again after one poll turn (setImmediate runs
   * after the poll phase, which reads anything readable): a busy event loop cannot fake quiet.
   */
  private checkDrained(): void {
    this.drainTimer = undefined;
    if (this.isReadEnded || this.socket.destroyed) return;
    if (this.drainStartedAtMs !== undefined && performance.now() - this.drainStartedAtMs >= DRAIN_MAX_MS) {
      this.finishReading();
      return;
    }
    const countBefore = this.output.count;
    this.drainImmediate = setImmediate(() => {
      this.drainImmediate = undefined;
      if (this.isReadEnded || this.socket.destroyed) return;
      if (this.output.count === countBefore && performance.now() - this.output.lastAtMs >= DRAIN_QUIET_MS) this.finishReading();
      else this.drainTimer = setTimeout(() => this.checkDrained(), DRAIN_QUIET_MS);
    });
  }

  private drainSync(): void {
    if (this.masterFd === undefined) return;
    const buffer = Buffer.allocUnsafe(DRAIN_READ_BYTES);
    for (;;) {
      let count: number;
      try {
        count = readSync(this.masterFd, buffer, 0, buffer.length, null);
      } catch {
        // EIO: nothing left and the slave is closed (the normal end). EAGAIN: nothing left
        // right now; after POLLHUP that only happens if someone reopened the slave. Either
        // way everything written before the hangup has been read.
        return;
      }
      if (count <= 0) return;
      this.output.dispatch(Buffer.from(buffer.subarray(0, count)));
    }
  }
}
