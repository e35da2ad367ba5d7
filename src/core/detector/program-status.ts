/**
 * The agent's own report of its state (OSC 7501 program status) as arbitration and explain read
 * it, pure. Where it ranks and why is ARBITRATION_ORDER's `program-status` step; when it stops
 * counting is here: a report contradicted by strong screen evidence after PROGRAM_STATUS_TRUST_MS,
 * or a `working` report under quiet output and a tree not known busy for
 * PROGRAM_STATUS_QUIET_STALE_MS. The screen rules disagreeing with a report for
 * PROGRAM_STATUS_DISAGREE_MS is tracked too: news that the pack may be stale.
 */
import {
  PROGRAM_STATUS_ACT_SETTLE_MS,
  PROGRAM_STATUS_DISAGREE_MS,
  PROGRAM_STATUS_QUIET_STALE_MS,
  PROGRAM_STATUS_SETTLE_MS,
  PROGRAM_STATUS_TRUST_MS,
} from '../policy.js';
import type { PackVerdict, ProgramStatus, RawState } from '../types.js';

/** The state a report claims: `done` and `error` end a turn, so they are idle (session-state derives done). */
export type ReportedStatusState = 'working' | 'blocked' | 'idle';

export function claimOfStatus(status: ProgramStatus): ReportedStatusState {
  return status.state === 'done' || status.state === 'error' ? 'idle' : status.state;
}

/** One line for explain: `codex working (kind permission, 40%) 1200 ms ago`. */
export function describeStatus(status: ProgramStatus, nowMs: number): string {
  const extras = [
    ...(status.kind === undefined ? [] : [`kind ${status.kind}`]),
    ...(status.progress === undefined ? [] : [`${status.progress}%`]),
    ...(status.id === undefined ? [] : [`id ${status.id}`]),
  ];
  const who = status.app ?? 'agent';
  return `${who} ${status.state}${extras.length === 0 ? '' : ` (${extras.join(', ')})`}, OSC 7501, ${nowMs - status.atMs} ms ago`;
}

/** What arbitration knows, besides the report, when it weighs the report. */
export interface StatusContext {
  readonly nowMs: number;
  readonly lastOutputAtMs: number | undefined;
  readonly isCpuBusy: boolean | undefined;
  /** What the strong screen evidence below the report (rules, title spinner, progress) reads, if anything. */
  readonly screenReading: RawState | undefined;
}

/** Whether the report decides this tick, and if not, why not (for explain). */
export type StatusWeight =
  | { readonly counts: true; readonly claim: ReportedStatusState }
  | { readonly counts: false; readonly claim: ReportedStatusState; readonly why: string; readonly isSettling?: true };

export function weighStatus(status: ProgramStatus, context: StatusContext): StatusWeight {
  const claim = claimOfStatus(status);
  const ageMs = context.nowMs - status.atMs;
  const settleMs = settleMsOf(claim);
  if (ageMs < settleMs) return { counts: false, claim, why: `settling (${settleMs} ms)`, isSettling: true };
  const quietMs = context.lastOutputAtMs === undefined ? Infinity : context.nowMs - context.lastOutputAtMs;
  if (claim === 'working' && quietMs >= PROGRAM_STATUS_QUIET_STALE_MS && context.isCpuBusy !== true) {
    const cpu = context.isCpuBusy === false ? 'CPU quiet' : 'CPU unknown';
    return { counts: false, claim, why: `output quiet ${Number.isFinite(quietMs) ? `${quietMs} ms` : 'since start'}, ${cpu}` };
  }
  const reading = context.screenReading;
  if (ageMs >= PROGRAM_STATUS_TRUST_MS && reading !== undefined && reading !== claim) {
    return { counts: false, claim, why: `older than ${PROGRAM_STATUS_TRUST_MS} ms and the screen reads ${reading}` };
  }
  return { counts: true, claim };
}

/**
 * How long a report must stand before it counts: an idle (done, error) PROGRAM_STATUS_SETTLE_MS,
 * as what the agent did not report may be drawn right after it (Codex's plan prompt); a working
 * or blocked only PROGRAM_STATUS_ACT_SETTLE_MS, since a drawn blocker outranks it anyway.
 */
export function settleMsOf(claim: ReportedStatusState): number {
  return claim === 'idle' ? PROGRAM_STATUS_SETTLE_MS : PROGRAM_STATUS_ACT_SETTLE_MS;
}

/** When a report starts to count. */
export function settledAtMs(status: ProgramStatus): number {
  return status.atMs + settleMsOf(claimOfStatus(status));
}

/** The times a report may stop counting without new evidence, for the tick loop's wake-ups. */
export function statusDeadlinesMs(status: ProgramStatus | undefined, lastOutputAtMs: number | undefined): number[] {
  if (status === undefined) return [];
  const deadlines = [settledAtMs(status), status.atMs + PROGRAM_STATUS_TRUST_MS];
  if (claimOfStatus(status) === 'working' && lastOutputAtMs !== undefined) deadlines.push(lastOutputAtMs + PROGRAM_STATUS_QUIET_STALE_MS);
  return deadlines;
}

/**
 * The agent's report and the screen (its pack's strong rules, a live title spinner, progress:
 * Decision.screenReading) reading different states, since `sinceMs`. Only two opinions
 * disagree: a screen that reads nothing is not contradicting anyone.
 */
export interface Disagreement {
  readonly reported: ReportedStatusState;
  readonly screen: ReportedStatusState;
  /** The rule that read `screen` (its first strong match in that state); none for a title or progress. */
  readonly ruleId: string | undefined;
  readonly app: string | undefined;
  readonly sinceMs: number;
}

/** The disagreement after this tick: kept (same pair), started, or over. */
export function trackDisagreement(
  previous: Disagreement | undefined,
  status: ProgramStatus | undefined,
  screen: RawState | undefined,
  verdict: PackVerdict | undefined,
  nowMs: number,
): Disagreement | undefined {
  if (status === undefined) return undefined;
  const reported = claimOfStatus(status);
  if (screen === undefined || screen === 'unknown' || screen === reported) return undefined;
  if (previous !== undefined && previous.reported === reported && previous.screen === screen) return previous;
  const ruleId = verdict?.matches.find((match) => match.strength === 'strong' && match.state === screen)?.ruleId;
  return { reported, screen, ruleId, app: status.app, sinceMs: nowMs };
}

/** A disagreement that outlasted every hold debounce applies: worth telling the operator. */
export function isLastingDisagreement(disagreement: Disagreement | undefined, nowMs: number): disagreement is Disagreement {
  return disagreement !== undefined && nowMs - disagreement.sinceMs >= PROGRAM_STATUS_DISAGREE_MS;
}
