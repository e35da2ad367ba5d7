/**
 * The session recorder: PTY output, input (its content only when opted in), resizes and markers → an asciicast v2
 * file, written as it happens so a crash — even `kill -9` of agentwrap — keeps everything up to
 * the crash. Recording must never slow passthrough: calls only queue text; the queue is written
 * by asynchronous positional writes, batched per event-loop turn. If the disk fails, recording
 * stops with one warning naming the file and the session keeps running (the soft-fail law).
 */
import { close, closeSync, constants, fchmod, fstat, open, write, writeSync } from 'node:fs';
import type { Clock } from '../../adapters/clock.js';
import { encodeInputMarker, encodeProcessSample, encodeReport, INPUT_MARKER_CODE, PROCESS_SAMPLE_CODE, REPORT_CODE } from '../../core/recordings/recorded-evidence.js';
import { createCastEncoder, RECORDING_FILE_MODE, type RecordedPack } from '../../core/recordings/recording.js';
import type { ProcessEvidence } from '../../core/types.js';

/**
 * The most text that may wait for the disk. Past this the disk is not keeping up with the agent,
 * and holding more would trade the user's memory for a recording; recording stops instead.
 */
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;


export interface RecorderOptions {
  readonly cols: number;
  readonly rows: number;
  /** The recorded command line as one string (see formatCommand in core/recording). */
  readonly command: string;
  /** A small environment subset for the header (see pickRecordedEnv in core/recording). */
  readonly env: Readonly<Record<string, string>>;
  readonly title?: string;
  /**
   * Input can hold secrets (passwords, tokens), so it is recorded only when asked for; otherwise
   * each read leaves an input marker (its size and kind, no content) for replay to start turns.
   */
  readonly recordInput: boolean;
  /** The pack the live session decides with, for the header: replay picks it by default. */
  readonly pack?: RecordedPack;
  readonly clock: Clock;
  /** The monotonic time that is second 0 of the recording; defaults to clock.nowMs() at creation. */
  readonly startMs?: number;
  /** Called at most once, when recording stops because of a disk error. */
  readonly onWarning: (message: string) => void;
}

export interface Recorder {
  readonly path: string;
  output(chunk: Uint8Array): void;
  /** Written as is with recordInput, else as an input marker without the content. */
  input(chunk: Uint8Array): void;
  resize(cols: number, rows: number): void;
  marker(label: string): void;
  /** A fresh /proc sample the live loop took at `atMs` (clock time), so replay can feed it back. */
  processSample(evidence: ProcessEvidence, atMs: number): void;
  /** A reporter (hook/plugin) request as the session received it, so replay can feed it back. */
  report(params: Readonly<Record<string, unknown>>): void;
  /** Writes what is queued (and any held-back partial character) and closes the file. Idempotent. */
  close(): Promise<void>;
  /**
   * For exit paths that cannot wait (an `exit` handler): writes everything queued synchronously.
   * Leaves the descriptor open if an asynchronous write is still in flight (the process is
   * ending, and closing it under that write could hand its number to another file).
   */
  closeSync(): void;
}

/** The recording file could not be created. */
export class RecorderError extends Error {
  override readonly name = 'RecorderError';
}

/** Opens `path` (0600, truncating; a symlink is refused) and writes the header. */
export async function createRecorder(path: string, options: RecorderOptions): Promise<Recorder> {
  const startMs = options.startMs ?? options.clock.nowMs();
  let opened: OpenedRecording;
  try {
    opened = await openForRecording(path);
  } catch (error) {
    throw new RecorderError(`cannot record to ${path}: ${messageOf(error)}`, { cause: error });
  }

  const encoder = createCastEncoder();
  const seconds = (): number => (options.clock.nowMs() - startMs) / 1000;
  const headerLine = encoder.header({
    cols: options.cols,
    rows: options.rows,
    timestamp: options.clock.wallMs() / 1000,
    command: options.command,
    ...(options.title !== undefined ? { title: options.title } : {}),
    env: options.env,
    ...(options.pack === undefined ? {} : { pack: options.pack }),
  });
  // The header goes out on the first write, like any event: creating a recorder never blocks.
  const writer = new RecordingWriter(opened, path, headerLine, options.onWarning);
  const finish = (): string => encoder.finish(seconds());

  return {
    path,
    output: (chunk) => writer.enqueue(encoder.output(seconds(), chunk)),
    input: (chunk) => {
      if (options.recordInput) writer.enqueue(encoder.input(seconds(), chunk));
      else if (chunk.length > 0) writer.enqueue(encoder.evidence(seconds(), INPUT_MARKER_CODE, encodeInputMarker(chunk)));
    },
    resize: (cols, rows) => writer.enqueue(encoder.resize(seconds(), cols, rows)),
    marker: (label) => writer.enqueue(encoder.marker(seconds(), label)),
    processSample: (evidence, atMs) => writer.enqueue(encoder.evidence((atMs - startMs) / 1000, PROCESS_SAMPLE_CODE, encodeProcessSample(evidence))),
    report: (params) => writer.enqueue(encoder.evidence(seconds(), REPORT_CODE, encodeReport(params, options.clock.wallMs()))),
    close: () => writer.close(finish),
    closeSync: () => writer.closeSync(finish),
  };
}

/**
 * The recording's write queue: lines wait in memory, one asynchronous positional write at a
 * time carries everything queued (one per event-loop turn in a burst), and a failure or a
 * disk that falls MAX_QUEUED_BYTES behind stops recording with one warning.
 */
class RecordingWriter {
  private queued: string[];
  private queuedBytes: number;
  private position = 0;
  private inFlight: { bytes: Buffer; position: number } | undefined;
  private isFlushScheduled = true;
  private isFailed = false;
  private isClosing = false;
  private isClosed = false;
  private whenDrained: (() => void) | undefined;
  private readonly fd: number;
  private readonly isRegularFile: boolean;

  constructor(
    opened: OpenedRecording,
    private readonly path: string,
    headerLine: string,
    private readonly onWarning: (message: string) => void,
  ) {
    this.fd = opened.fd;
    this.isRegularFile = opened.isRegularFile;
    this.queued = [headerLine];
    this.queuedBytes = headerLine.length;
    setImmediate(() => this.writeNext());
  }

  enqueue(line: string): void {
    if (line === '' || this.isFailed || this.isClosing) return;
    this.queued.push(line);
    this.queuedBytes += line.length;
    if (this.queuedBytes > MAX_QUEUED_BYTES) {
      this.fail(`the disk is not keeping up (${Math.round(this.queuedBytes / 1024 / 1024)} MiB queued)`);
      return;
    }
    if (!this.isFlushScheduled && this.inFlight === undefined) {
      this.isFlushScheduled = true;
      // One turn of the event loop batches a burst of PTY chunks into one write.
      setImmediate(() => this.writeNext());
    }
  }

  /** Queues the last line (`finish()`), then resolves once everything is written and the file closed. */
  close(finish: () => string): Promise<void> {
    if (this.isFailed || this.isClosed) return Promise.resolve();
    this.startClosing(finish);
    return new Promise<void>((resolve) => {
      const previous = this.whenDrained;
      this.whenDrained = () => {
        previous?.();
        resolve();
      };
      if (!this.isFlushScheduled && this.inFlight === undefined) this.writeNext();
    });
  }

  closeSync(finish: () => string): void {
    if (this.isFailed || this.isClosed) return;
    this.startClosing(finish);
    try {
      // Rewriting the in-flight bytes at their own position is harmless and covers a write
      // the exiting process may never see complete. Without positions (a FIFO) it would
      // duplicate them, so there the in-flight write is trusted to land.
      if (this.inFlight !== undefined && this.isRegularFile) writeAllSync(this.fd, this.inFlight.bytes, this.inFlight.position);
      const rest = Buffer.from(this.queued.join(''), 'utf8');
      this.queued = [];
      this.queuedBytes = 0;
      writeAllSync(this.fd, rest, this.isRegularFile ? this.position : null);
      this.position += rest.length;
      if (this.inFlight === undefined) {
        this.isClosed = true;
        closeSync(this.fd);
      }
    } catch (error) {
      this.fail(messageOf(error));
    }
  }

  private startClosing(finish: () => string): void {
    if (this.isClosing) return;
    this.enqueue(finish());
    this.isClosing = true;
  }

  private fail(reason: string): void {
    if (this.isFailed) return;
    this.isFailed = true;
    this.queued = [];
    this.queuedBytes = 0;
    this.onWarning(`agentwrap: recording to ${this.path} stopped: ${reason}; the session continues`);
    if (this.inFlight === undefined) this.releaseDescriptor();
    this.whenDrained?.();
  }

  private releaseDescriptor(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    close(this.fd, (error) => {
      // After a failure the warning has been given; a second message about close adds nothing.
      if (error !== null && !this.isFailed) this.onWarning(`agentwrap: closing recording ${this.path} failed: ${error.message}`);
    });
  }

  private writeNext(): void {
    this.isFlushScheduled = false;
    if (this.isFailed || this.isClosed || this.inFlight !== undefined) return;
    if (this.queued.length === 0) {
      if (this.isClosing) {
        this.releaseDescriptor();
        this.whenDrained?.();
      }
      return;
    }
    const bytes = Buffer.from(this.queued.join(''), 'utf8');
    this.queued = [];
    this.queuedBytes = 0;
    const inFlight = { bytes, position: this.position };
    this.inFlight = inFlight;
    this.position += bytes.length;
    writeFully(this.fd, bytes, this.isRegularFile ? inFlight.position : null, (error) => {
      this.inFlight = undefined;
      if (error !== undefined) {
        this.fail(error.message);
        return;
      }
      if (this.isFailed) {
        this.releaseDescriptor();
        return;
      }
      this.writeNext();
    });
  }
}

interface OpenedRecording {
  readonly fd: number;
  /** A regular file: positional writes, mode enforced. Otherwise (a FIFO, /dev/stderr) write in order. */
  readonly isRegularFile: boolean;
}

function openForRecording(path: string): Promise<OpenedRecording> {
  // O_NOFOLLOW: a planted symlink must not redirect screen text into another file.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  return new Promise((resolve, reject) => {
    open(path, flags, RECORDING_FILE_MODE, (openError, fd) => {
      if (openError !== null) {
        reject(openError);
        return;
      }
      const giveUp = (error: Error): void => close(fd, () => reject(error));
      fstat(fd, (statError, stats) => {
        if (statError !== null) {
          giveUp(statError);
          return;
        }
        // Never chmod a device or FIFO someone pointed us at; only our own file gets 0600.
        if (!stats.isFile()) {
          resolve({ fd, isRegularFile: false });
          return;
        }
        // An existing file keeps its old mode through O_TRUNC; tighten it.
        fchmod(fd, RECORDING_FILE_MODE, (chmodError) => {
          if (chmodError === null) resolve({ fd, isRegularFile: true });
          else giveUp(chmodError);
        });
      });
    });
  });
}

/** Writes all of `bytes`, resuming after a short write; `at` null writes at the current offset. */
function writeFully(fd: number, bytes: Buffer, at: number | null, done: (error: Error | undefined) => void): void {
  write(fd, bytes, 0, bytes.length, at, (error, written) => {
    if (error !== null) {
      done(error);
      return;
    }
    if (written < bytes.length) {
      writeFully(fd, bytes.subarray(written), at === null ? null : at + written, done);
      return;
    }
    done(undefined);
  });
}

function writeAllSync(fd: number, bytes: Buffer, at: number | null): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += writeSync(fd, bytes, offset, bytes.length - offset, at === null ? null : at + offset);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
