/**
 * Replay: a recording fed through the same DetectorSession as a live run, on a manual clock
 * driven by the recording's timestamps, as fast as the CPU allows. Ticks happen exactly when the
 * live loop would have run them (the 1 Hz floor, the quiet recheck, time-based deadlines), so
 * the published transitions are those a live run would have published on the same bytes.
 */
import { manualClock } from '../../adapters/clock.js';
import { createScreen, type Screen } from '../../adapters/screen/index.js';
import { decodeInputMarker, INPUT_MARKER_CODE } from '../../core/recordings/recorded-evidence.js';
import type { Recording, RecordingEvent } from '../../core/recordings/recording.js';
import { commandBasename, parseResize, recordingDuration } from '../../core/recordings/recording.js';
import type { PublishedTransition } from '../../core/recordings/score.js';
import type { TickLogEntry } from '../../core/detector/tick-log.js';
import type { AgentState } from '../../core/types.js';
import type { LoadedPack } from '../pack-registry.js';
import { createReplayEvidence, isEvidenceEvent } from './replay-evidence.js';
import { DetectorSession } from '../session.js';
import { REPLAY_MAX_CELL_TICKS } from '../../core/input-bounds.js';

/** How long after the last event replay keeps ticking, so holds and deadlines can resolve. */
export const REPLAY_TAIL_MS = 3000;

/** A moment of the replay, handed to an inspector: the session and screen as they are then. */
export interface ReplayMoment {
  readonly tS: number;
  readonly session: DetectorSession;
  readonly screen: Screen;
}

export interface ReplayOptions {
  readonly pack: LoadedPack | undefined;
  /** Moments (seconds) at which `inspect` is called, after everything up to that time ran. */
  readonly inspectAtS?: readonly number[];
  readonly inspect?: (moment: ReplayMoment) => void;
  /** Called after every tick that evaluated (for timelines and reports). */
  readonly onTick?: (entry: TickLogEntry, moment: ReplayMoment) => void;
  /**
   * Moments (seconds) the operator typed, for a recording made without its input events (the
   * capture lab's driver events, app/recordings.ts): they can start a turn (DetectorSession.noteTypedAt).
   */
  readonly keyInputAtS?: readonly number[];
  /** Output chunks, possibly re-split (tests use this to prove chunking does not matter). */
  readonly splitOutput?: (data: string) => readonly string[];
}

export interface ReplayResult {
  /** One per change of (state, stuck), the first being the state published at the first tick. */
  readonly transitions: readonly PublishedTransition[];
  /** One per change of the published `reason` (null when it went away), the cause a record names. */
  readonly reasons: readonly { readonly t: number; readonly reason: string | null }[];
  readonly durationS: number;
  readonly warnings: readonly string[];
}

export async function replayRecording(recording: Recording, options: ReplayOptions): Promise<ReplayResult> {
  const clock = manualClock(0, (recording.header.timestamp ?? 0) * 1000);
  const screen = createScreen({ cols: recording.header.cols, rows: recording.header.rows, clock, exact: true });
  const warnings: string[] = [];
  const transitions: PublishedTransition[] = [];
  const evidence = createReplayEvidence(recording, {
    clock,
    sessionAgent: options.pack?.agent ?? commandBasename(recording.header.command ?? '') ?? 'unknown',
    hasPack: () => options.pack !== undefined,
  });
  const session = new DetectorSession({
    clock,
    screen,
    packs: () => options.pack,
    processes: evidence.processes,
    ...(evidence.reports === undefined ? {} : { reports: evidence.reports }),
    onWarning: (message) => warnings.push(message),
  });
  const inspections = [...(options.inspectAtS ?? [])].sort((a, b) => a - b);
  const budget = new ScreenWorkBudget(recording.header.cols, recording.header.rows);
  const evaluate = (): TickLogEntry | undefined => (budget.spend(clock.nowMs()) ? session.evaluate().entry : undefined);

  const log = transitionLog(transitions);
  const reasons: { t: number; reason: string | null }[] = [];
  const recordTick = (entry: TickLogEntry | undefined): void => {
    if (entry === undefined) return;
    options.onTick?.(entry, { tS: entry.nowMs / 1000, session, screen });
    log.tick(entry);
    const reason = session.state.session.reason ?? null;
    if (reason !== (reasons.at(-1)?.reason ?? null)) reasons.push({ t: entry.nowMs / 1000, reason });
  };
  // Input marks `seen` outside a tick; the change shows as a transition at that moment.
  const recordSeen = (): void => log.seen(session.state.session, clock.nowMs() / 1000);

  /** Runs every tick due up to `untilMs`, and every inspection due before it. */
  const runUntil = (untilMs: number, isInclusive: boolean): void => {
    for (;;) {
      const dueMs = session.nextDueMs();
      const nextInspectMs = inspections.length > 0 ? (inspections[0] ?? Infinity) * 1000 : Infinity;
      const isDue = (t: number): boolean => (isInclusive ? t <= untilMs : t < untilMs);
      if (isDue(nextInspectMs) && nextInspectMs < dueMs) {
        clock.advanceTo(nextInspectMs);
        inspections.shift();
        options.inspect?.({ tS: nextInspectMs / 1000, session, screen });
        continue;
      }
      if (!isDue(dueMs) || budget.stoppedAtMs !== undefined) return;
      clock.advanceTo(dueMs);
      recordTick(evaluate());
    }
  };

  const keyInputs = [...(options.keyInputAtS ?? [])].sort((a, b) => a - b);
  const typeUntil = (untilS: number): void => {
    while (keyInputs.length > 0 && (keyInputs[0] as number) <= untilS) {
      const atMs = (keyInputs.shift() as number) * 1000;
      runUntil(atMs, true);
      clock.advanceTo(Math.max(atMs, clock.nowMs()));
      session.noteTypedAt(clock.nowMs());
    }
  };
  try {
    for (const event of recording.events) {
      if (budget.stoppedAtMs !== undefined) break;
      typeUntil(event.t);
      const atMs = event.t * 1000;
      if (isEvidenceEvent(event)) {
        // A sample was taken by a live tick: ticks before it see the previous one, and the
        // tick at its time (forced, as live ticked then) sees it. A report is evaluated at once.
        runUntil(atMs, false);
        clock.advanceTo(atMs);
        const next = evidence.apply(event);
        if (next === 'tick-now') recordTick(evaluate());
        if (next === 'report') session.noteReport();
        continue;
      }
      runUntil(atMs, true);
      clock.advanceTo(atMs);
      switch (event.kind) {
        case 'o':
          for (const piece of options.splitOutput?.(event.data) ?? [event.data]) await screen.write(piece);
          session.noteOutput();
          break;
        case 'i':
        case INPUT_MARKER_CODE:
          noteInputEvent(session, event);
          recordSeen();
          break;
        case 'r': {
          const size = parseResize(event.data);
          if (size !== undefined) await screen.resize(size.cols, size.rows);
          if (size !== undefined) budget.resize(size.cols, size.rows);
          break;
        }
        case 'x':
          session.noteExit(Number.parseInt(event.data, 10) || 0, undefined);
          break;
        case 'm':
          break;
      }
    }
    const { stoppedAtMs } = budget;
    const durationS = stoppedAtMs === undefined ? recordingDuration(recording) : stoppedAtMs / 1000;
    typeUntil(durationS);
    runUntil(durationS * 1000 + REPLAY_TAIL_MS, true);
    const stopped = `replay stopped at ${durationS.toFixed(1)} s of ${recordingDuration(recording).toFixed(1)} s: it read ${REPLAY_MAX_CELL_TICKS} screen cells, its limit`;
    if (stoppedAtMs !== undefined) warnings.push(stopped);
    // Ticks in the tail let holds resolve, but what they publish after the recording ended is
    // not part of it (nothing was there to see).
    while (transitions.length > 1 && (transitions[transitions.length - 1]?.t ?? 0) > durationS) transitions.pop();
    // Inspections asked for beyond the end see the final state.
    for (const tS of inspections) options.inspect?.({ tS, session, screen });
    return { transitions, reasons, durationS, warnings };
  } finally {
    screen.dispose();
  }
}

/** Input: its keys (`i`), or only its kind (a marker, recorded without --record-input): all the detector takes from it. */
function noteInputEvent(session: DetectorSession, event: RecordingEvent): void {
  if (event.kind === 'i') {
    session.noteInput(Buffer.from(event.data, 'utf8'));
    return;
  }
  const kind = decodeInputMarker(event.data);
  if (typeof kind !== 'string') session.noteInputKind(kind);
}

/**
 * Bounded work: a tick reads every cell of the screen, so a huge screen redrawn for hours cost
 * minutes of CPU. Each tick spends the screen's size; past REPLAY_MAX_CELL_TICKS replay stops.
 */
class ScreenWorkBudget {
  private cells: number;
  private spent = 0;
  stoppedAtMs: number | undefined;

  constructor(cols: number, rows: number) {
    this.cells = cols * rows;
  }

  resize(cols: number, rows: number): void {
    this.cells = cols * rows;
  }

  /** Whether a tick at `nowMs` may run; the first refusal marks where replay stopped. */
  spend(nowMs: number): boolean {
    this.spent += this.cells;
    if (this.spent <= REPLAY_MAX_CELL_TICKS) return true;
    this.stoppedAtMs ??= nowMs;
    return false;
  }
}

/** Appends a transition on every change of (state, stuck): from ticks, and from input between them. */
function transitionLog(transitions: PublishedTransition[]): {
  tick(entry: TickLogEntry): void;
  seen(session: { state: AgentState; stuck: boolean; winner: PublishedTransition['winner']; ruleId?: string | null | undefined }, tS: number): void;
} {
  let last: { state: AgentState; stuck: boolean } | undefined;
  return {
    tick(entry) {
      if (last !== undefined && last.state === entry.state && last.stuck === entry.stuck) return;
      last = { state: entry.state, stuck: entry.stuck };
      transitions.push({ t: entry.nowMs / 1000, state: entry.state, stuck: entry.stuck, winner: entry.decision.winner, rule_id: entry.decision.ruleId ?? null });
    },
    seen(session, tS) {
      if (last === undefined || last.state === session.state) return;
      last = { state: session.state, stuck: session.stuck };
      transitions.push({ t: tS, state: session.state, stuck: session.stuck, winner: session.winner, rule_id: session.ruleId ?? null });
    },
  };
}
