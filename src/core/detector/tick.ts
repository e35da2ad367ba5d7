/**
 * One detector tick, pure: arbitrate → debounce → watchdog → session reducer, plus the tick-log
 * entry that explains it. The live session loop and replay call exactly this; only they own
 * clocks and timers. A loop drives it like this:
 *
 *   if (shouldEvaluate(det, snapshot, now)) {
 *     const verdict = needsPackEvaluation(det, snapshot) ? evaluatePack(pack, snapshot) : det.lastVerdict;
 *     const result = tick(det, snapshot, verdict, now);
 *     det = result.state; log.push(result.entry); if (result.changed) publish(det.session);
 *   }
 *   arm a timer for min(nextWakeMs(det, now) ?? ∞, now + TICK_MS), and QUIET_RECHECK_MS after output.
 */
import { arbitrate, isSpinnerTitle, type Decision } from './arbitrate.js';
import {
  debounce,
  debounceDeadlinesMs,
  INITIAL_DEBOUNCE,
  INITIAL_WATCHDOG,
  watchdog,
  watchdogDeadlineMs,
  type DebounceState,
  type WatchdogState,
} from './debounce.js';
import { claimDeadlinesMs, reportsKey } from './gating.js';
import { isLastingDisagreement, statusDeadlinesMs, trackDisagreement, type Disagreement } from './program-status.js';
import { ATTENTION_EDGE_MAX_AGE_MS, CPU_BUSY_RATE, CPU_QUIET_RATE, PROGRAM_STATUS_DISAGREE_MS, TITLE_SPINNER_AUTHORITY_MS } from '../policy.js';
import { initialSessionState, markSeen, reduceSession, type SessionState } from './session-state.js';
import { digestSnapshot, type TickLogEntry } from './tick-log.js';
import type { EvidenceSnapshot, PackVerdict, ProcessEvidence } from '../types.js';

/** Everything the detector carries from one tick to the next for one session. Immutable. */
export interface DetectorState {
  readonly session: SessionState;
  readonly debounce: DebounceState;
  readonly watchdog: WatchdogState;
  readonly lastDecision: Decision | undefined;
  /** The verdict used by the last tick, and the pack-input key of the snapshot it was computed for. */
  readonly lastVerdict: PackVerdict | undefined;
  readonly lastPackKey: string | undefined;
  /** Everything arbitration reads, as a key; undefined before the first tick. */
  readonly lastInputKey: string | undefined;
  readonly lastEvaluatedAtMs: number | undefined;
  readonly lastInputAtMs: number | undefined;
  /** Time-based evidence deadlines seen at the last tick (title spinner authority, attention edge). */
  readonly evidenceDeadlinesMs: readonly number[];
  /** The agent's OSC 7501 report and the pack's rules reading different states, and since when. */
  readonly disagreement?: Disagreement | undefined;
}

/** `hasCommandLinePrompt`: the agent was started on a prompt (initial-prompt.ts), so its start-up work is a turn. */
export function initialDetectorState(nowMs: number, hasCommandLinePrompt = false): DetectorState {
  return {
    session: initialSessionState(nowMs, hasCommandLinePrompt),
    debounce: INITIAL_DEBOUNCE,
    watchdog: INITIAL_WATCHDOG,
    lastDecision: undefined,
    lastVerdict: undefined,
    lastPackKey: undefined,
    lastInputKey: undefined,
    lastEvaluatedAtMs: undefined,
    lastInputAtMs: undefined,
    evidenceDeadlinesMs: [],
  };
}

export interface TickResult {
  readonly state: DetectorState;
  readonly entry: TickLogEntry;
  /** The session state (and so the record) changed: publish it. */
  readonly changed: boolean;
}

/** What a pack reads from a snapshot: the viewport (by revision), the title and the progress. */
export function packInputKey(snapshot: EvidenceSnapshot): string {
  const p = snapshot.progress;
  return JSON.stringify([snapshot.screen.revision, snapshot.title?.text, p?.state, p?.value]);
}

function processKey(proc: ProcessEvidence): unknown {
  if (!proc.sampled) return ['unsampled'];
  // Arbitration and the watchdog only read CPU through these two thresholds, so a rate that
  // wobbles inside one band is not a change.
  const cpu =
    proc.cpuRate === undefined ? 'none' : proc.cpuRate >= CPU_BUSY_RATE ? 'busy' : proc.cpuRate >= CPU_QUIET_RATE ? 'active' : 'quiet';
  return [cpu, proc.agentState, proc.isStopped, proc.isZombie, proc.isForeground, proc.children?.map((c) => `${c.pid}${c.state}`).join(',') ?? 'children unknown'];
}

/** Everything arbitrate, debounce and the watchdog read from a snapshot (apart from time). */
export function evaluationInputKey(snapshot: EvidenceSnapshot): string {
  const p = snapshot.progress;
  const t = snapshot.title;
  const m = snapshot.lastMark;
  return JSON.stringify([
    packInputKey(snapshot),
    t?.changedAtMs,
    p?.atMs,
    m?.kind,
    m?.atMs,
    snapshot.lastBellAtMs,
    snapshot.lastNotificationAtMs,
    snapshot.lastOutputAtMs,
    snapshot.lastInputAtMs,
    snapshot.lastOperatorInputAtMs,
    snapshot.exit?.code,
    processKey(snapshot.process),
    reportsKey(snapshot.reports),
    snapshot.programStatus?.atMs,
  ]);
}

/** The pack verdict is stale: the viewport, title or progress changed since it was computed. */
export function needsPackEvaluation(state: DetectorState, snapshot: EvidenceSnapshot): boolean {
  return state.lastPackKey === undefined || state.lastPackKey !== packInputKey(snapshot);
}

/**
 * Whether a tick at `nowMs` can change anything. False only when every input arbitration reads
 * is the same as at the last tick AND no time-based rule (a hold, the title spinner's authority,
 * an attention edge, the watchdog) has come due since — so skipping is never a missed transition.
 */
export function shouldEvaluate(state: DetectorState, snapshot: EvidenceSnapshot, nowMs: number): boolean {
  if (state.lastInputKey === undefined || state.lastEvaluatedAtMs === undefined) return true;
  if (state.lastInputKey !== evaluationInputKey(snapshot)) return true;
  const wakeMs = nextWakeMs(state, state.lastEvaluatedAtMs);
  return wakeMs !== undefined && nowMs >= wakeMs;
}

/**
 * The next time a time-based rule needs a tick (strictly after `nowMs`), or undefined when only
 * new evidence can change anything. The loop still keeps its TICK_MS floor.
 */
export function nextWakeMs(state: DetectorState, nowMs: number): number | undefined {
  const candidates = [
    ...debounceDeadlinesMs(state.debounce, state.lastDecision),
    watchdogDeadlineMs(state.watchdog, state.session.raw, state.session.stuck),
    ...state.evidenceDeadlinesMs,
  ].filter((atMs): atMs is number => atMs !== undefined && atMs > nowMs);
  return candidates.length === 0 ? undefined : Math.min(...candidates);
}

function evidenceDeadlines(snapshot: EvidenceSnapshot): number[] {
  const deadlines: number[] = [];
  if (snapshot.title !== undefined && isSpinnerTitle(snapshot.title.text)) {
    deadlines.push(snapshot.title.changedAtMs + TITLE_SPINNER_AUTHORITY_MS);
  }
  const edgeAtMs = Math.max(snapshot.lastBellAtMs ?? -Infinity, snapshot.lastNotificationAtMs ?? -Infinity);
  if (Number.isFinite(edgeAtMs)) deadlines.push(edgeAtMs + ATTENTION_EDGE_MAX_AGE_MS);
  deadlines.push(...claimDeadlinesMs(snapshot.reports));
  deadlines.push(...statusDeadlinesMs(snapshot.programStatus, snapshot.lastOutputAtMs));
  return deadlines;
}

export function tick(
  state: DetectorState,
  snapshot: EvidenceSnapshot,
  verdict: PackVerdict | undefined,
  nowMs: number,
): TickResult {
  const previousSession = state.session;
  const decision = arbitrate(snapshot, verdict, previousSession.raw, nowMs);
  const held = debounce(previousSession.raw, decision, state.debounce, nowMs, {
    interrupt: snapshot.interruptAnswer,
    isBeforeInput: snapshot.lastOperatorInputAtMs === undefined && !previousSession.isPromptPending,
    isDialogUnanswered: previousSession.raw === 'blocked' && (snapshot.lastInputAtMs ?? -Infinity) < previousSession.stateSinceMs,
  });
  const dog = watchdog(state.watchdog, held.published, snapshot, nowMs);
  // The record names the evidence behind what is published: while debounce holds a different
  // decision (or a freeze holds the state), the evidence that established it stays.
  const isDecisionPublished = held.published === decision.raw && decision.winner !== 'freeze';
  let session = reduceSession(
    previousSession,
    {
      raw: held.published,
      stuck: dog.stuck,
      winner: isDecisionPublished ? decision.winner : previousSession.winner,
      ruleId: isDecisionPublished ? decision.ruleId : previousSession.ruleId,
      reason: isDecisionPublished ? decision.reason : previousSession.reason,
    },
    nowMs,
    snapshot.lastOperatorInputAtMs,
    snapshot.lastInterruptAtMs,
  );
  // A keystroke after the completion was published means the operator looked (replay gets
  // seen/done from recorded input this way; the live loop may also call markDetectorSeen at once).
  const inputAtMs = snapshot.lastInputAtMs;
  const isNewInput = inputAtMs !== undefined && (state.lastInputAtMs === undefined || inputAtMs > state.lastInputAtMs);
  if (isNewInput && session.state === 'done' && inputAtMs >= session.stateSinceMs) session = markSeen(session, nowMs);

  const disagreement = trackDisagreement(state.disagreement, snapshot.programStatus, decision.screenReading, verdict, nowMs);
  const next: DetectorState = {
    session,
    debounce: held.pending,
    watchdog: dog.state,
    lastDecision: decision,
    lastVerdict: verdict,
    lastPackKey: packInputKey(snapshot),
    lastInputKey: evaluationInputKey(snapshot),
    lastEvaluatedAtMs: nowMs,
    lastInputAtMs: inputAtMs ?? state.lastInputAtMs,
    evidenceDeadlinesMs: [
      ...evidenceDeadlines(snapshot),
      ...(disagreement === undefined ? [] : [disagreement.sinceMs + PROGRAM_STATUS_DISAGREE_MS]),
    ],
    disagreement,
  };
  const isLasting = isLastingDisagreement(disagreement, nowMs);
  const entry: TickLogEntry = {
    nowMs,
    digest: digestSnapshot(snapshot, nowMs, decision),
    matches: verdict?.matches ?? [],
    packAgent: verdict?.agent,
    decision,
    debounce: { action: held.action, reason: held.reason, detail: held.detail },
    watchdog: { reason: dog.reason, detail: dog.detail },
    published: held.published,
    state: session.state,
    stuck: session.stuck,
    revision: session.revision,
    flapsPerMinute: held.flapsPerMinute,
    isFlapping: held.isFlapping,
    ...(isLasting ? { disagreement } : {}),
  };
  // A disagreement that starts or stops lasting changes the record too (docs/signals.md).
  const isNews = isLasting !== isLastingDisagreement(state.disagreement, state.lastEvaluatedAtMs ?? nowMs);
  return { state: next, entry, changed: session.revision !== previousSession.revision || isNews };
}

/** A keystroke or `agentwrap ack`: mark the session seen now. */
export function markDetectorSeen(state: DetectorState, nowMs: number): { readonly state: DetectorState; readonly changed: boolean } {
  const session = markSeen(state.session, nowMs);
  return { state: session === state.session ? state : { ...state, session }, changed: session.revision !== state.session.revision };
}
