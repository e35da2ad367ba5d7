/**
 * `--record FILE.cast`: the live session's taps written to a recording. The file opens
 * asynchronously; until it is open, everything is queued so the recording misses nothing.
 */
import type { Clock } from '../../adapters/clock.js';
import { formatCommand, pickRecordedEnv, type RecordedPack } from '../../core/recordings/recording.js';
import type { ProcessEvidence } from '../../core/types.js';
import { createRecorder, type Recorder } from '../recording/recorder.js';
import { describeError } from '../session.js';

export interface RecordingTapOptions {
  readonly path: string;
  readonly withInput: boolean;
  readonly cols: number;
  readonly rows: number;
  /** What the user typed: the agent's command and its arguments. */
  readonly command: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The pack the session decides with (or just its agent), named in the header for replay. */
  readonly pack?: RecordedPack | undefined;
  readonly clock: Clock;
  /** The session clock at second 0 of the recording. */
  readonly startMs: number;
  readonly warn: (message: string) => void;
}

export interface RecordingTap {
  output(chunk: Uint8Array): void;
  input(chunk: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** A fresh /proc sample the live loop took at `atMs` (clock time). */
  processSample(evidence: ProcessEvidence, atMs: number): void;
  /** A reporter (hook/plugin) request as the session received it. */
  report(params: Readonly<Record<string, unknown>>): void;
  /** Waits for the file to open (or fail), then writes the rest and closes it. */
  close(): Promise<void>;
}

/** A tap that records nothing: no --record. */
export const NO_RECORDING: RecordingTap = {
  output: () => undefined,
  input: () => undefined,
  resize: () => undefined,
  processSample: () => undefined,
  report: () => undefined,
  close: () => Promise.resolve(),
};

export function startRecordingTap(options: RecordingTapOptions, open: typeof createRecorder = createRecorder): RecordingTap {
  let recorder: Recorder | undefined;
  const early: Array<(r: Recorder) => void> = [];
  const ready = open(options.path, {
    cols: options.cols,
    rows: options.rows,
    command: formatCommand([...options.command]),
    env: pickRecordedEnv(options.env),
    recordInput: options.withInput,
    ...(options.pack === undefined ? {} : { pack: options.pack }),
    clock: options.clock,
    startMs: options.startMs,
    onWarning: options.warn,
  }).then(
    (opened) => {
      recorder = opened;
      for (const action of early.splice(0)) action(opened);
    },
    (error: unknown) => {
      early.length = 0;
      options.warn(`not recording: ${describeError(error)}`);
    },
  );
  let isFailed = false;
  void ready.then(() => {
    isFailed = recorder === undefined;
  });
  const toRecorder = (action: (r: Recorder) => void): void => {
    if (recorder !== undefined) action(recorder);
    else if (!isFailed) early.push(action);
  };
  return {
    output: (chunk) => toRecorder((r) => r.output(chunk)),
    input: (chunk) => toRecorder((r) => r.input(chunk)),
    resize: (cols, rows) => toRecorder((r) => r.resize(cols, rows)),
    processSample: (evidence, atMs) => toRecorder((r) => r.processSample(evidence, atMs)),
    report: (params) => toRecorder((r) => r.report(params)),
    async close() {
      await ready;
      await recorder?.close();
    },
  };
}
