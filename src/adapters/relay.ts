/**
 * The native passthrough relay (src/native/relay.c, built by node-gyp at install): a thread
 * that copies PTY output to the user's terminal and keystrokes to the PTY without waiting for
 * the event loop, and hands JavaScript a copy of both afterwards, in batches.
 *
 * Loading is best-effort: where the addon was not built (no compiler at install) or fails to
 * load, `loadNativeRelay` says why and the caller keeps the event-loop relay in pty/relay-choice.ts, which
 * is correct, only slower. AGENTWRAP_RELAY=js chooses that path on purpose (comparisons, and
 * an escape hatch should the native one misbehave somewhere).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { QUIET_RECHECK_MS, STREAMING_RECHECK_MS } from '../core/policy.js';
import { PACKAGE_ROOT } from './paths.js';

export const RELAY_ADDON_PATH = join(PACKAGE_ROOT, 'build', 'Release', 'agentwrap_relay.node');

/**
 * How far lossless taps (a recording is on) may fall behind before the relay thread waits for
 * them, as a slow terminal would make it wait: ~50 ms of the fastest PTY flood. (Taps that are
 * not lossless never wait: they keep a window, RELAY_TAP_WINDOW_BYTES.)
 */
export const RELAY_TAP_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Without a recording, the taps only hold this much of the newest output while the main
 * thread is not draining: a flood then costs JS a bounded copy per drain instead of every byte,
 * and what it skipped is salvaged on the thread (OSC titles/progress/notifications/marks, a
 * bell, alternate-screen switches) and handed over first, after a CAN. The mirror's own parse
 * window (screen/constants.ts BUDGET_WINDOW_BYTES) is the same size: it never wants more.
 */
export const RELAY_TAP_WINDOW_BYTES = 512 * 1024;

/**
 * While output floods, the main thread drains the taps at most this often (the mirror shows
 * one recent screen per drain); a drain after output went quiet, or at the end, is never held.
 */
export const FLOOD_DRAIN_INTERVAL_MS = 200;

/*
 * Outside floods the thread tells JS about output when the detector wants to look: once output
 * has been quiet for QUIET_RECHECK_MS, or STREAMING_RECHECK_MS after it last told while output
 * keeps coming (src/core/policy.ts); keystrokes at once. Each chunk keeps its arrival time.
 */

/**
 * After this much output since the last trim, once output has been quiet for
 * HEAP_TRIM_QUIET_MS, malloc's free memory is handed back to the system (trimHeap in relay.c):
 * a burst leaves several MB of freed chunks in malloc's arenas (the relay thread's buffers, the
 * hand-overs, the mirror's parsing) that a long-lived wrapper would otherwise keep. A 10 fps
 * spinner's ~600 bytes a second reach it about every half hour; a screen redraw loop sooner.
 */
export const HEAP_TRIM_AFTER_BYTES = 1024 * 1024;

/**
 * The pause in output after which the trim runs. Long, because most of what a burst leaves is
 * freed by V8's garbage collector (each hand-over is an external buffer the relay malloc'd),
 * which in a quiet process runs only once V8's memory reducer starts, 10-20 s after allocation
 * slows: a trim 2 s after a 50 MB flood gave nothing back, one 30 s after it 2.5 MB. The relay
 * thread is idle by then too, so nothing waits on malloc's locks.
 */
export const HEAP_TRIM_QUIET_MS = 30_000;

/**
 * When to trim: counts output, arms one timer when the count passes the threshold, and trims
 * when that timer finds output quiet (else waits out the rest of the pause). Nothing is armed
 * between bursts, so an idle session never wakes for it.
 */
export class HeapTrim {
  #bytes = 0;
  #lastOutputAtMs = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly trim: () => unknown,
    private readonly nowMs: () => number = () => performance.now(),
    private readonly afterBytes: number = HEAP_TRIM_AFTER_BYTES,
    private readonly quietMs: number = HEAP_TRIM_QUIET_MS,
  ) {}

  noteOutput(bytes: number): void {
    if (bytes <= 0) return;
    this.#bytes += bytes;
    this.#lastOutputAtMs = this.nowMs();
    if (this.#bytes >= this.afterBytes && this.#timer === undefined) this.#arm(this.quietMs);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => this.#due(), delayMs);
    this.#timer.unref();
  }

  #due(): void {
    this.#timer = undefined;
    const quietForMs = this.nowMs() - this.#lastOutputAtMs;
    if (quietForMs < this.quietMs) {
      this.#arm(this.quietMs - quietForMs);
      return;
    }
    this.#bytes = 0;
    try {
      this.trim();
    } catch {
      // Handing memory back is housekeeping: a failure costs memory, never the session.
    }
  }
}

/** Why the thread asked for a drain (src/native/relay.c). */
const REASON_SIZE = 1;

export interface RelayBatch {
  /**
   * Output already written to the terminal, in order, since the last batch. After a gap (the
   * taps fell behind) it starts with a CAN and what was salvaged from the gap.
   */
  readonly output: Buffer | undefined;
  /** Keystrokes already written to the PTY, since the last batch. */
  readonly input: Buffer | undefined;
  /** Output bytes the taps never saw (they fell behind a flood; see RELAY_TAP_WINDOW_BYTES). */
  readonly droppedOutput: number;
  /**
   * The thread has exited: the PTY reported EIO/EOF (everything the agent wrote was relayed),
   * or stop() was asked. The last batch says so.
   */
  readonly stopped: boolean;
  /** The relay's mode tracker (ModeTracker's C port) over all output so far: its revision… */
  readonly modesRevision: number;
  /** …and ModeTracker.resetSequence() for it. */
  readonly modesReset: string;
  /** Where each chunk the thread read starts in `output` (the first is 0)… */
  readonly chunkOffsets: readonly number[];
  /** …and how long before this drain it was read, so JS can stamp it with its own clock. */
  readonly chunkAgesMs: readonly number[];
  /** What the OSC 7501 filter found so far (terminal/program-status.ts STATUS_* bits); absent from older builds. */
  readonly programStatus?: number;
}

interface NativeRelayModule {
  start(
    masterFd: number,
    inFd: number,
    outFd: number,
    tapMaxBytes: number,
    lossless: boolean,
    onReady: (reason: number) => void,
    tapWindowBytes: number,
    quietNotifyMs: number,
    streamNotifyMs: number,
    ownProbes?: number,
  ): unknown;
  drain(handle: unknown): RelayBatch;
  writeOut(handle: unknown, data: Buffer): boolean;
  stop(handle: unknown): void;
  /** The mode tracker alone, for comparing it with ModeTracker. */
  trackerCreate(): unknown;
  trackerFeed(handle: unknown, data: Buffer): { revision: number; reset: string };
  /** The OSC 7501 filter alone, for comparing it with ProgramStatusFilter. */
  statusCreate?(): unknown;
  statusOutput?(handle: unknown, data: Buffer): { pass: Buffer; answers: number; bits: number };
  statusInput?(handle: unknown, data: Buffer): { pass: Buffer; answers: number; bits: number };
  statusOwnProbe?(handle: unknown): void;
  /** `stty -opost` on fd as one ioctl; absent from an addon built before it existed. */
  outputRaw?(fd: number): boolean;
  /** `stty -g` of fd by one tcgetattr (Linux; null elsewhere or not a terminal); absent from older builds. */
  modeSnapshot?(fd: number): string | null;
  /** malloc_trim(0) (glibc; false elsewhere): true when memory went back to the system; absent from older builds. */
  trimHeap?(): boolean;
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
  /** The newest output kept for the taps when they are not lossless (RELAY_TAP_WINDOW_BYTES). */
  readonly tapWindowBytes?: number;
  /** agentwrap's own OSC 7501 probes already written to the terminal: their replies are kept from the agent. */
  readonly ownProbes?: number;
  /**
   * Runs on the main thread whenever there is something to take; never concurrently.
   * `isFlooding`: the batch was taken during a flood, and the next one follows within
   * FLOOD_DRAIN_INTERVAL_MS.
   */
  readonly onBatch: (batch: RelayBatch, isFlooding: boolean) => void;
}

export interface PassthroughRelay {
  /** Queues bytes for the terminal, written between two output chunks; false once stopped. */
  writeOut(data: Buffer | string): boolean;
  /** Asks the thread to finish: it writes what it already read, then exits (its last batch says `stopped`). */
  stop(): void;
}

export function startRelay(module: NativeRelayModule, options: RelayOptions): PassthroughRelay {
  let isStopped = false;
  let handle: unknown;
  let deferred: NodeJS.Timeout | undefined;
  let lastDrainAtMs = Number.NEGATIVE_INFINITY;
  const trimHeap = module.trimHeap;
  const heapTrim = trimHeap === undefined ? undefined : new HeapTrim(() => trimHeap.call(module));
  const onReady = (reason: number): void => {
    if (isStopped || handle === undefined) return;
    if (reason === REASON_SIZE && !options.lossless) {
      // A flood: take the newest bytes a few times a second, not every chunk (the thread keeps
      // the window and salvages the rest meanwhile).
      if (deferred !== undefined) return;
      const waitMs = lastDrainAtMs + FLOOD_DRAIN_INTERVAL_MS - performance.now();
      if (waitMs > 0) {
        deferred = setTimeout(() => {
          deferred = undefined;
          drainNow(true);
        }, waitMs);
        return;
      }
      drainNow(true);
      return;
    }
    drainNow(false);
  };
  const drainNow = (isFlooding: boolean): void => {
    if (deferred !== undefined) clearTimeout(deferred);
    deferred = undefined;
    if (isStopped || handle === undefined) return;
    lastDrainAtMs = performance.now();
    const batch = module.drain(handle);
    heapTrim?.noteOutput((batch.output?.length ?? 0) + batch.droppedOutput);
    try {
      options.onBatch(batch, isFlooding && !batch.stopped);
    } finally {
      // A throwing batch handler is the caller's bug and reported there; the relay still ends.
      if (batch.stopped) {
        isStopped = true;
        heapTrim?.stop();
      }
    }
  };
  handle = module.start(
    options.masterFd,
    options.inFd,
    options.outFd,
    options.tapMaxBytes ?? RELAY_TAP_MAX_BYTES,
    options.lossless,
    onReady,
    options.tapWindowBytes ?? RELAY_TAP_WINDOW_BYTES,
    // A recording wants every chunk as it comes (its file is written in arrival order, input
    // included); otherwise JS hears of output on the detector's own schedule.
    options.lossless ? 0 : QUIET_RECHECK_MS,
    options.lossless ? 0 : STREAMING_RECHECK_MS,
    options.ownProbes ?? 0,
  );
  return {
    writeOut(data) {
      if (isStopped) return false;
      return module.writeOut(handle, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    },
    stop() {
      if (!isStopped) module.stop(handle);
    },
  };
}
