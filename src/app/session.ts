/**
 * The detector session: one agent's evidence sources wired to the pure tick. The live launcher
 * and replay drive the very same object; only the clock and who calls `evaluate` differ
 * (docs/architecture.md §2: replay is the live path with the sources swapped).
 *
 * The session never touches passthrough: it is fed copies of bytes after they reached the
 * user's terminal, and every failure inside it is reported through `onWarning`.
 */
import { evaluatePack, packInputFromSnapshot } from '../core/packs/evaluate.js';
import { PROGRAM_STATUS_SETTLE_MS, QUIET_RECHECK_MS, STREAMING_RECHECK_MS } from '../core/policy.js';
import { tickFloorMs } from '../core/detector/tick-cadence.js';
import {
  initialDetectorState,
  markDetectorSeen,
  needsPackEvaluation,
  nextWakeMs,
  shouldEvaluate,
  tick,
  type DetectorState,
} from '../core/detector/tick.js';
import { TickLog, type TickLogEntry } from '../core/detector/tick-log.js';
import { classifyInput, type InputKind } from '../core/detector/operator-input.js';
import type { EvidenceSnapshot, ExitEvidence, InterruptAnswer, PackVerdict, ProcessEvidence, ProgramStatus, ReportEvidence } from '../core/types.js';
import { settledAtMs } from '../core/detector/program-status.js';
import type { Clock } from '../adapters/clock.js';
import type { Screen } from '../adapters/screen/index.js';
import type { LoadedPack } from './pack-registry.js';

/** Where the session gets its pack each tick: a fixed pack (replay) or the hot-reloading registry. */
export type PackSource = (nowMs: number) => LoadedPack | undefined;

/** Where the session gets its /proc sample each tick; replay has none (absent, never quiet). */
export type ProcessSource = (nowMs: number) => ProcessEvidence;

/** Where the session gets the reporter channel's evidence each tick (app/reporter `evidence`). */
export type ReportSource = (nowMs: number) => readonly ReportEvidence[];

export const NO_PROCESS_SAMPLE: ProcessSource = () => ({ sampled: false, reason: 'no live process (replay)' });

export interface SessionOptions {
  readonly clock: Clock;
  readonly screen: Screen;
  readonly packs: PackSource;
  readonly processes: ProcessSource;
  /** Agent hook / plugin reports (app/reporter); none by default: screens alone decide. */
  readonly reports?: ReportSource;
  /** Called after every tick that changed the published state or its evidence. */
  readonly onChange?: (state: DetectorState, entry: TickLogEntry) => void;
  readonly onWarning?: (message: string) => void;
  /** The agent was started on a prompt from its command line (core/detector/initial-prompt.ts). */
  readonly hasCommandLinePrompt?: boolean;
}

export class DetectorSession {
  readonly log = new TickLog();
  private detector: DetectorState;
  private readonly startedAtMs: number;
  private lastOutputAtMs: number | undefined;
  /**
   * Output hand-overs counted, and how many of them the last tick's screen held: output is due a
   * recheck while some hand-over is not evaluated yet. Not "read after the last tick": the native
   * relay stamps chunks with their read time, and a chunk read just before a tick but handed
   * over after it (live: Codex deny in a tmux pane, its "Conversation interrupted" frame) lost
   * its quiet recheck and waited for the 1 s floor (published 1.3 s after the frame).
   */
  private outputCount = 0;
  private evaluatedOutputCount = 0;
  private lastInputAtMs: number | undefined;
  private lastOperatorInputAtMs: number | undefined;
  private lastInterruptAtMs: number | undefined;
  /** The output that followed the last interrupt key, until something is typed (core/types InterruptAnswer). */
  private interruptAnswer: { readonly atMs: number; readonly lastOutputAtMs: number | undefined; readonly isOver: boolean } | undefined;
  private lastReportAtMs: number | undefined;
  /** A report arrived that no tick has evaluated yet (a tick at the same clock time included). */
  private isReportPending = false;
  /** The OSC 7501 report the last tick read, so a new one is due at once (nextDueMs). */
  private statusSeenByTick: ProgramStatus | undefined;
  private exit: ExitEvidence | undefined;
  private lastTickAtMs: number | undefined;
  /** The /proc sample the last evaluation read (the tick cadence backs off only on a quiet tree). */
  private lastProcess: ProcessEvidence | undefined;
  private pack: LoadedPack | undefined;
  private isWarnedTickFailure = false;
  /** The exit has been seen by a tick (so it is not due again). */
  private isExitEvaluated = false;

  constructor(private readonly options: SessionOptions) {
    this.startedAtMs = options.clock.nowMs();
    this.detector = initialDetectorState(this.startedAtMs, options.hasCommandLinePrompt ?? false);
  }

  get state(): DetectorState {
    return this.detector;
  }

  get currentPack(): LoadedPack | undefined {
    return this.pack;
  }

  /**
   * Output bytes were handed to the screen (the screen stamps OSC evidence itself), read at
   * `atMs` (default now; the native relay hands over chunks read a little earlier).
   */
  noteOutput(atMs?: number): void {
    const nowMs = this.options.clock.nowMs();
    const readAtMs = atMs === undefined ? nowMs : Math.min(atMs, nowMs);
    this.lastOutputAtMs = Math.max(this.lastOutputAtMs ?? readAtMs, readAtMs);
    this.outputCount += 1;
    this.noteInterruptAnswer(readAtMs);
  }

  /** A chunk read at `readAtMs` joins the interrupt key's answer, or ends it after a quiet gap. */
  private noteInterruptAnswer(readAtMs: number): void {
    const answer = this.interruptAnswer;
    if (answer === undefined || answer.isOver || readAtMs < answer.atMs) return;
    const isAfterQuiet = answer.lastOutputAtMs !== undefined && readAtMs - answer.lastOutputAtMs >= QUIET_RECHECK_MS;
    this.interruptAnswer = isAfterQuiet ? { ...answer, isOver: true } : { ...answer, lastOutputAtMs: Math.max(answer.lastOutputAtMs ?? readAtMs, readAtMs) };
  }

  /** How much output has been handed over so far; a tick that waits for the screen passes it to evaluate(). */
  outputMark(): number {
    return this.outputCount;
  }

  /**
   * Input reached the agent. Typing can start a turn and means the operator is looking, so a
   * `done` becomes seen; a focus-in or mouse report only means looking; a terminal's reply to the
   * agent's own query (a tmux answering at start-up) means neither. Without the bytes the input
   * counts as typed.
   */
  noteInput(bytes?: Uint8Array): void {
    this.noteInputKind(bytes === undefined ? { source: 'typed', isInterrupt: false } : classifyInput(bytes));
  }

  /** Input known only by its kind: a recording's input marker (one made without the keys). */
  noteInputKind(kind: InputKind): void {
    const { source, isInterrupt } = kind;
    if (source === 'terminal') return;
    const nowMs = this.options.clock.nowMs();
    this.lastInputAtMs = nowMs;
    // An interrupt key stops a turn and never starts one: live, Claude Code's screen flickered
    // back to working after Esc, and the Esc, counted as unanswered input, opened a new turn
    // whose end was published as done.
    if (isInterrupt) {
      this.lastInterruptAtMs = nowMs;
      this.interruptAnswer = { atMs: nowMs, lastOutputAtMs: undefined, isOver: false };
    } else if (source === 'typed') {
      this.lastOperatorInputAtMs = nowMs;
      this.interruptAnswer = undefined;
    }
    this.markSeen(nowMs);
  }

  /**
   * The operator typed at this moment, known only as a time (a recording made without its input
   * events, whose capture driver logged its keys): it can start a turn, and touches nothing
   * else (no `seen`, no rechecks), so replaying those recordings decides as before otherwise.
   */
  noteTypedAt(atMs: number): void {
    this.lastOperatorInputAtMs = Math.max(this.lastOperatorInputAtMs ?? atMs, atMs);
  }

  /** `agentwrap ack`: same as a keystroke, without one. Returns whether anything changed. */
  ack(): boolean {
    return this.markSeen(this.options.clock.nowMs());
  }

  /** A reporter event arrived: evaluate at the next opportunity instead of waiting for the tick floor. */
  noteReport(): void {
    this.lastReportAtMs = this.options.clock.nowMs();
    this.isReportPending = true;
  }

  noteExit(code: number, signal: number | undefined): void {
    this.exit = { code, signal, atMs: this.options.clock.nowMs() };
  }

  /** The evidence as of now, without evaluating anything (for capture and explain). */
  snapshot(): EvidenceSnapshot {
    const nowMs = this.options.clock.nowMs();
    const osc = this.options.screen.evidence();
    return {
      nowMs,
      startedAtMs: this.startedAtMs,
      screen: this.options.screen.view(),
      title: osc.title,
      progress: osc.progress,
      lastMark: osc.lastMark,
      lastNotificationAtMs: osc.lastNotificationAtMs,
      lastBellAtMs: osc.lastBellAtMs,
      programStatus: osc.programStatus,
      lastOutputAtMs: this.lastOutputAtMs,
      lastInputAtMs: this.lastInputAtMs,
      lastOperatorInputAtMs: this.lastOperatorInputAtMs,
      lastInterruptAtMs: this.lastInterruptAtMs,
      interruptAnswer: this.interruptAnswerAt(nowMs),
      process: this.exit === undefined ? this.options.processes(nowMs) : { sampled: false, reason: 'agent exited' },
      exit: this.exit,
      ...(this.options.reports === undefined ? {} : { reports: this.options.reports(nowMs) }),
    };
  }

  /**
   * When the next tick is due: the 1 Hz floor (5 s once the session settled, core/tick-cadence), a recheck QUIET_RECHECK_MS after output went
   * quiet (so a dialog drawn mid-second is published well under a second later), one every
   * STREAMING_RECHECK_MS while output keeps streaming (spinners never go quiet), and whatever
   * time-based rule (an idle hold, a title spinner going stale, the watchdog) comes due first.
   */
  nextDueMs(): number {
    const nowMs = this.options.clock.nowMs();
    if (this.lastTickAtMs === undefined) return nowMs;
    const due = [this.lastTickAtMs + this.floorMs(nowMs)];
    if (this.lastOutputAtMs !== undefined && this.outputCount > this.evaluatedOutputCount) {
      due.push(this.lastOutputAtMs + QUIET_RECHECK_MS, this.lastTickAtMs + STREAMING_RECHECK_MS);
    }
    if (this.lastInputAtMs !== undefined && this.lastInputAtMs >= this.lastTickAtMs) {
      due.push(this.lastInputAtMs + QUIET_RECHECK_MS);
    }
    // Pending, not "at or after the last tick": on replay's manual clock a tick at the report's
    // own time has seen it, and comparing times would make that tick due forever.
    if (this.isReportPending && this.lastReportAtMs !== undefined) due.push(this.lastReportAtMs);
    if (this.exit !== undefined && !this.isExitEvaluated) due.push(this.exit.atMs);
    // The agent's own report (OSC 7501) is read the moment it counts (settledAtMs), not at the
    // next recheck: "not seen by a tick", not "newer than the last tick", as live stamps a report
    // with its read time, which may precede a tick that ran before the chunk was handed over.
    // And once more when it has stood PROGRAM_STATUS_SETTLE_MS: what the agent draws right after
    // its report (Claude Code takes its permission dialog down just after reporting working) is
    // on screen then, instead of waiting for the quiet recheck.
    const status = this.options.screen.evidence().programStatus;
    if (status !== undefined) {
      if (status !== this.statusSeenByTick) due.push(settledAtMs(status));
      const settleMs = status.atMs + PROGRAM_STATUS_SETTLE_MS;
      if (settleMs > this.lastTickAtMs) due.push(settleMs);
    }
    const wake = nextWakeMs(this.detector, this.lastTickAtMs);
    if (wake !== undefined) due.push(wake);
    return Math.min(...due);
  }

  /**
   * One tick at the clock's now. Skips the pack and arbitration when nothing they read changed
   * and no time-based rule came due. Never throws: a failure is a warning and the tick is lost.
   * `outputMark`: the output hand-overs the screen held when the tick began waiting for it
   * (outputMark()); by default all of them (replay writes each chunk before it ticks).
   */
  evaluate(outputMark = this.outputCount): { readonly changed: boolean; readonly entry: TickLogEntry | undefined } {
    const nowMs = this.options.clock.nowMs();
    this.lastTickAtMs = nowMs;
    this.isReportPending = false;
    this.evaluatedOutputCount = Math.max(this.evaluatedOutputCount, Math.min(outputMark, this.outputCount));
    try {
      // First: a tick that fails later must not leave the report due at once forever.
      this.statusSeenByTick = this.options.screen.evidence().programStatus;
      const pack = this.options.packs(nowMs);
      const isPackSwapped = pack !== this.pack;
      this.pack = pack;
      const snapshot = this.snapshot();
      this.lastProcess = snapshot.process;
      if (this.exit !== undefined) this.isExitEvaluated = true;
      if (!isPackSwapped && !shouldEvaluate(this.detector, snapshot, nowMs)) return { changed: false, entry: undefined };
      let verdict: PackVerdict | undefined = this.detector.lastVerdict;
      if (pack === undefined) verdict = undefined;
      else if (isPackSwapped || needsPackEvaluation(this.detector, snapshot)) {
        verdict = evaluatePack(pack.compiled, packInputFromSnapshot(snapshot));
      }
      const result = tick(this.detector, snapshot, verdict, nowMs);
      this.detector = result.state;
      this.log.push(result.entry);
      if (result.changed) this.options.onChange?.(result.state, result.entry);
      return { changed: result.changed, entry: result.entry };
    } catch (error) {
      if (!this.isWarnedTickFailure) {
        this.isWarnedTickFailure = true;
        this.options.onWarning?.(`status detection failed (the agent is unaffected): ${describeError(error)}`);
      }
      return { changed: false, entry: undefined };
    }
  }

  private interruptAnswerAt(nowMs: number): InterruptAnswer | undefined {
    const answer = this.interruptAnswer;
    if (answer === undefined) return undefined;
    const isQuietNow = answer.lastOutputAtMs !== undefined && nowMs - answer.lastOutputAtMs >= QUIET_RECHECK_MS;
    return { interruptAtMs: answer.atMs, lastOutputAtMs: answer.lastOutputAtMs, isOver: answer.isOver || isQuietNow };
  }

  private floorMs(nowMs: number): number {
    const lastActivityAtMs = Math.max(this.startedAtMs, this.lastOutputAtMs ?? -Infinity, this.lastInputAtMs ?? -Infinity, this.lastReportAtMs ?? -Infinity, this.detector.session.stateSinceMs);
    return tickFloorMs({ state: this.detector.session.state, lastActivityAtMs, process: this.lastProcess, nowMs });
  }

  private markSeen(nowMs: number): boolean {
    const { state, changed } = markDetectorSeen(this.detector, nowMs);
    this.detector = state;
    const latest = this.log.latest();
    if (changed && latest !== undefined) {
      this.options.onChange?.(state, { ...latest, nowMs, state: state.session.state, revision: state.session.revision });
    }
    return changed;
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
