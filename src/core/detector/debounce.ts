/**
 * The only anti-flicker code in agentwrap: which arbitration decisions are published now, which
 * are held and for how long, the flap counter, and the watchdog's `stuck` overlay. Pure; every
 * function takes `nowMs`. The rules, in one place:
 *
 * - process exit publishes at once (it is final);
 * - a freeze decision holds the published state and leaves pending holds untouched;
 * - blocked publishes at once; so does strong working, and any working while leaving a blocked
 *   the operator answered (weak working at a dialog nobody answered waits as it does at idle),
 *   except working nobody asked for: in the agent's first answer to an interrupt key (Esc,
 *   Ctrl-C; nothing typed since, output not yet quiet QUIET_RECHECK_MS), as the frame the agent
 *   was drawing before it handled the key can still say working, and before the operator typed
 *   anything, as an agent may flash a spinner while it loads; there working must hold
 *   UNASKED_WORKING_CONFIRM_MS;
 * - weak working must persist WEAK_WORKING_CONFIRM_MS before it replaces idle or unknown;
 * - strong idle from a rule with a `reason` (a drawn, named end of turn) publishes at once;
 * - otherwise idle must persist IDLE_HOLD_STRONG_MS (strong; a rule's own `idle_hold_ms` instead, when
 *   it declares one) or IDLE_HOLD_WEAK_MS (weak, and with a quiet
 *   CPU) in one uninterrupted run; weak working and a busy CPU interrupt the run, and
 *   IDLE_HOLD_CAP_MS after the first idle candidate idle publishes anyway, so oscillating weak
 *   evidence cannot pin working; strong working or blocked ends the episode;
 * - unknown publishes only after UNKNOWN_HOLD_MS of nothing; an unknown tick inside an idle run
 *   is neutral (absence of evidence is not contrary evidence).
 */
import type { Decision } from './arbitrate.js';
import {
  CPU_QUIET_RATE,
  FLAP_ALERT_COUNT,
  FLAP_WINDOW_MS,
  IDLE_HOLD_CAP_MS,
  IDLE_HOLD_STRONG_MS,
  IDLE_HOLD_WEAK_MS,
  STOPPED_STUCK_MS,
  UNASKED_WORKING_CONFIRM_MS,
  UNKNOWN_HOLD_MS,
  WATCHDOG_QUIET_MS,
  WEAK_WORKING_CONFIRM_MS,
} from '../policy.js';
import type { Confidence, EvidenceSnapshot, InterruptAnswer, RawState } from '../types.js';

/** What debounce remembers between evaluations. All times are session-clock milliseconds. */
export interface DebounceState {
  /** First idle candidate of the current episode of leaving work; bounds the hold (the cap). */
  readonly idleFirstMs: number | undefined;
  /** Start of the current uninterrupted idle run; the hold is measured from here. */
  readonly idleRunMs: number | undefined;
  /** Since when weak working has been the candidate while idle or unknown is published. */
  readonly weakWorkingSinceMs: number | undefined;
  /** Since when arbitration has found nothing while something else is published. */
  readonly unknownSinceMs: number | undefined;
  /** Since when working nobody asked for has been decided (WorkingContext). */
  readonly unaskedWorkingSinceMs?: number | undefined;
  /** Times of published transitions within FLAP_WINDOW_MS, oldest first. */
  readonly transitionsMs: readonly number[];
}

export const INITIAL_DEBOUNCE: DebounceState = {
  idleFirstMs: undefined,
  idleRunMs: undefined,
  weakWorkingSinceMs: undefined,
  unknownSinceMs: undefined,
  transitionsMs: [],
};

/** publish: the published state changed now. steady: the decision already equals it. hold: a different decision is held back. */
export type DebounceAction = 'publish' | 'steady' | 'hold';

export type DebounceReason =
  | 'final'
  | 'freeze'
  | 'same-as-published'
  | 'blocked-at-once'
  | 'working-at-once'
  | 'working-after-interrupt'
  | 'working-before-input'
  | 'weak-working-confirming'
  | 'weak-working-confirmed'
  | 'idle-named-end'
  | 'idle-holding'
  | 'idle-cpu-veto'
  | 'idle-hold-elapsed'
  | 'idle-hold-cap'
  | 'unknown-grace'
  | 'unknown-grace-elapsed';

export interface DebounceResult {
  readonly published: RawState;
  readonly pending: DebounceState;
  readonly action: DebounceAction;
  readonly reason: DebounceReason;
  /** Human detail for explain, e.g. "120 of 300 ms". */
  readonly detail: string;
  /** Published transitions within the last FLAP_WINDOW_MS, this one included. */
  readonly flapsPerMinute: number;
  readonly isFlapping: boolean;
}

/**
 * Whether `durationMs` has passed since `sinceMs`, in the form the deadlines are computed
 * (`since + duration`). `now - since >= duration` is not the same in floating point: with
 * since = 8129.317 and now = since + 300, the difference is 299.9999999999991, so a tick run
 * exactly at the deadline would hold forever (found in replay: Codex deny-80x24).
 */
function hasElapsed(sinceMs: number, durationMs: number, nowMs: number): boolean {
  return nowMs >= sinceMs + durationMs;
}

/** The idle hold of a decision: the winning rule's own `idle_hold_ms`, else the confidence's. */
export function idleHoldMs(confidence: Confidence, ruleHoldMs?: number): number {
  if (ruleHoldMs !== undefined) return ruleHoldMs;
  return confidence === 'strong' ? IDLE_HOLD_STRONG_MS : IDLE_HOLD_WEAK_MS;
}

function pruneTransitions(transitionsMs: readonly number[], nowMs: number): readonly number[] {
  return transitionsMs.filter((atMs) => nowMs - atMs < FLAP_WINDOW_MS);
}

/** What the tick knows about who asked for the work now on screen (core/detector/tick.ts). */
export interface WorkingContext {
  /** The agent's answer to the operator's last interrupt key, if one was pressed. */
  readonly interrupt?: InterruptAnswer | undefined;
  /** Nothing typed yet and no prompt on the command line: the agent is starting up. */
  readonly isBeforeInput?: boolean;
  /**
   * Blocked is published and no input came since: whatever leaves it, the operator did not
   * answer, so weak working (CPU alone) waits as it does at idle. Live under load, Gemini's
   * first-run auth box mid-redraw matched no rule for one tick while its CPU ran, and blocked →
   * working → blocked flickered for 0.1 s at a dialog nobody had answered.
   */
  readonly isDialogUnanswered?: boolean;
}

/**
 * Why working decided now may be a frame nobody asked for, or undefined when it is not: the
 * agent's first answer to an interrupt key, still being drawn (the frame may be the one it was
 * drawing before it handled the key; working in later output, after the answer went quiet, as
 * when Grok answers a denial with a new request, is not), or start-up before any input.
 */
function unaskedWorking(context: WorkingContext): 'working-after-interrupt' | 'working-before-input' | undefined {
  const answer = context.interrupt;
  if (answer !== undefined && !answer.isOver && answer.lastOutputAtMs !== undefined) return 'working-after-interrupt';
  return context.isBeforeInput === true ? 'working-before-input' : undefined;
}

/**
 * The hold on working nobody asked for, or undefined when it may be published now: published
 * once it held UNASKED_WORKING_CONFIRM_MS. Pi's loader after a denial is real work and keeps
 * being drawn; Codex's stale frame after Esc was gone 11 ms later, its start-up spinner 3-101 ms later.
 */
function unaskedHold(context: WorkingContext, pending: DebounceState, nowMs: number): { reason: DebounceReason; sinceMs: number } | undefined {
  const reason = unaskedWorking(context);
  if (reason === undefined) return undefined;
  const sinceMs = pending.unaskedWorkingSinceMs ?? nowMs;
  return hasElapsed(sinceMs, UNASKED_WORKING_CONFIRM_MS, nowMs) ? undefined : { reason, sinceMs };
}

export function debounce(
  previousPublished: RawState,
  decision: Decision,
  pending: DebounceState,
  nowMs: number,
  context: WorkingContext = {},
): DebounceResult {
  const recent = pruneTransitions(pending.transitionsMs, nowMs);
  const result = (
    published: RawState,
    next: Omit<DebounceState, 'transitionsMs'>,
    action: DebounceAction,
    reason: DebounceReason,
    detail = '',
  ): DebounceResult => {
    const changed = published !== previousPublished;
    const transitionsMs = changed ? [...recent, nowMs] : recent;
    return {
      published,
      pending: { ...next, transitionsMs },
      action: changed ? 'publish' : action,
      reason,
      detail,
      flapsPerMinute: transitionsMs.length,
      isFlapping: transitionsMs.length >= FLAP_ALERT_COUNT,
    };
  };
  const cleared = { idleFirstMs: undefined, idleRunMs: undefined, weakWorkingSinceMs: undefined, unknownSinceMs: undefined };

  if (decision.isFinal) return result(decision.raw, cleared, 'publish', 'final');
  if (decision.winner === 'freeze') return result(previousPublished, pending, 'hold', 'freeze');

  switch (decision.raw) {
    case 'blocked':
      return result('blocked', cleared, 'steady', previousPublished === 'blocked' ? 'same-as-published' : 'blocked-at-once');

    case 'working': {
      if (previousPublished === 'working') {
        // A weak working tick inside an idle run interrupts the run but keeps the episode, so the
        // cap still bounds it; strong working is fresh positive evidence and ends the episode.
        const next =
          decision.confidence === 'strong'
            ? cleared
            : { ...pending, idleRunMs: undefined, weakWorkingSinceMs: undefined, unknownSinceMs: undefined, unaskedWorkingSinceMs: undefined };
        return result('working', next, 'steady', 'same-as-published');
      }
      const isAnsweredDialog = previousPublished === 'blocked' && context.isDialogUnanswered !== true;
      if (decision.confidence === 'strong' || isAnsweredDialog) {
        const hold = unaskedHold(context, pending, nowMs);
        if (hold !== undefined) {
          // Neutral for a pending idle run, as unknown is: a flash gone by the deadline must not
          // restart the hold (live, Codex's start-up flash seen by one tick put idle 0.25 s late).
          const next = { ...pending, weakWorkingSinceMs: undefined, unknownSinceMs: undefined, unaskedWorkingSinceMs: hold.sinceMs };
          return result(previousPublished, next, 'hold', hold.reason, `${nowMs - hold.sinceMs} of ${UNASKED_WORKING_CONFIRM_MS} ms`);
        }
        return result('working', cleared, 'publish', 'working-at-once');
      }
      const sinceMs = pending.weakWorkingSinceMs ?? nowMs;
      const heldMs = nowMs - sinceMs;
      if (hasElapsed(sinceMs, WEAK_WORKING_CONFIRM_MS, nowMs)) {
        return result('working', cleared, 'publish', 'weak-working-confirmed', `${heldMs} ms`);
      }
      return result(
        previousPublished,
        { ...pending, idleRunMs: undefined, weakWorkingSinceMs: sinceMs, unknownSinceMs: undefined, unaskedWorkingSinceMs: undefined },
        'hold',
        'weak-working-confirming',
        `${heldMs} of ${WEAK_WORKING_CONFIRM_MS} ms`,
      );
    }

    case 'idle': {
      if (previousPublished === 'idle') return result('idle', cleared, 'steady', 'same-as-published');
      // A strong rule that names why the turn ended (its `reason`, such as Claude Code's drawn
      // "API Error: 403" answer) shows an end of turn, not a gap between tool calls, so there is
      // nothing to wait out (error-fatal-120x40: the hold and a tick put done 0.4 s after the draw).
      if (decision.confidence === 'strong' && decision.reason !== undefined) {
        return result('idle', cleared, 'publish', 'idle-named-end', decision.reason);
      }
      const firstMs = pending.idleFirstMs ?? nowMs;
      const episodeMs = nowMs - firstMs;
      const isCapped = hasElapsed(firstMs, IDLE_HOLD_CAP_MS, nowMs);
      if (decision.confidence !== 'strong' && decision.isCpuBusy === true) {
        if (isCapped) return result('idle', cleared, 'publish', 'idle-hold-cap', `${episodeMs} ms since first idle`);
        return result(
          previousPublished,
          { idleFirstMs: firstMs, idleRunMs: undefined, weakWorkingSinceMs: undefined, unknownSinceMs: undefined },
          'hold',
          'idle-cpu-veto',
          `${episodeMs} of ${IDLE_HOLD_CAP_MS} ms cap`,
        );
      }
      const runMs = pending.idleRunMs ?? nowMs;
      const heldMs = nowMs - runMs;
      const holdMs = idleHoldMs(decision.confidence, decision.idleHoldMs);
      if (hasElapsed(runMs, holdMs, nowMs)) {
        return result('idle', cleared, 'publish', 'idle-hold-elapsed', `${heldMs} of ${holdMs} ms (${decision.confidence})`);
      }
      if (isCapped) return result('idle', cleared, 'publish', 'idle-hold-cap', `${episodeMs} ms since first idle`);
      return result(
        previousPublished,
        { idleFirstMs: firstMs, idleRunMs: runMs, weakWorkingSinceMs: undefined, unknownSinceMs: undefined },
        'hold',
        'idle-holding',
        `${heldMs} of ${holdMs} ms (${decision.confidence})`,
      );
    }

    case 'unknown': {
      if (previousPublished === 'unknown') return result('unknown', cleared, 'steady', 'same-as-published');
      const sinceMs = pending.unknownSinceMs ?? nowMs;
      const heldMs = nowMs - sinceMs;
      if (hasElapsed(sinceMs, UNKNOWN_HOLD_MS, nowMs)) {
        return result('unknown', cleared, 'publish', 'unknown-grace-elapsed', `${heldMs} ms of nothing`);
      }
      // Neutral for a pending idle run: keep it, so one empty evaluation does not restart the hold.
      return result(
        previousPublished,
        { ...pending, weakWorkingSinceMs: undefined, unknownSinceMs: sinceMs, unaskedWorkingSinceMs: undefined },
        'hold',
        'unknown-grace',
        `${heldMs} of ${UNKNOWN_HOLD_MS} ms`,
      );
    }
  }
}

/**
 * Every time at which the pending state needs an evaluation to make progress (a hold or grace
 * expiring), given the last decision's confidence; empty when nothing is pending. All of them,
 * not just the earliest: a caller that drops deadlines already past must still see the later ones.
 */
export function debounceDeadlinesMs(pending: DebounceState, lastDecision: Decision | undefined): readonly number[] {
  const deadlines: number[] = [];
  if (pending.idleFirstMs !== undefined) deadlines.push(pending.idleFirstMs + IDLE_HOLD_CAP_MS);
  if (pending.idleRunMs !== undefined) {
    deadlines.push(pending.idleRunMs + idleHoldMs(lastDecision?.confidence ?? 'weak', lastDecision?.idleHoldMs));
  }
  if (pending.weakWorkingSinceMs !== undefined) deadlines.push(pending.weakWorkingSinceMs + WEAK_WORKING_CONFIRM_MS);
  if (pending.unknownSinceMs !== undefined) deadlines.push(pending.unknownSinceMs + UNKNOWN_HOLD_MS);
  if (pending.unaskedWorkingSinceMs !== undefined) deadlines.push(pending.unaskedWorkingSinceMs + UNASKED_WORKING_CONFIRM_MS);
  return deadlines;
}

// ───────────────────────────── watchdog ─────────────────────────────

/** What the watchdog remembers: when something last moved, and since when the agent is stopped. */
export interface WatchdogState {
  readonly lastScreenRevision: number | undefined;
  /** Latest time any movement was observed: screen change, output, CPU above quiet, live children. */
  readonly lastActivityMs: number | undefined;
  readonly stoppedSinceMs: number | undefined;
}

export const INITIAL_WATCHDOG: WatchdogState = {
  lastScreenRevision: undefined,
  lastActivityMs: undefined,
  stoppedSinceMs: undefined,
};

export type WatchdogReason =
  | 'not-working'
  | 'unsampled'
  | 'children-unknown'
  | 'stopped'
  | 'stopped-grace'
  | 'moving'
  | 'quiet'
  | 'quiet-grace';

export interface WatchdogResult {
  readonly state: WatchdogState;
  readonly stuck: boolean;
  readonly reason: WatchdogReason;
  readonly detail: string;
}

/**
 * The `stuck` overlay on published `working`: nothing moved (no screen change, no output, CPU
 * under CPU_QUIET_RATE, no live children) for WATCHDOG_QUIET_MS, or the agent has been stopped
 * for STOPPED_STUCK_MS. It never applies to blocked or anything but working.
 *
 * Without a /proc sample the watchdog cannot tell a silent busy agent (a long compile with its
 * output suppressed) from a hung one, so it never concludes stuck: absent is not quiet. It still
 * tracks screen and output movement, so once sampling resumes the quiet window is already known.
 */
export function watchdog(
  previous: WatchdogState,
  published: RawState,
  snapshot: EvidenceSnapshot,
  nowMs: number,
): WatchdogResult {
  const proc = snapshot.process;
  const movedAt: number[] = [previous.lastActivityMs ?? snapshot.startedAtMs];
  if (previous.lastScreenRevision !== undefined && snapshot.screen.revision !== previous.lastScreenRevision) {
    movedAt.push(nowMs);
  }
  if (snapshot.lastOutputAtMs !== undefined) movedAt.push(snapshot.lastOutputAtMs);
  if (proc.sampled) {
    // A first sample has no rate yet: unknown CPU cannot be called quiet, so it counts as movement.
    if (proc.cpuRate === undefined || proc.cpuRate >= CPU_QUIET_RATE) movedAt.push(nowMs);
    if (proc.children?.some((child) => child.state !== 'Z' && child.state !== 'X') === true) movedAt.push(nowMs);
  }
  const isStopped = proc.sampled && proc.isStopped;
  const lastActivityMs = Math.max(...movedAt);
  const state: WatchdogState = {
    lastScreenRevision: snapshot.screen.revision,
    lastActivityMs,
    stoppedSinceMs: isStopped ? (previous.stoppedSinceMs ?? nowMs) : undefined,
  };
  const done = (stuck: boolean, reason: WatchdogReason, detail = ''): WatchdogResult => ({ state, stuck, reason, detail });

  if (published !== 'working') return done(false, 'not-working');
  if (!proc.sampled) return done(false, 'unsampled', proc.reason);
  if (state.stoppedSinceMs !== undefined) {
    const stoppedMs = nowMs - state.stoppedSinceMs;
    if (stoppedMs >= STOPPED_STUCK_MS) return done(true, 'stopped', `stopped for ${stoppedMs} ms`);
    return done(false, 'stopped-grace', `${stoppedMs} of ${STOPPED_STUCK_MS} ms`);
  }
  // A source that cannot see the children (a /proc without the children files) cannot see a tool
  // running under a quiet screen either: quiet cannot be concluded, as without any sample.
  if (proc.children === undefined) return done(false, 'children-unknown', 'the process source cannot see the agent\'s children');
  const quietMs = nowMs - lastActivityMs;
  if (quietMs <= 0) return done(false, 'moving');
  if (quietMs >= WATCHDOG_QUIET_MS) return done(true, 'quiet', `nothing moved for ${quietMs} ms`);
  return done(false, 'quiet-grace', `${quietMs} of ${WATCHDOG_QUIET_MS} ms`);
}

/** When the watchdog could next flip to stuck, for a session publishing `working`. */
export function watchdogDeadlineMs(state: WatchdogState, published: RawState, isStuck: boolean): number | undefined {
  if (published !== 'working' || isStuck) return undefined;
  if (state.stoppedSinceMs !== undefined) return state.stoppedSinceMs + STOPPED_STUCK_MS;
  return state.lastActivityMs === undefined ? undefined : state.lastActivityMs + WATCHDOG_QUIET_MS;
}
