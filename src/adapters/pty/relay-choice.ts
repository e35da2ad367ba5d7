/**
 * Who carries the agent's output: the native relay thread (adapters/relay.ts), which reads the
 * master and writes the user's terminal itself, handing copies to onData afterwards; or, where
 * it was not asked for or cannot run, node-pty's socket on the event loop, whose caller relays.
 */
import type { IPty } from 'node-pty';
import type { ReadStream } from 'node:tty';
import { loadNativeRelay, startRelay, type PassthroughRelay, type RelayBatch } from '../relay.js';
import type { ModeState } from '../terminal/terminal.js';
import { stopSocketReads } from './node-pty-internals.js';
import type { OutputFanout, ReadTail } from './read-tail.js';
import type { Passthrough, PtySpawnOptions } from './types.js';

export interface OutputPath {
  readonly passthrough: Passthrough;
  /** Why the native relay is not in use, when passthrough was asked for and it is not. */
  readonly passthroughNote: string | undefined;
  readonly modes: ModeState | undefined;
  tapDroppedBytes(): number;
  /** The relay's OSC 7501 findings (terminal/program-status.ts bits); undefined without the relay. */
  programStatus(): number | undefined;
  /** Called when those findings change, after the batch that changed them. */
  readonly programStatusListeners: Set<(bits: number) => void>;
  /** Writes to the user's terminal through the relay; false when it is not running. */
  writeTerminal(data: Buffer | string): boolean;
  /** Ends reading: with the relay, ask its thread to finish (its last batch destroys the socket). */
  finishReading(): void;
  /** Stops the relay thread, if one runs. */
  stop(): void;
}

export interface OutputPathParts {
  readonly term: IPty;
  readonly socket: ReadStream;
  readonly masterFd: number | undefined;
  readonly passthrough: PtySpawnOptions['passthrough'];
  readonly output: OutputFanout;
  readonly inputListeners: ReadonlySet<(chunk: Buffer) => void>;
  readonly tail: ReadTail;
}

export function startOutputPath(parts: OutputPathParts): OutputPath {
  const { output, tail } = parts;
  const relayModes = { revision: 0, reset: '' };
  let tapDroppedBytes = 0;
  let programStatus: number | undefined;
  const programStatusListeners = new Set<(bits: number) => void>();
  const relayLoad = parts.passthrough === undefined ? undefined : loadNativeRelay();
  let relay: PassthroughRelay | undefined;
  if (parts.passthrough !== undefined && relayLoad?.ok === true && parts.masterFd !== undefined) {
    // The relay thread reads the master from now on; node-pty's socket must never read again.
    // Its constructor started reading and its 'data' forwarding resumes the stream on the next
    // tick, so the read is stopped on the handle and the stream's _read made inert. No event
    // loop turn has passed since the spawn, so no byte was read here.
    stopSocketReads(parts.socket);
    const onBatch = (batch: RelayBatch, isFlooding: boolean): void => {
      relayModes.revision = batch.modesRevision;
      tapDroppedBytes += batch.droppedOutput;
      relayModes.reset = batch.modesReset;
      if (batch.output !== undefined) dispatchChunks(output, batch, batch.output, isFlooding, parts.passthrough?.lossless === true);
      if (batch.input !== undefined) for (const listener of parts.inputListeners) listener(batch.input);
      if (batch.programStatus !== undefined && batch.programStatus !== programStatus) {
        programStatus = batch.programStatus;
        for (const listener of programStatusListeners) listener(batch.programStatus);
      }
      if (batch.stopped) {
        tail.isReadEnded = true;
        relay = undefined;
        tail.destroyNow();
      }
    };
    relay = startRelay(relayLoad.module, { ...parts.passthrough, masterFd: parts.masterFd, onBatch });
    programStatus = 0;
  } else {
    parts.term.onData((data: string | Buffer) => {
      // After the decoder removal data is a Buffer; if a future Node ignored that, re-encoding a
      // string is the best left (lossy only for invalid UTF-8), and the tests would catch it.
      output.dispatch(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    });
  }
  const passthrough: Passthrough = relay === undefined ? 'event-loop' : 'native';
  return {
    passthrough,
    passthroughNote:
      parts.passthrough === undefined || relay !== undefined ? undefined : relayLoad?.ok === false ? relayLoad.reason : 'node-pty gave no master fd',
    modes:
      passthrough === 'native'
        ? {
            get revision() {
              return relayModes.revision;
            },
            resetSequence: () => relayModes.reset,
          }
        : undefined,
    tapDroppedBytes: () => tapDroppedBytes,
    programStatus: () => programStatus,
    programStatusListeners,
    writeTerminal: (data) => relay?.writeOut(data) ?? false,
    finishReading: () => {
      if (relay !== undefined) relay.stop();
      else tail.destroyNow();
    },
    stop: () => relay?.stop(),
  };
}

/**
 * One batch may hold several chunks the thread read at different times. Into a recording
 * (lossless: the thread hands each chunk over as it comes) each goes out alone, stamped with
 * its own arrival time. Otherwise the batch goes out as one chunk stamped with its newest
 * chunk's time: a 10 fps spinner's hand-over every STREAMING_RECHECK_MS carries ~3 frames, and
 * sent one by one they cost three passes through every tap and, after the first inline parse,
 * two more of the mirror's timer wake-ups. The detector loses nothing it reads: it never ticks
 * between the chunks of one batch, output's quiet time counts from the newest read either way,
 * and evidence drawn in an older chunk of the batch (a title, a bell) is stamped at most one
 * hand-over (≤ STREAMING_RECHECK_MS) later, against windows of seconds.
 */
function dispatchChunks(output: OutputFanout, batch: RelayBatch, bytes: Buffer, isFlooding: boolean, isLossless: boolean): void {
  const nowMs = performance.now();
  const count = batch.chunkOffsets.length;
  if (count === 0) {
    output.dispatch(bytes, isFlooding);
    return;
  }
  if (!isLossless) {
    const all = bytes.subarray(batch.chunkOffsets[0] ?? 0);
    if (all.length > 0) output.dispatch(all, isFlooding, nowMs - (batch.chunkAgesMs[count - 1] ?? 0));
    return;
  }
  for (let k = 0; k < count; k++) {
    const start = batch.chunkOffsets[k] ?? 0;
    const end = k + 1 < count ? (batch.chunkOffsets[k + 1] ?? bytes.length) : bytes.length;
    if (end > start) output.dispatch(bytes.subarray(start, end), isFlooding, nowMs - (batch.chunkAgesMs[k] ?? 0));
  }
}
