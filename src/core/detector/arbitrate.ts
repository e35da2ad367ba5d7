/**
 * Pure arbitration: one tick's evidence (snapshot + pack verdict) → one raw state with its
 * confidence, the winning evidence, the rule id and notes. It never smooths over time — that is
 * debounce.ts — and it never reads a clock: `nowMs` is an argument. The order of the steps is
 * ARBITRATION_ORDER below, the single place where it is written down.
 */
import { standingTurnStart, viewClaims, type ClaimView } from './gating.js';
import { claimOfStatus, describeStatus, settledAtMs, weighStatus } from './program-status.js';
import { CPU_BUSY_RATE, ATTENTION_EDGE_MAX_AGE_MS, PROGRAM_STATUS_IDLE_HOLD_MS, TITLE_SPINNER_AUTHORITY_MS } from '../policy.js';
import type { ArbitrationStep } from './arbitration-order.js';
import type {
  Confidence,
  EvidenceSnapshot,
  PackVerdict,
  ProcessEvidence,
  RawState,
  RuleMatch,
  RuleState,
} from '../types.js';

/** Which kind of evidence decided. Matches the `winner` field of the session record. */
export type EvidenceKind =
  | 'process-exit'
  | 'freeze'
  | 'screen-rule'
  | 'osc-title'
  | 'osc-progress'
  | 'shell-mark'
  | 'process'
  | 'reporter'
  | 'program-status'
  | 'none';

export { ARBITRATION_ORDER, type ArbitrationStep } from './arbitration-order.js';

export type NoteCode =
  | 'process-exited'
  | 'agent-zombie'
  | 'blocker-outranks-working'
  | 'freeze-held'
  | 'title-spinner-live'
  | 'title-spinner-stale'
  | 'title-idle-glyph'
  | 'progress-working'
  | 'progress-cleared'
  | 'progress-ambiguous'
  | 'progress-negative-value'
  | 'weak-match-ignored'
  | 'weak-match-corroborated'
  | 'attention-edge'
  | 'process-unsampled'
  | 'cpu-first-sample'
  | 'cpu-busy'
  | 'agent-stopped'
  | 'child-in-foreground'
  | 'nothing-matched'
  | 'report-claim'
  | 'report-outranked'
  | 'report-answered'
  | 'report-expired'
  | 'program-status'
  | 'program-status-stale'
  | 'program-status-settling'
  | 'program-status-outranked';

export interface Note {
  readonly code: NoteCode;
  readonly detail?: string;
}

/** The outcome of one arbitration. Explain renders it as is; nothing is re-derived later. */
export interface Decision {
  readonly raw: RawState;
  readonly confidence: Confidence;
  readonly winner: EvidenceKind;
  readonly step: ArbitrationStep;
  readonly ruleId: string | undefined;
  readonly notes: readonly Note[];
  /** Process exit: debounce publishes at once and nothing holds it back. */
  readonly isFinal: boolean;
  /** Tree CPU at or above CPU_BUSY_RATE; undefined when /proc gave no rate (absent ≠ quiet). */
  readonly isCpuBusy: boolean | undefined;
  /** The reporter source whose claim decided (winner `reporter`); absent otherwise. */
  readonly reportSource?: string;
  /** The winning rule's `reason` (e.g. "api-error"), when it declares one; else, for blocked, the agent's blocked report's kind (e.g. "permission"). */
  readonly reason?: string;
  /** The winning rule's own idle hold (`idle_hold_ms`), when a strong idle rule declares one. */
  readonly idleHoldMs?: number;
  /**
   * What the screen's strong evidence (pack rules, a live title spinner, progress) reads on its
   * own; set only while the agent has an OSC 7501 report standing, to weigh it against.
   */
  readonly screenReading?: RawState;
}

/** Glyphs that open a title while an agent works: braille (U+2800–U+28FF) and ◐◑◒◓ (U+25D0–U+25D3). */
export function isSpinnerTitle(text: string): boolean {
  const first = text.trimStart().codePointAt(0);
  if (first === undefined) return false;
  return (first >= 0x2800 && first <= 0x28ff) || (first >= 0x25d0 && first <= 0x25d3);
}

/**
 * Title prefixes that agents show while idle. `✳` is Claude Code's settled spinner. Weak only:
 * a title says nothing about a dialog on screen, and agent-specific titles belong in packs.
 */
const IDLE_TITLE_GLYPHS: readonly string[] = ['✳'];

export function isIdleTitle(text: string): boolean {
  const trimmed = text.trimStart();
  return IDLE_TITLE_GLYPHS.some((glyph) => trimmed.startsWith(glyph));
}

/** Which evidence kind a rule match counts as, by the region it read. */
export function evidenceKindOfMatch(match: RuleMatch): EvidenceKind {
  if (match.region === 'osc_title') return 'osc-title';
  if (match.region === 'osc_progress') return 'osc-progress';
  return 'screen-rule';
}

function firstMatch(verdict: PackVerdict | undefined, state: RuleState, strength: 'strong' | 'weak'): RuleMatch | undefined {
  return verdict?.matches.find((match) => match.state === state && match.strength === strength);
}

/**
 * The cause an agent's own report names: Claude Code reports a refused key as `state=blocked`
 * with `kind=auth`, and Claude Code and Codex end a turn on a fatal API error with
 * `state=error` (recordings/<agent>/habitat-tmux/fail-*).
 */
function reasonOfStatus(status: EvidenceSnapshot['programStatus']): string | undefined {
  if (status === undefined) return undefined;
  if (status.kind === 'auth') return 'auth';
  return status.state === 'error' ? 'api-error' : undefined;
}

/** CPU busy per the sample; undefined when absent (no /proc) or the first sample (no rate yet). */
function cpuBusy(proc: ProcessEvidence): boolean | undefined {
  if (!proc.sampled || proc.cpuRate === undefined) return undefined;
  return proc.cpuRate >= CPU_BUSY_RATE;
}

export function arbitrate(
  snapshot: EvidenceSnapshot,
  verdict: PackVerdict | undefined,
  previous: RawState,
  nowMs: number,
): Decision {
  const notes: Note[] = [];
  const proc = snapshot.process;
  const isCpuBusy = cpuBusy(proc);
  // Reporter claims: live ones compete below; the others are noted so explain says why not.
  const claims = viewClaims(snapshot.reports, nowMs, snapshot.lastInputAtMs);
  const liveClaims = claims.filter((claim) => claim.status === 'live');
  for (const claim of claims) {
    if (claim.status !== 'live') {
      notes.push({ code: claim.status === 'answered' ? 'report-answered' : 'report-expired', detail: describeClaim(claim) });
    }
  }
  const title = snapshot.title;
  const titleAgeMs = title === undefined ? undefined : nowMs - title.changedAtMs;
  const hasSpinnerTitle = title !== undefined && isSpinnerTitle(title.text);
  const isSpinnerLive = hasSpinnerTitle && titleAgeMs !== undefined && titleAgeMs < TITLE_SPINNER_AUTHORITY_MS;
  const progress = snapshot.progress;
  const isProgressWorking = progress !== undefined && (progress.state === 1 || progress.state === 3);
  const strongBlocker = firstMatch(verdict, 'blocked', 'strong');
  const strongWorking = firstMatch(verdict, 'working', 'strong');
  const strongIdle = firstMatch(verdict, 'idle', 'strong');
  // What the screen's own strong evidence reads, in the order of the steps below: weighed against
  // the agent's report (step 3) and compared with it for disagreements (program-status.ts).
  const screenReading: RawState | undefined =
    strongBlocker !== undefined ? 'blocked' : strongWorking !== undefined || isSpinnerLive ? 'working' : strongIdle !== undefined ? 'idle' : isProgressWorking ? 'working' : undefined;
  const finish = finisher(notes, liveClaims, isCpuBusy, verdict, snapshot.programStatus === undefined ? undefined : screenReading, reportedBlockedKind(snapshot), reasonOfStatus(snapshot.programStatus));

  // Physics notes first, so every decision says what /proc knew.
  notes.push(...processNotes(proc, isCpuBusy));

  // 1. process exit
  if (snapshot.exit !== undefined) {
    notes.push({ code: 'process-exited', detail: `code ${snapshot.exit.code}${snapshot.exit.signal === undefined ? '' : ` signal ${snapshot.exit.signal}`}` });
    return finish('process-exit', 'idle', 'strong', 'process-exit', undefined);
  }
  if (proc.sampled && proc.isZombie) {
    notes.push({ code: 'agent-zombie' });
    return finish('process-exit', 'idle', 'strong', 'process-exit', undefined);
  }

  if (progress?.value !== undefined && progress.value < 0) {
    notes.push({ code: 'progress-negative-value', detail: String(progress.value) });
  }

  // 2. a visible blocker, strong, from any region
  if (strongBlocker !== undefined) {
    const outranked = [
      ...(firstMatch(verdict, 'working', 'strong') === undefined ? [] : ['working rule']),
      ...(isSpinnerLive ? ['title spinner'] : []),
      ...(isProgressWorking ? ['progress'] : []),
      ...(isCpuBusy === true ? ['cpu'] : []),
    ];
    if (outranked.length > 0) notes.push({ code: 'blocker-outranks-working', detail: outranked.join(', ') });
    const status = snapshot.programStatus;
    if (status !== undefined && claimOfStatus(status) !== 'blocked') notes.push({ code: 'program-status-outranked', detail: describeStatus(status, nowMs) });
    return finish('strong-blocker', 'blocked', 'strong', evidenceKindOfMatch(strongBlocker), strongBlocker.ruleId);
  }

  // 3. a prompt submitted after the agent's last report (its hook beats the report by ~100 ms)
  const turnStart = turnStartOf(snapshot, liveClaims, strongIdle !== undefined, nowMs);
  if (turnStart !== undefined) return finish('turn-start', 'working', 'strong', 'reporter', turnStart.assertion.event, turnStart);

  // 4. the agent's own report (OSC 7501), unless stale
  if (snapshot.programStatus !== undefined) {
    const weight = weighStatus(snapshot.programStatus, { nowMs, lastOutputAtMs: snapshot.lastOutputAtMs, isCpuBusy, screenReading });
    const detail = describeStatus(snapshot.programStatus, nowMs);
    if (weight.counts) {
      notes.push({ code: 'program-status', detail });
      return { ...finish('program-status', weight.claim, 'strong', 'program-status', undefined), ...(weight.claim === 'idle' ? { idleHoldMs: PROGRAM_STATUS_IDLE_HOLD_MS } : {}) };
    }
    notes.push({ code: weight.isSettling === true ? 'program-status-settling' : 'program-status-stale', detail: `${detail}: ${weight.why}` });
  }

  // 5. an authoritative reporter's live claim (full-lifecycle source)
  const authoritative = liveClaims.find((claim) => claim.assertion.grade === 'authoritative');
  if (authoritative !== undefined) {
    return finish('reported-state', authoritative.assertion.state, 'strong', 'reporter', authoritative.assertion.event, authoritative);
  }

  // 6. freeze holds the previous (published) state
  if (verdict?.winner?.state === 'freeze') {
    notes.push({ code: 'freeze-held', detail: `holding ${previous}` });
    return finish('freeze', previous, 'strong', 'freeze', verdict.winner.ruleId);
  }

  // 7. strong working rule
  if (strongWorking !== undefined) {
    return finish('strong-working', 'working', 'strong', evidenceKindOfMatch(strongWorking), strongWorking.ruleId);
  }

  // 8. a live title spinner
  if (hasSpinnerTitle && titleAgeMs !== undefined) {
    if (isSpinnerLive) {
      notes.push({ code: 'title-spinner-live', detail: `changed ${titleAgeMs} ms ago` });
      return finish('title-spinner', 'working', 'strong', 'osc-title', undefined);
    }
    notes.push({ code: 'title-spinner-stale', detail: `unchanged for ${titleAgeMs} ms` });
  }

  // 9. a blocker-grade reporter's live blocked claim (unanswered, not expired)
  const reportedBlocker = liveClaims.find((claim) => claim.assertion.state === 'blocked');
  if (reportedBlocker !== undefined) {
    return finish('reported-blocked', 'blocked', 'strong', 'reporter', reportedBlocker.assertion.event, reportedBlocker);
  }

  // 10. strong idle rule
  if (strongIdle !== undefined) {
    return finish('strong-idle', 'idle', 'strong', evidenceKindOfMatch(strongIdle), strongIdle.ruleId);
  }

  // 11. OSC 133 shell marks
  const mark = snapshot.lastMark;
  if (mark !== undefined) {
    return finish('shell-mark', mark.kind === 'C' ? 'working' : 'idle', 'strong', 'shell-mark', undefined);
  }

  return arbitrateWeak({ snapshot, verdict, nowMs, notes, proc, isCpuBusy, title, progress, isProgressWorking, finish });
}

/** What /proc knew, as notes: unsampled, a first sample, a busy or stopped tree. */
function processNotes(proc: ProcessEvidence, isCpuBusy: boolean | undefined): Note[] {
  if (!proc.sampled) return [{ code: 'process-unsampled', detail: proc.reason }];
  const notes: Note[] = [];
  if (proc.cpuRate === undefined) notes.push({ code: 'cpu-first-sample' });
  else if (isCpuBusy === true) notes.push({ code: 'cpu-busy', detail: `${proc.cpuRate.toFixed(2)} cores` });
  if (proc.isStopped) notes.push({ code: 'agent-stopped', detail: `state ${proc.agentState}` });
  return notes;
}

/** The turn-start claim that stands this tick (gating.ts standingTurnStart), if any. */
function turnStartOf(snapshot: EvidenceSnapshot, liveClaims: readonly ClaimView[], isIdleDrawn: boolean, nowMs: number): ClaimView | undefined {
  const report = snapshot.programStatus;
  return standingTurnStart(liveClaims, {
    agentReport: report === undefined ? undefined : { atMs: report.atMs, countsAtMs: settledAtMs(report) },
    idleRedrawnAtMs: isIdleDrawn ? snapshot.lastOutputAtMs : undefined,
    lastInputAtMs: snapshot.lastInputAtMs,
    nowMs,
  });
}

/** A blocked report's kind (`permission`, `question`): why it is blocked, whichever step finds the block. */
function reportedBlockedKind(snapshot: EvidenceSnapshot): string | undefined {
  return snapshot.programStatus?.state === 'blocked' ? snapshot.programStatus.kind : undefined;
}

type Finish = (step: ArbitrationStep, raw: RawState, confidence: Confidence, winner: EvidenceKind, ruleId: string | undefined, claim?: ClaimView) => Decision;

/**
 * The one way arbitrate() returns: the decision with its step, and the notes of every live
 * reporter claim it outranked (or the claim it followed).
 */
function finisher(
  notes: Note[],
  liveClaims: readonly ClaimView[],
  isCpuBusy: boolean | undefined,
  verdict: PackVerdict | undefined,
  screenReading: RawState | undefined,
  reportedBlockedKind: string | undefined,
  statusReason: string | undefined,
): Finish {
  return (step, raw, confidence, winner, ruleId, claim) => {
    const match = ruleId === undefined ? undefined : verdict?.matches.find((candidate) => candidate.ruleId === ruleId);
    // The agent's own report says what it does, and seldom why: a strong rule for the same state
    // that names a cause (a retry's "429 · retrying in 2s", a drawn usage limit) says why, else
    // the report's own word for it (docs/errors.md); a blocked report's kind (permission) last.
    const reason =
      match?.reason ??
      (step === 'program-status' ? (verdict?.matches.find((m) => m.reason !== undefined && m.state === raw && m.strength === 'strong')?.reason ?? statusReason) : undefined) ??
      (raw === 'blocked' ? reportedBlockedKind : undefined);
    const idleHold = raw === 'idle' && confidence === 'strong' ? match?.idleHoldMs : undefined;
    const outranked = liveClaims.filter((live) => live !== claim);
    if (outranked.length > 0) notes.push({ code: 'report-outranked', detail: `${outranked.map(describeClaim).join('; ')} (by ${step})` });
    if (claim !== undefined) notes.push({ code: 'report-claim', detail: describeClaim(claim) });
    return {
      raw,
      confidence,
      winner,
      step,
      ruleId,
      notes,
      isFinal: step === 'process-exit',
      isCpuBusy,
      ...(claim === undefined ? {} : { reportSource: claim.source }),
      ...(reason === undefined ? {} : { reason }),
      ...(idleHold === undefined ? {} : { idleHoldMs: idleHold }),
      ...(screenReading === undefined ? {} : { screenReading }),
    };
  };
}

/** What the weak steps read, as arbitrate() computed it. */
interface WeakStepInput {
  readonly snapshot: EvidenceSnapshot;
  readonly verdict: PackVerdict | undefined;
  readonly nowMs: number;
  readonly notes: Note[];
  readonly proc: EvidenceSnapshot['process'];
  readonly isCpuBusy: boolean | undefined;
  readonly title: EvidenceSnapshot['title'];
  readonly progress: EvidenceSnapshot['progress'];
  readonly isProgressWorking: boolean;
  readonly finish: Finish;
}

/**
 * Steps 11–15 of ARBITRATION_ORDER, reached when no strong evidence decided: progress, a
 * corroborated weak blocker, physics, weak idle, nothing. Split from arbitrate() for length
 * only; the order is still the one list above.
 */
function arbitrateWeak(input: WeakStepInput): Decision {
  const { snapshot, verdict, nowMs, notes, proc, isCpuBusy, title, progress, isProgressWorking, finish } = input;
  // 12. OSC 9;4 in progress
  if (progress !== undefined) {
    if (isProgressWorking) {
      notes.push({ code: 'progress-working', detail: `state ${progress.state}` });
      return finish('progress-working', 'working', 'strong', 'osc-progress', undefined);
    }
    if (progress.state !== 0) notes.push({ code: 'progress-ambiguous', detail: `state ${progress.state}` });
  }

  // 13. weak blocker, corroborated by an unanswered attention edge
  const weakBlocker = firstMatch(verdict, 'blocked', 'weak');
  if (weakBlocker !== undefined) {
    const edgeAtMs = Math.max(snapshot.lastBellAtMs ?? -Infinity, snapshot.lastNotificationAtMs ?? -Infinity);
    const isUnanswered = snapshot.lastInputAtMs === undefined || edgeAtMs > snapshot.lastInputAtMs;
    if (Number.isFinite(edgeAtMs) && isUnanswered && nowMs - edgeAtMs <= ATTENTION_EDGE_MAX_AGE_MS) {
      notes.push({ code: 'attention-edge', detail: `${nowMs - edgeAtMs} ms ago, unanswered` });
      notes.push({ code: 'weak-match-corroborated', detail: weakBlocker.ruleId });
      return finish('weak-blocker-with-attention', 'blocked', 'weak', evidenceKindOfMatch(weakBlocker), weakBlocker.ruleId);
    }
    notes.push({ code: 'weak-match-ignored', detail: weakBlocker.ruleId });
  }

  // 14. physics: busy CPU, or a child holding the terminal's foreground
  const weakWorking = firstMatch(verdict, 'working', 'weak');
  const isChildForeground = proc.sampled && proc.isForeground === false && !proc.isStopped;
  if (isChildForeground) notes.push({ code: 'child-in-foreground' });
  if (isCpuBusy === true || isChildForeground) {
    if (weakWorking !== undefined) notes.push({ code: 'weak-match-corroborated', detail: weakWorking.ruleId });
    return finish('physics-working', 'working', 'weak', 'process', weakWorking?.ruleId);
  }
  if (weakWorking !== undefined) notes.push({ code: 'weak-match-ignored', detail: weakWorking.ruleId });

  // 15. weak idle
  if (progress?.state === 0) {
    notes.push({ code: 'progress-cleared' });
    return finish('weak-idle', 'idle', 'weak', 'osc-progress', undefined);
  }
  if (title !== undefined && isIdleTitle(title.text)) {
    notes.push({ code: 'title-idle-glyph' });
    return finish('weak-idle', 'idle', 'weak', 'osc-title', undefined);
  }
  const weakIdle = firstMatch(verdict, 'idle', 'weak');
  if (weakIdle !== undefined) {
    if (isCpuBusy === false) {
      notes.push({ code: 'weak-match-corroborated', detail: `${weakIdle.ruleId} (cpu quiet)` });
      return finish('weak-idle', 'idle', 'weak', evidenceKindOfMatch(weakIdle), weakIdle.ruleId);
    }
    notes.push({ code: 'weak-match-ignored', detail: weakIdle.ruleId });
  }

  // 16. nothing
  notes.push({ code: 'nothing-matched' });
  return finish('nothing', 'unknown', 'none', 'none', undefined);
}

function describeClaim(claim: ClaimView): string {
  return `${claim.source} ${claim.assertion.event} → ${claim.assertion.state} (${claim.assertion.grade}, ${claim.ageMs} ms ago)`;
}
