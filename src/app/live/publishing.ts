/**
 * Starting to publish: sweep records of crashed peers, open the control socket, open the
 * session store, write the first record. Each step that fails becomes one warning (or none,
 * when the store already named a refused state directory); the agent runs on regardless.
 */
import { isPidAlive } from '../../adapters/process/alive.js';
import { StateDirError } from '../../adapters/state-dir.js';
import type { Clock } from '../../adapters/clock.js';
import type { DetectorState } from '../../core/detector/tick.js';
import { prepareControlSocketPath, startControlServer, type ControlHandlers, type ControlServer } from '../control/socket.js';
import { openSessionStore, sweepStaleRecords } from '../sessions/store.js';
import { describeError } from '../session.js';
import type { EarlyControl } from '../control/early.js';
import type { Publisher } from './publisher.js';

export interface PublishingOptions {
  readonly stateRoot: string;
  readonly key: string;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** Prepared by the launcher before the agent started (so its environment names it), or undefined. */
  readonly controlPath: string | undefined;
  /** The control socket the launcher opened on `controlPath` at the spawn (app/control/early.ts), if it did. */
  readonly earlyControl?: EarlyControl | undefined;
  readonly handlers: ControlHandlers;
  readonly publisher: Publisher;
  /** The state to publish first (read when the store is open). */
  readonly state: () => DetectorState;
  readonly warn: (message: string) => void;
}

/** Resolves to the control server (undefined when it could not start) once the first record is written or refused. */
export async function startPublishing(options: PublishingOptions): Promise<ControlServer | undefined> {
  const { publisher, clock } = options;
  try {
    sweepStaleRecords(options.stateRoot, clock.wallMs(), isPidAlive);
  } catch (error) {
    // Sweeping is housekeeping for crashed peers; failing it must not stop publishing.
    void error;
  }
  let control: ControlServer | undefined;
  let controlError: unknown;
  try {
    publisher.controlPath = options.controlPath ?? prepareControlSocketPath({ root: options.stateRoot, key: options.key, env: options.env, uid: process.getuid?.() });
    control = options.earlyControl === undefined ? await startControlServer(publisher.controlPath, options.handlers) : await options.earlyControl.server;
  } catch (error) {
    publisher.controlPath = '';
    controlError = error;
  }
  // No timer of the store's own: the tick loop wakes when the refresh is due and does it
  // (tick-loop.ts afterTickDueMs). A second timer, re-armed at every refresh, cost a wake-up of
  // its own every refresh (Node re-checks a re-armed timer list when its first expiry passes).
  const store = openSessionStore({ root: options.stateRoot, key: options.key, clock, onWarning: options.warn, autoRefresh: false });
  publisher.store = store;
  const isPublished = await store.publish(publisher.record(options.state()));
  // Reports kept since the spawn now reach the session, whose record is written.
  options.earlyControl?.attach(options.handlers);
  // A state directory that refuses both is said once, by the store, which names it; a socket
  // that fails on its own (its directory taken by a file) is said here.
  if (controlError !== undefined && (isPublished || !(controlError instanceof StateDirError))) {
    options.warn(`no control socket (status explain/ack will not reach this session): ${describeError(controlError)}`);
  }
  return control;
}
