/**
 * The screen mirror's parser in a worker thread (`createScreen({ worker: true })`). The main
 * thread keeps the flow control and sends at most IN_FLIGHT_MAX_BYTES at a time; here every
 * request is parsed inline, in order, and acknowledged in batches (one reply per turn of this
 * thread's event loop) carrying the view and evidence whenever they changed, so the main
 * thread can answer `view()` and `evidence()` synchronously and resolve writes only after the
 * state they produced has arrived.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { MirrorTerminal, type ScreenWorkerInit, type ScreenWorkerReply, type ScreenWorkerRequest } from './screen.js';

const port = parentPort;
if (port === null) throw new Error('screen-worker.ts runs only as a worker thread');

const init = workerData as ScreenWorkerInit;
/** Arrival times of the data requests being parsed, oldest first. */
const arrivals: number[] = [];
const mirror = new MirrorTerminal(init.cols, init.rows, init.scrollback, () => arrivals[0] ?? 0);
/** Reply at least this often while a flood is parsed, so the main thread can keep us fed
 * (a reply only per batch left this thread idle for a round trip after every batch). */
const REPLY_EVERY_BYTES = 256 * 1024;
let doneCount = 0;
let doneBytesSinceReply = 0;
let isReplyScheduled = false;
let sentRevision = -1;
let sentEvidenceVersion = -1;

function reply(): void {
  isReplyScheduled = false;
  // A reply sent early (REPLY_EVERY_BYTES) may leave a scheduled one with nothing to say.
  if (doneCount === 0) return;
  const view = mirror.view();
  const message: ScreenWorkerReply = {
    type: 'parsed',
    count: doneCount,
    view: view.revision === sentRevision ? undefined : view,
    evidence: mirror.evidenceVersion === sentEvidenceVersion ? undefined : mirror.evidence(),
  };
  sentRevision = view.revision;
  sentEvidenceVersion = mirror.evidenceVersion;
  doneCount = 0;
  doneBytesSinceReply = 0;
  port?.postMessage(message);
}

function markDone(bytes: number): void {
  doneCount += 1;
  doneBytesSinceReply += bytes;
  if (doneBytesSinceReply >= REPLY_EVERY_BYTES) {
    reply();
    return;
  }
  if (isReplyScheduled) return;
  isReplyScheduled = true;
  // After the messages already queued are parsed: one reply (and one view) per batch.
  setImmediate(reply);
}

port.on('message', (request: ScreenWorkerRequest) => {
  if (request.type === 'resize') {
    mirror.resize(request.cols, request.rows);
    markDone(0);
    return;
  }
  arrivals.push(request.atMs);
  mirror.write(request.data, true, () => {
    arrivals.shift();
    markDone(request.data.length);
  });
});
