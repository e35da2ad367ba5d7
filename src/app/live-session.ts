/**
 * The live session: a launched agent's taps wired to the screen mirror, the detector session,
 * the session record, the control socket, the recorder and notifications.
 *
 * Passthrough never waits on any of this. Everything here hangs off taps that run after the
 * bytes reached the terminal or the agent, and every failure becomes a warning: the agent keeps
 * running with whatever parts still work (the soft-fail law, architecture.md §1).
 */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { systemClock, type Clock } from '../adapters/clock.js';
import { detectAgentVersion } from '../adapters/agent-version.js';
import { isPidAlive } from '../adapters/process-alive.js';
import { createProcessProbe, type ProcessProbe } from '../adapters/process-probe.js';
import { FLOOD_DRAIN_INTERVAL_MS } from '../adapters/relay.js';
import { createScreen, type ScreenMirror } from '../adapters/screen.js';
import { resolveStateRoot, StateDirError } from '../adapters/state-dir.js';
import { explainPack, packInputFromSnapshot } from '../core/evaluate.js';
import { versionStatus } from '../core/pack-schema.js';
import { TICK_MS } from '../core/policy.js';
import { createSessionRecord, recordKey, tmuxPaneFromEnv, type SessionRecord } from '../core/record.js';
import type { DetectorState } from '../core/tick.js';
import type { TickLogEntry } from '../core/tick-log.js';
import type { AgentState, ProcessEvidence } from '../core/types.js';
import { prepareControlSocketPath, startControlServer, type ControlServer, type StateChangeEvent } from './control-socket.js';
import type { LaunchedSession } from './launch.js';
import { livePackSource, loadDefaultRegistry, type LoadedPack } from './pack-registry.js';
import { createRecorder, type Recorder } from './recorder.js';
import { createScreenFeed } from './screen-feed.js';
import { createDesktopNotifier } from './desktop-notifier.js';
import { openSessionStore, sweepStaleRecords, type SessionStore } from './session-store.js';
import { DetectorSession, describeError } from './session.js';
import { Reporter } from './reporter.js';
import { formatCommand, pickRecordedEnv } from '../core/recording.js';

/**
 * A title change alone (no state change) is republished at most this often: spinner titles
 * change ten times a second, and a record write (temp file, fsync, rename) per frame would cost
 * more than everything else agentwrap does while an agent works.
 */
export const TITLE_REPUBLISH_MIN_MS = 2_000;

/** Minimum time between two notifications of the same state, so a flapping agent cannot spam. */
export const NOTIFY_MIN_INTERVAL_MS = 10_000;

/**
 * The /proc sample is reused by ticks closer together than this (streaming ticks come every
 * 250 ms); just under the 1 s tick floor, so a tick at the floor always gets a fresh one.
 */
export const PROCESS_SAMPLE_MIN_MS = 900;

/**
 * The session store's own refresh timer fires this long after a refresh is due: the tick (at
 * least every TICK_MS) does the refresh first, in a wake-up it makes anyway, so an idle session
 * does not wake a second time for it. A refresh is then at most ~1 s late, against a 15 s lease.
 */
export const STORE_TIMER_SLACK_MS = TICK_MS + 500;

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
  /** Every change of the published state, after it was published. */
  readonly onStateChange?: (event: StateChangeEvent, entry: TickLogEntry) => void;
}

export interface LiveSession {
  readonly key: string;
  readonly detector: DetectorSession;
  /** Resolves when everything is closed after the agent exited (final state published, record removed). */
  readonly closed: Promise<void>;
}

export { syntheticSessionId } from '../core/record.js';

export function attachLiveSession(options: LiveSessionOptions): LiveSession {
  const clock = options.clock ?? systemClock;
  const { launched, warn } = options;
  const startedWallMs = clock.wallMs();
  const commandName = basename(options.command);
  const registry = loadDefaultRegistry(options.env);
  const packSource = livePackSource(registry, options.packAgent === undefined ? { command: commandName } : { agent: options.packAgent }, (note) =>
    warn(`packs: ${note}`),
  );
  const firstPack = packSource(clock.nowMs());
  const sourceCli = firstPack?.agent ?? options.packAgent ?? commandName;
  const key = recordKey(sourceCli, options.sessionId);
  // The installed version, found without running the agent. Only when the command is the one
  // the pack is for: `--pack demo` on `node agent.js` must not report node's version as the demo's.
  const isPackCommand = firstPack === undefined || firstPack.compiled.pack.commands.includes(commandName);
  const agentVersion = isPackCommand ? detectAgentVersion(options.command, options.env) : undefined;
  const versionNote = describeVersion(firstPack, agentVersion?.version);
  if (versionNote !== undefined) warn(versionNote);

  const size = launched.size();
  const screen: ScreenMirror = createScreen({ cols: size.cols, rows: size.rows, clock });

  let probe: ProcessProbe | undefined;
  // Ticks come up to 4 times a second while output streams; the /proc walk (a file per thread
  // of every process in the agent's tree) is kept to about once a second, the tick floor. The
  // CPU rate it yields needs a window that long anyway (CPU_RATE_MIN_WINDOW_MS).
  let lastSample: { readonly atMs: number; readonly evidence: ProcessEvidence } | undefined;
  const processes = (nowMs: number): ProcessEvidence => {
    if (lastSample !== undefined && nowMs - lastSample.atMs < PROCESS_SAMPLE_MIN_MS) return lastSample.evidence;
    // The probe follows the first pid found for good, so the lookup (a /proc read through the
    // job-control helper) is only needed until then.
    if (probe === undefined) {
      const pid = launched.agentPid();
      if (pid === undefined) return { sampled: false, reason: 'agent pid not known yet' };
      probe = createProcessProbe(pid);
    }
    lastSample = { atMs: nowMs, evidence: probe.sample(nowMs) };
    return lastSample.evidence;
  };

  const subscribers = new Set<(event: StateChangeEvent) => void>();
  let lastPublishedState: AgentState | undefined;
  let store: SessionStore | undefined;
  let control: ControlServer | undefined;
  let controlPath = '';
  const lastNotifiedMs = new Map<AgentState, number>();
  const desktop = (options.desktopNotify ?? options.notify) ? createDesktopNotifier({ env: options.env, clock, minIntervalMs: NOTIFY_MIN_INTERVAL_MS, warn }) : undefined;

  // Agent hooks/plugins (`agentwrap report`) → gating; trust follows this session's agent.
  const reporter = new Reporter({ clock, sessionAgent: sourceCli, hasPack: () => (detector.currentPack ?? firstPack) !== undefined });

  const detector = new DetectorSession({
    clock,
    screen,
    packs: packSource,
    processes,
    reports: (nowMs) => reporter.evidence(nowMs),
    onWarning: warn,
    onChange: (state, entry) => onChange(state, entry),
  });

  // The title as last published: a new title alone (no state change) must still reach the
  // record, or status would show a stale one until the next transition.
  let publishedTitle: string | undefined;
  let titlePublishedAtMs = Number.NEGATIVE_INFINITY;
  const tmuxPane = tmuxPaneFromEnv(options.env);
  const screenFeed = createScreenFeed(() => screen.view());
  function currentRecord(state: DetectorState): SessionRecord {
    const s = state.session;
    const title = screen.evidence().title?.text;
    publishedTitle = title;
    const identity = reporter.identity();
    const metadata = reporter.metadata(clock.nowMs());
    return createSessionRecord({
      sourceCli,
      sessionId: options.sessionId,
      pid: launched.agentPid() ?? launched.pid,
      wrapperPid: process.pid,
      cwd: options.cwd,
      startedAtMs: startedWallMs,
      updatedAtMs: clock.wallMs(),
      state: s.state,
      stateSinceMs: startedWallMs + (s.stateSinceMs - detectorStartMs),
      seen: s.seen,
      stuck: s.stuck,
      winner: s.winner,
      ruleId: s.ruleId ?? null,
      ...(title === undefined ? {} : { title }),
      ...(agentVersion === undefined ? (identity.agentVersion === undefined ? {} : { agentVersion: identity.agentVersion }) : { agentVersion: agentVersion.version }),
      ...(identity.model === undefined ? {} : { model: identity.model, modelSource: 'report' as const }),
      ...(identity.agentSessionId === undefined ? {} : { agentSessionId: identity.agentSessionId }),
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
      control: controlPath,
      ...(tmuxPane === undefined ? {} : { tmux: tmuxPane }),
    });
  }
  const detectorStartMs = clock.nowMs();

  function onChange(state: DetectorState, entry: TickLogEntry): void {
    const to = state.session.state;
    void store?.publish(currentRecord(state));
    if (to !== lastPublishedState) {
      const event: StateChangeEvent = {
        t: clock.wallMs(),
        session: key,
        agent: sourceCli,
        from: lastPublishedState ?? null,
        to,
        winner: state.session.winner,
        rule_id: state.session.ruleId ?? null,
      };
      lastPublishedState = to;
      for (const emit of subscribers) emit(event);
      options.onStateChange?.(event, entry);
      if (to === 'blocked' || to === 'done') notify(to, entry);
    }
  }

  function notify(state: AgentState, entry: TickLogEntry): void {
    desktop?.notify({ agent: sourceCli, state, cwd: options.cwd, session: key });
    if (!options.notify && options.onStateCommand === undefined) return;
    const nowMs = clock.nowMs();
    const last = lastNotifiedMs.get(state);
    if (last !== undefined && nowMs - last < NOTIFY_MIN_INTERVAL_MS) return;
    lastNotifiedMs.set(state, nowMs);
    const message = state === 'blocked' ? `${sourceCli} needs you` : `${sourceCli} is done`;
    if (options.notify) {
      try {
        (options.writeTerminal ?? ((data: string) => process.stdout.write(data)))(terminalNotification(message, options.env));
      } catch (error) {
        warn(`notification failed: ${describeError(error)}`);
      }
    }
    if (options.onStateCommand !== undefined) {
      try {
        const child = spawn('/bin/sh', ['-c', options.onStateCommand], {
          stdio: 'ignore',
          detached: true,
          env: { ...options.env, AGENTWRAP_STATE: state, AGENTWRAP_SESSION: key, AGENTWRAP_AGENT: sourceCli, AGENTWRAP_RULE: entry.decision.ruleId ?? '' },
        });
        child.on('error', (error) => warn(`--on-state command failed: ${describeError(error)}`));
        child.unref();
      } catch (error) {
        warn(`--on-state command failed: ${describeError(error)}`);
      }
    }
  }

  // The tick loop: one timer, armed for the session's next due time. Output re-arms it (the
  // quiet recheck moves with each chunk); it never runs inside the output path itself.
  // (Re-arming per chunk costs a timer-list update, no wake-up; arming lazily and re-arming
  // when fired early was measured to add wake-ups under a 10 fps spinner, so it stays eager.)
  let timer: NodeJS.Timeout | undefined;
  let isTicking = false;
  let lastWrite: Promise<void> = Promise.resolve();
  let isExited = false;
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    const delayMs = Math.max(0, detector.nextDueMs() - clock.nowMs());
    timer = setTimeout(runTick, delayMs);
    timer.unref();
  };
  const runTick = (): void => {
    timer = undefined;
    if (isTicking) return;
    isTicking = true;
    // Read the screen only after the bytes so far are parsed (xterm parses on a later task).
    void lastWrite
      .then(() => {
        const { changed } = detector.evaluate();
        screenFeed.check();
        const nowMs = clock.nowMs();
        // The record's periodic refresh rides on this wake-up (the store's own timer waits
        // STORE_TIMER_SLACK_MS longer and only stands in if ticking stops).
        if (store !== undefined) void store.refreshIfDue();
        if (!changed && store !== undefined && screen.evidence().title?.text !== publishedTitle && nowMs - titlePublishedAtMs >= TITLE_REPUBLISH_MIN_MS) {
          titlePublishedAtMs = nowMs;
          void store.publish(currentRecord(detector.state));
        }
      })
      .finally(() => {
        isTicking = false;
        if (!isExited) arm();
      });
  };

  let recorder: Recorder | undefined;
  const recorderReady =
    options.record === undefined
      ? Promise.resolve()
      : createRecorder(options.record.path, {
          cols: size.cols,
          rows: size.rows,
          command: formatCommand([options.command, ...options.args]),
          env: pickRecordedEnv(options.env),
          recordInput: options.record.withInput,
          clock,
          startMs: detectorStartMs,
          onWarning: warn,
        }).then(
          (r) => {
            recorder = r;
          },
          (error: unknown) => warn(`not recording: ${describeError(error)}`),
        );
  // Until the recorder file is open, output is queued so the recording misses nothing.
  const early: Array<(r: Recorder) => void> = [];
  const toRecorder = (action: (r: Recorder) => void): void => {
    if (recorder !== undefined) action(recorder);
    else if (options.record !== undefined) early.push(action);
  };
  void recorderReady.then(() => {
    if (recorder !== undefined) for (const action of early.splice(0)) action(recorder);
  });

  const disposers = [
    launched.onOutput((chunk, isFlooding, atMs) => {
      // A flood is handed over a few times a second: the gaps between hand-overs are not quiet.
      // The relay's `atMs` is performance.now() time: it means something on the system clock
      // only (a test's manual clock takes chunks as arriving now).
      const readAtMs = clock === systemClock ? atMs : undefined;
      lastWrite = screen.write(chunk, {
        ...(isFlooding ? { moreWithinMs: FLOOD_DRAIN_INTERVAL_MS } : {}),
        ...(readAtMs === undefined ? {} : { atMs: readAtMs }),
      });
      detector.noteOutput(readAtMs);
      if (options.record !== undefined) toRecorder((r) => r.output(chunk));
      if (!isTicking) arm();
    }),
    launched.onInput((chunk) => {
      detector.noteInput();
      if (options.record !== undefined) toRecorder((r) => r.input(chunk));
      if (!isTicking) arm();
    }),
    launched.onResize((cols, rows) => {
      lastWrite = screen.resize(cols, rows);
      toRecorder((r) => r.resize(cols, rows));
    }),
  ];
  arm();

  const stateRoot = resolveStateRoot(options.env);
  const publishing = (async () => {
    if (options.isPublishing === false) return;
    let controlError: unknown;
    try {
      sweepStaleRecords(stateRoot, clock.wallMs(), isPidAlive);
    } catch (error) {
      // Sweeping is housekeeping for crashed peers; failing it must not stop publishing.
      void error;
    }
    try {
      controlPath = options.controlPath ?? prepareControlSocketPath({ root: stateRoot, key, env: options.env, uid: process.getuid?.() });
      control = await startControlServer(controlPath, {
        explain: () => explainPayload(),
        capture: () => ({
          key,
          agent: sourceCli,
          agent_version: agentVersion?.version ?? null,
          snapshot: detector.snapshot(),
          state: detector.state.session,
        }),
        ack: () => ({ changed: detector.ack() }),
        report: (params) => {
          const reply = reporter.handle(params);
          // Evaluate at once (a reported blocker must not wait for the 1 Hz floor), and republish
          // the record: identity and metadata may have changed.
          detector.noteReport();
          if (!isTicking && !isExited) arm();
          void store?.publish(currentRecord(detector.state));
          armMetadataExpiry();
          return reply;
        },
        subscribe: (emit) => {
          subscribers.add(emit);
          return () => subscribers.delete(emit);
        },
        info: () => ({ session: key, agent: sourceCli }),
        screen: (emit) => screenFeed.subscribe(emit),
      });
    } catch (error) {
      controlPath = '';
      controlError = error;
    }
    store = openSessionStore({ root: stateRoot, key, clock, onWarning: warn, timerSlackMs: STORE_TIMER_SLACK_MS });
    const isPublished = await store.publish(currentRecord(detector.state));
    // A state directory that refuses both is said once, by the store, which names it; a socket
    // that fails on its own (its directory taken by a file) is said here.
    if (controlError !== undefined && (isPublished || !(controlError instanceof StateDirError))) {
      warn(`no control socket (status explain/ack will not reach this session): ${describeError(controlError)}`);
    }
  })();

  // Metadata expires by TTL: republish the record when the next key runs out, so readers drop it.
  let metadataTimer: NodeJS.Timeout | undefined;
  function armMetadataExpiry(): void {
    if (metadataTimer !== undefined) clearTimeout(metadataTimer);
    metadataTimer = undefined;
    const atMs = reporter.nextMetadataExpiryMs();
    if (atMs === undefined || isExited) return;
    metadataTimer = setTimeout(() => {
      void store?.publish(currentRecord(detector.state));
      armMetadataExpiry();
    }, Math.max(0, atMs - clock.nowMs()) + 1);
    metadataTimer.unref();
  }

  function explainPayload(): unknown {
    const pack = detector.currentPack;
    const snapshot = detector.snapshot();
    const input = packInputFromSnapshot(snapshot);
    return {
      key,
      agent: sourceCli,
      started_at: startedWallMs,
      clock_start_ms: detectorStartMs,
      now_ms: clock.nowMs(),
      pack:
        pack === undefined
          ? null
          : {
              agent: pack.agent,
              source: pack.origin,
              path: pack.path,
              validated_versions: pack.compiled.pack.validatedVersions,
              unverified: pack.compiled.pack.unverified,
            },
      agent_version: agentVersion === undefined ? null : { version: agentVersion.version, source: agentVersion.source },
      version_note: versionNote ?? null,
      pack_notes: registry.notes(),
      state: detector.state.session,
      // Every rule against the screen as it is now (the tick log holds only the matches).
      screen: { rows: snapshot.screen.rows.length, title: input.title ?? null, progress: input.progress ?? null },
      rules: pack === undefined ? [] : explainPack(pack.compiled, input),
      ticks: detector.log.entries(),
      // How the bytes reached the terminal and how much of them the mirror saw: a flood is
      // skipped (and salvaged), never parsed in full, so a screen rule may have missed frames.
      mirror: {
        passthrough: launched.passthrough,
        passthrough_note: launched.passthroughNote ?? null,
        relay_skipped_bytes: launched.tapDroppedBytes(),
        ...screen.stats(),
      },
    };
  }

  const closed = (async () => {
    const exit = await launched.exited;
    isExited = true;
    for (const dispose of disposers) dispose();
    if (timer !== undefined) clearTimeout(timer);
    if (metadataTimer !== undefined) clearTimeout(metadataTimer);
    // The agent is gone: parse what is left now, not at the mirror's parse budget.
    await screen.flush();
    await lastWrite;
    // The final state is published at once (process exit outranks everything), then the
    // record goes away: a record must not outlive its agent.
    detector.noteExit(exit.code, exit.signal);
    detector.evaluate();
    await publishing;
    await control?.close();
    await store?.remove();
    await recorderReady;
    await recorder?.close();
    screen.dispose();
  })();

  return { key, detector, closed };
}

function describeVersion(pack: LoadedPack | undefined, version: string | undefined): string | undefined {
  if (pack === undefined || version === undefined) return undefined;
  const range = pack.compiled.pack.validatedVersions;
  const status = versionStatus(version, range);
  if (status === 'inside') return undefined;
  return `${pack.agent} ${version} is outside the pack's validated versions (${range}); detection may be less accurate`;
}

/**
 * A desktop notification through the user's own terminal: OSC 9 (iTerm2, WezTerm, kitty…) and
 * OSC 777 (urxvt, foot, VTE), wrapped for tmux passthrough when inside tmux.
 */
export function terminalNotification(message: string, env: NodeJS.ProcessEnv): string {
  const clean = message.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 200);
  const sequences = [`\x1b]9;${clean}\x07`, `\x1b]777;notify;agentwrap;${clean}\x07`];
  if (env['TMUX'] === undefined) return sequences.join('');
  return sequences.map((s) => `\x1bPtmux;${s.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`).join('');
}
