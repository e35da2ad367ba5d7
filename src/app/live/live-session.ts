/**
 * The live session: a launched agent's taps wired to the screen mirror, the detector session,
 * the session record, the control socket, the recorder and notifications. This file only
 * composes the parts, each a file in app/live/ (docs/architecture.md §4 lists them):
 *   process-source.ts   /proc evidence, sampled about once a second
 *   publisher.ts        the session record and the state-change announcements
 *   notifier.ts         --notify and --on-state on blocked and done
 *   webhook.ts          notify_url: every transition POSTed, queued off the hot path
 *   cause-notices.ts    a cause (usage limit, login…) said once per account, and when it lifts
 *   tick-loop.ts        the one timer that drives the detector
 *   recording-tap.ts    --record
 *   control-handlers.ts what the control socket answers
 *   remote-input.ts     answers and prompts typed in from elsewhere (agentwrap answer / send)
 *   metadata-expiry.ts  republish when reported metadata runs out
 *   publishing.ts       control socket + store + first record
 *   signals-out.ts      the state to the terminal (OSC 7501, 9;4) and the tmux pane's options
 *   shutdown.ts         the order things close in after the agent exited
 *
 * Passthrough never waits on any of this. Everything here hangs off taps that run after the
 * bytes reached the terminal or the agent, and every failure becomes a warning: the agent keeps
 * running with whatever parts still work (the soft-fail law, docs/architecture.md §1).
 */
import { hasCommandLinePrompt } from '../../core/detector/initial-prompt.js';
import { basename } from 'node:path';
import { systemClock, type Clock } from '../../adapters/clock.js';
import { detectAgentVersion } from '../../adapters/agent-version.js';
import { FLOOD_DRAIN_INTERVAL_MS } from '../../adapters/relay.js';
import { createScreen, type Screen } from '../../adapters/screen/index.js';
import { resolveStateRoot } from '../../adapters/state-dir.js';
import { versionAdvice, versionStatus, type VersionAdvice } from '../../core/packs/schema.js';
import { recordKey, tmuxPaneFromEnv } from '../../core/records/session-record.js';
import type { RecordedPack } from '../../core/recordings/recording.js';
import type { TickLogEntry } from '../../core/detector/tick-log.js';
import type { StateChangeEvent } from '../control/socket.js';
import type { EarlyControl } from '../control/early.js';
import type { LaunchedSession } from '../launch/launch.js';
import { controlHandlers } from './control-handlers.js';
import { createRemoteInput } from './remote-input.js';
import type { LiveDialog } from '../../core/dialog/digest.js';
import { MetadataExpiry } from './metadata-expiry.js';
import { createNotifier } from '../notify/notifier.js';
import { createProcessSource } from './process-source.js';
import { Publisher } from './publisher.js';
import { startPublishing } from './publishing.js';
import { NO_RECORDING, startRecordingTap } from './recording-tap.js';
import { closeLiveSession } from './shutdown.js';
import { startSignalsOut } from './signals-out.js';
import { TickLoop } from './tick-loop.js';
import { sessionNotices } from '../notify/cause-notices.js';
import { isFirstMention } from './release-notes.js';
import { livePackSource, loadDefaultRegistry, type LoadedPack } from '../pack-registry.js';
import { Reporter } from '../reporters/reporter.js';
import { createScreenFeed } from '../screen-feed.js';
import { DetectorSession } from '../session.js';

export { NOTIFY_MIN_INTERVAL_MS, terminalNotification } from '../notify/notifier.js';
export { PROCESS_SAMPLE_MIN_MS } from './process-source.js';
export { TITLE_REPUBLISH_MIN_MS } from './publisher.js';

export interface LiveSessionOptions {
  readonly launched: LaunchedSession;
  /** What the user typed: the agent's command name and its arguments. */
  readonly command: string;
  readonly args: readonly string[];
  /** `--pack AGENT`: the pack to use instead of the one the command name selects. */
  readonly packAgent: string | undefined;
  readonly sessionId: string;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly record: { readonly path: string; readonly withInput: boolean } | undefined;
  /** --notify: the terminal's notification (OSC 9/777) and, unless desktopNotify says otherwise, a desktop one. */
  readonly notify: boolean;
  /** Desktop notifications (notify-send) on blocked and done; default: as `notify`. For the config file. */
  readonly desktopNotify?: boolean;
  readonly onStateCommand: string | undefined;
  /** `notify_url`: the webhook every published transition is POSTed to (webhook.ts); none when undefined. */
  readonly notifyUrl?: URL | undefined;
  /** Where warnings go; the caller decides when they can be shown without hurting the agent's screen. */
  readonly warn: (message: string) => void;
  /** Writes to the user's terminal (notifications); default process.stdout. */
  readonly writeTerminal?: (data: string) => void;
  readonly clock?: Clock;
  /**
   * False when the state directory was refused before launch (already said once): then no
   * record and no control socket, and the detector still runs (for --notify and recording).
   */
  readonly isPublishing?: boolean;
  /**
   * The control socket path, when the launcher prepared it before the agent started (so the
   * agent's environment can name it: AGENTWRAP_CONTROL). Otherwise prepared here.
   */
  readonly controlPath?: string | undefined;
  /** The socket the launcher already listens on at `controlPath` (app/control/early.ts), if any. */
  readonly earlyControl?: EarlyControl | undefined;
  /** What `status explain` says when the agent runs without its reporter (hooks.ts HookPlan.absence). */
  readonly reporterAbsence?: string;
  /** Every change of the published state, after it was published. */
  readonly onStateChange?: (event: StateChangeEvent, entry: TickLogEntry) => void;
}

export interface LiveSession {
  readonly key: string;
  readonly detector: DetectorSession;
  /** Resolves when everything is closed after the agent exited (final state published, record removed). */
  readonly closed: Promise<void>;
}

export { syntheticSessionId } from '../../core/records/session-record.js';

/**
 * After a chunk went to the mirror: tick in this wake-up when the relay handed it over on the
 * detector's schedule; else plan the timer again, and once more when the chunk is parsed if it
 * held an OSC 7501 report (due at once, DetectorSession.nextDueMs), which a timer armed before
 * the parse could not know. A chunk parsed inline is already seen by the first plan.
 */
function planAfterOutput(loop: TickLoop, screen: Pick<Screen, 'evidence'>, written: Promise<void>, isOnSchedule: boolean): void {
  if (isOnSchedule) {
    loop.tickNow();
    return;
  }
  loop.poke();
  const statusBefore = screen.evidence().programStatus;
  void written.then(() => {
    if (screen.evidence().programStatus !== statusBefore) loop.poke();
  });
}

export function attachLiveSession(options: LiveSessionOptions): LiveSession {
  const clock = options.clock ?? systemClock;
  const { launched, warn } = options;
  const startedWallMs = clock.wallMs();
  const commandName = basename(options.command);

  const { registry, packSource, firstPack, sourceCli, agentVersion, versionNote } = openPacks(options, commandName, clock.nowMs());
  sayVersionNote(versionNote, options.env, sourceCli, agentVersion?.version, warn);
  const key = recordKey(sourceCli, options.sessionId);
  const size = launched.size();
  const screen = createScreen({ cols: size.cols, rows: size.rows, clock });
  // Agent hooks/plugins (`agentwrap report`) → gating; trust follows this session's agent.
  const reporter = new Reporter({ clock, sessionAgent: sourceCli, hasPack: () => (detector.currentPack ?? firstPack) !== undefined });

  const detectorStartMs = clock.nowMs();
  const detectorStartWallMs = clock.wallMs();
  const identity = { key, sourceCli, sessionId: options.sessionId, cwd: options.cwd, startedWallMs, detectorStartMs, detectorStartWallMs, agentVersion: agentVersion?.version, tmux: tmuxPaneFromEnv(options.env) };
  const notify = createNotifier({ notify: options.notify, desktopNotify: options.desktopNotify, cwd: options.cwd, onStateCommand: options.onStateCommand, env: options.env, key, sourceCli, clock, warn, ...(options.writeTerminal === undefined ? {} : { writeTerminal: options.writeTerminal }) });
  const notices = sessionNotices({ notifyUrl: options.notifyUrl, notify: options.notify, writeTerminal: options.writeTerminal ?? ((data) => process.stdout.write(data)), env: options.env, stateRoot: options.isPublishing === false ? undefined : resolveStateRoot(options.env), agent: sourceCli, warn });
  const dialog = (): LiveDialog | undefined => remoteInput.liveDialog();
  const publisher = new Publisher({ identity, clock, screen, reporter, pid: () => launched.agentPid() ?? launched.pid, onStateChange: options.onStateChange, notify, onTransition: notices?.onTransition, dialog });
  const processes = createProcessSource(() => launched.agentPid(), (evidence, atMs) => recording.processSample(evidence, atMs), undefined, launched.pid);
  const detector = new DetectorSession({
    clock,
    screen,
    // `claude "fix the tests"`: the start-up work answers that prompt, so it can end in done.
    hasCommandLinePrompt: hasCommandLinePrompt(sourceCli, options.args),
    packs: packSource,
    processes,
    reports: (nowMs) => reporter.evidence(nowMs),
    onWarning: warn,
    onChange: (state, entry) => publisher.onChange(state, entry),
  });
  let agentSendsProgress = false;
  const signalsOut = startSignalsOut({
    launched,
    subscribe: (emit) => publisher.subscribe(emit),
    sourceCli,
    env: options.env,
    tmux: identity.tmux,
    agentSendsProgress: () => (agentSendsProgress ||= screen.evidence().progress !== undefined),
    warn,
  });
  // The `screen` control stream (status --watch's preview) looks for a changed viewport after each evaluation.
  const screenFeed = createScreenFeed(() => screen.view());
  const loop = new TickLoop(
    detector,
    clock,
    (changed, nowMs) => {
      screenFeed.check();
      publisher.afterTick(changed, detector.state, nowMs, detector.nextDueMs() - nowMs);
    },
    () => clock.nowMs() + (publisher.store?.refreshDueMs() ?? Number.POSITIVE_INFINITY),
  );
  const recording =
    options.record === undefined
      ? NO_RECORDING
      : startRecordingTap({ ...options.record, cols: size.cols, rows: size.rows, command: [options.command, ...options.args], env: options.env, pack: recordedPack(firstPack, options.packAgent), clock, startMs: detectorStartMs, warn });

  // The native relay without a recording hands output over on the detector's schedule
  // (src/native/relay.c): each hand-over is when the detector wants to look.
  const isHandedOverOnSchedule = launched.passthrough === 'native' && options.record === undefined;
  const disposers = [
    launched.onOutput((chunk, isFlooding, atMs) => {
      // A flood is handed over a few times a second: the gaps between hand-overs are not quiet.
      // The relay's `atMs` is performance.now() time: it means something on the system clock
      // only (a test's manual clock takes chunks as arriving now).
      const readAtMs = clock === systemClock ? atMs : undefined;
      const written = screen.write(chunk, {
        ...(isFlooding ? { moreWithinMs: FLOOD_DRAIN_INTERVAL_MS } : {}),
        ...(readAtMs === undefined ? {} : { atMs: readAtMs }),
      });
      loop.noteWrite(written);
      detector.noteOutput(readAtMs);
      recording.output(chunk);
      planAfterOutput(loop, screen, written, isHandedOverOnSchedule && !isFlooding);
    }),
    launched.onInput((chunk) => {
      detector.noteInput(chunk);
      recording.input(chunk);
      loop.poke();
    }),
    launched.onResize((cols, rows) => {
      loop.noteWrite(screen.resize(cols, rows));
      recording.resize(cols, rows);
    }),
  ];
  loop.arm();

  const remoteInput = createRemoteInput({ detector, writeAgent: (data) => launched.writeAgent(data), wallMs: () => clock.wallMs(), onTyped: () => loop.poke(), uid: process.getuid?.() ?? null });
  const metadataExpiry = new MetadataExpiry(clock, () => reporter.nextMetadataExpiryMs(), () => publisher.publish(detector.state));
  const handlers = controlHandlers({
    ...{ screenFeed, remoteInput, identity, detector, screen, launched, registry, reporter, publisher, agentVersion, versionNote },
    reporterAbsence: options.reporterAbsence,
    processCoverage: processes.coverage,
    nowMs: () => clock.nowMs(),
    onReport: (params) => {
      // Recorded so replay feeds the same report back (core/recorded-evidence).
      recording.report(params);
      // Evaluate at once, and republish the record: identity and metadata may have changed.
      loop.poke();
      publisher.publish(detector.state);
      metadataExpiry.arm();
    },
  });
  const publishing =
    options.isPublishing === false
      ? Promise.resolve(undefined)
      : startPublishing({ stateRoot: resolveStateRoot(options.env), key, env: options.env, clock, controlPath: options.controlPath, earlyControl: options.earlyControl, handlers, publisher, state: () => detector.state, warn });

  const closed = closeLiveSession({ launched, disposers, loop, metadataExpiry, screen, detector, publishing, publisher, recording, signalsOut, webhook: notices });
  return { key, detector, closed };
}

/**
 * The pack side of the evidence: a hot-reloading registry of the packs that name this agent (or
 * command) — the session uses one of them — and the installed version, checked against the pack.
 */
function openPacks(options: LiveSessionOptions, commandName: string, nowMs: number) {
  const registry = loadDefaultRegistry(options.env, options.packAgent ?? commandName);
  const packSource = livePackSource(registry, options.packAgent === undefined ? { command: commandName } : { agent: options.packAgent }, (note) =>
    options.warn(`packs: ${note}`),
  );
  const firstPack = packSource(nowMs);
  const sourceCli = firstPack?.agent ?? options.packAgent ?? commandName;
  // The installed version, found without running the agent. Only when the command is the one
  // the pack is for: `--pack demo` on `node agent.js` must not report node's version as the demo's.
  const isPackCommand = firstPack === undefined || firstPack.compiled.pack.commands.includes(commandName);
  const agentVersion = isPackCommand ? detectAgentVersion(options.command, options.env) : undefined;
  return { registry, packSource, firstPack, sourceCli, agentVersion, versionNote: describeVersion(firstPack, agentVersion?.version) };
}

/** The pack a recording names: the one in use, else the agent asked for (`--pack`), else none. */
function recordedPack(pack: LoadedPack | undefined, packAgent: string | undefined): RecordedPack | undefined {
  if (pack !== undefined) return { agent: pack.agent, ...(pack.digest === undefined ? {} : { digest: pack.digest }) };
  return packAgent === undefined ? undefined : { agent: packAgent };
}

/** A warning every session; a note (a newer release) only the first time for that release. */
function sayVersionNote(advice: VersionAdvice | undefined, env: NodeJS.ProcessEnv, agent: string, version: string | undefined, warn: (message: string) => void): void {
  if (advice === undefined) return;
  if (advice.level === 'note' && !isFirstMention(env, agent, version ?? '')) return;
  warn(`${advice.text}; ${advice.todo}${advice.level === 'note' ? ' (said once for this release)' : ''}`);
}

function describeVersion(pack: LoadedPack | undefined, version: string | undefined): VersionAdvice | undefined {
  if (pack === undefined || version === undefined) return undefined;
  const range = pack.compiled.pack.validatedVersions;
  return versionAdvice(pack.agent, version, range, versionStatus(version, range));
}
