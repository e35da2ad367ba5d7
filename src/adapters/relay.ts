/**
 * The native passthrough relay (src/native/relay.c, built by node-gyp at install): a thread
 * that copies PTY output to the user's terminal and keystrokes to the PTY without waiting for
 * the event loop, and hands JavaScript a copy of both afterwards, in batches.
 *
 * Loading is best-effort: where the addon was not built (no compiler at install) or fails to
 * load, `loadNativeRelay` says why and the caller keeps the event-loop relay in pty.ts, which
 * is correct, only slower. AGENTWRAP_RELAY=js chooses that path on purpose (comparisons, and
 * an escape hatch should the native one misbehave somewhere).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './paths.js';

export const RELAY_ADDON_PATH = join(PACKAGE_ROOT, 'build', 'Release', 'agentwrap_relay.node');

/**
 * How far the taps may fall behind the passthrough before the oldest tapped output is dropped
 * (the mirror then resynchronises from the newest bytes, as after any flood cut). A lossless
 * relay (recording on) waits instead. 4 MiB is ~50 ms of the fastest PTY flood and as much as
 * the mirror's own backlog keeps (screen.ts), so more would only be memory.
 */
export const RELAY_TAP_MAX_BYTES = 4 * 1024 * 1024;

export interface RelayBatch {
  /** Output already written to the terminal, in order, since the last batch. */
  readonly output: Buffer | undefined;
  /** Keystrokes already written to the PTY, since the last batch. */
  readonly input: Buffer | undefined;
  /** Output bytes the taps never saw because they fell RELAY_TAP_MAX_BYTES behind. */
  readonly droppedOutput: number;
  /** The PTY reported EIO/EOF: everything the agent wrote has been relayed. */
  readonly ended: boolean;
  /** The user's input reached EOF or failed. */
  readonly inputEnded: boolean;
  /** Non-zero once writing to the terminal failed (the errno); output is discarded from then. */
  readonly outputErrno: number;
  /** The thread has exited (after `ended`, or after stop()). The last batch says so. */
  readonly stopped: boolean;
  /** The relay's mode tracker (ModeTracker's C port) over all output so far: its revision… */
  readonly modesRevision: number;
  /** …and ModeTracker.resetSequence() for it. */
  readonly modesReset: string;
}

interface NativeRelayModule {
  start(masterFd: number, inFd: number, outFd: number, tapMaxBytes: number, lossless: boolean, onReady: () => void): unknown;
  drain(handle: unknown): RelayBatch;
  writeOut(handle: unknown, data: Buffer): boolean;
  stop(handle: unknown): void;
  /** The mode tracker alone, for comparing it with ModeTracker. */
  trackerCreate(): unknown;
  trackerFeed(handle: unknown, data: Buffer): { revision: number; reset: string };
}

export type RelayLoad = { readonly ok: true; readonly module: NativeRelayModule } | { readonly ok: false; readonly reason: string };

let loaded: RelayLoad | undefined;

/** The addon, loaded once; `{ok: false, reason}` when it is not there or not wanted. */
export function loadNativeRelay(env: NodeJS.ProcessEnv = process.env): RelayLoad {
  if (env['AGENTWRAP_RELAY'] === 'js') return { ok: false, reason: 'AGENTWRAP_RELAY=js' };
  if (loaded !== undefined) return loaded;
  try {
    const module = createRequire(import.meta.url)(RELAY_ADDON_PATH) as NativeRelayModule;
    loaded = typeof module.start === 'function' ? { ok: true, module } : { ok: false, reason: `${RELAY_ADDON_PATH} is not agentwrap's relay` };
  } catch (error) {
    loaded = { ok: false, reason: `${RELAY_ADDON_PATH}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
  return loaded;
}

export interface RelayOptions {
  /** The PTY master; the relay reads and writes its own duplicate of it. */
  readonly masterFd: number;
  /** The user's input, or -1 for none. */
  readonly inFd: number;
  /** The user's terminal. */
  readonly outFd: number;
  /** Wait for the taps instead of dropping their oldest bytes (a recording is on). */
  readonly lossless: boolean;
  readonly tapMaxBytes?: number;
  /** Runs on the main thread whenever there is something to take; never concurrently. */
  readonly onBatch: (batch: RelayBatch) => void;
}

export interface PassthroughRelay {
  /** Queues bytes for the terminal, written between two output chunks; false once stopped. */
  writeOut(data: Buffer | string): boolean;
  /** Asks the thread to finish: it writes what it already read, then exits. */
  stop(): void;
  /** Resolves after the last batch (the one with `stopped`) was delivered. */
  readonly stopped: Promise<void>;
}

export function startRelay(module: NativeRelayModule, options: RelayOptions): PassthroughRelay {
  let isStopped = false;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  let handle: unknown;
  const onReady = (): void => {
    if (isStopped || handle === undefined) return;
    const batch = module.drain(handle);
    try {
      options.onBatch(batch);
    } finally {
      // A throwing batch handler is the caller's bug and reported there; the relay still ends.
      if (batch.stopped) {
        isStopped = true;
        resolveStopped();
      }
    }
  };
  handle = module.start(options.masterFd, options.inFd, options.outFd, options.tapMaxBytes ?? RELAY_TAP_MAX_BYTES, options.lossless, onReady);
  return {
    writeOut(data) {
      if (isStopped) return false;
      return module.writeOut(handle, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    stop() {
      if (!isStopped) module.stop(handle);
    },
    stopped,
  };
}
