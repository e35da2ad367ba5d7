/**
 * The order a live session closes in once the agent exited: stop the taps and timers, let the
 * mirror finish parsing, publish the final state (process exit outranks everything), then take
 * the record away (a record must not outlive its agent) and the signals out (the tmux pane's
 * options, the terminal's status), then the socket, the recording, the mirror; last, a short
 * wait for the webhook to send the final transitions.
 */
import type { ScreenMirror } from '../../adapters/screen/index.js';
import type { ControlServer } from '../control/socket.js';
import type { LaunchedSession } from '../launch/launch.js';
import type { DetectorSession } from '../session.js';
import type { MetadataExpiry } from './metadata-expiry.js';
import type { Publisher } from './publisher.js';
import type { RecordingTap } from './recording-tap.js';
import type { SignalsOut } from './signals-out.js';
import type { TickLoop } from './tick-loop.js';
import { WEBHOOK_EXIT_WAIT_MS, type Webhook } from '../notify/webhook.js';

export interface LiveSessionParts {
  readonly launched: Pick<LaunchedSession, 'exited'>;
  readonly disposers: readonly (() => void)[];
  readonly loop: TickLoop;
  readonly metadataExpiry: MetadataExpiry;
  readonly screen: ScreenMirror;
  readonly detector: DetectorSession;
  readonly publishing: Promise<ControlServer | undefined>;
  readonly publisher: Publisher;
  readonly recording: RecordingTap;
  readonly signalsOut: SignalsOut;
  readonly webhook?: Pick<Webhook, 'drain'> | undefined;
}

/** Resolves when everything is closed after the agent exited. */
export async function closeLiveSession(parts: LiveSessionParts): Promise<void> {
  const exit = await parts.launched.exited;
  parts.loop.stop();
  for (const dispose of parts.disposers) dispose();
  parts.metadataExpiry.stop();
  // The agent is gone: parse what is left now, not at the mirror's parse budget.
  await parts.screen.flush();
  await parts.loop.written();
  parts.detector.noteExit(exit.code, exit.signal);
  parts.detector.evaluate();
  const control = await parts.publishing;
  await control?.close();
  await parts.publisher.store?.remove();
  await parts.signalsOut.close();
  await parts.recording.close();
  parts.screen.dispose();
  // Bounded: a slow or down webhook delays the shell's prompt by at most this, once.
  await parts.webhook?.drain(WEBHOOK_EXIT_WAIT_MS);
}
