/**
 * The per-session reducer: published raw state + stuck overlay → the public state with a
 * revision counter, `stateSinceMs` and `seen`. `done` is derived here and nowhere else: raw idle
 * reached after a turn's work (working or blocked, even through unknown) that nobody has seen
 * since. A turn starts when `working` is published after operator input that no turn has
 * answered yet, or after start with a prompt given on the command line; work without one
 * (start-up: loading, a first spinner, a trust dialog, the agent's work after a start-up dialog
 * was answered, since input typed at a dialog outside any turn answers it and asks nothing)
 * settles to idle, not done. Neither does a
 * turn the operator stopped: idle reached within INTERRUPT_SETTLE_MS of an interrupt key (Esc,
 * Ctrl-C) pressed during the turn is the operator's own doing, seen as it happens.
 */
import type { EvidenceKind } from './arbitrate.js';
import { ROLLUP_ORDER, type AgentState, type RawState } from '../types.js';

/**
 * How soon after an interrupt key a turn's end counts as stopped by the operator. Claude Code
 * draws "Interrupted · What should Claude do instead?" and its prompt well within a second of
 * Esc; debounce adds its idle hold (300 ms) and a tick. Three seconds leaves room on a loaded
 * machine without taking a completion that came long after an Esc that closed a menu.
 */
export const INTERRUPT_SETTLE_MS = 3000;

export interface SessionState {
  /** The public state: raw state with `done` derived from `seen`. */
  readonly state: AgentState;
  readonly raw: RawState;
  /** Overlay on `working` (never set on anything else). */
  readonly stuck: boolean;
  /** Increases by one whenever state, stuck, seen, winner or rule id changes; records carry it. */
  readonly revision: number;
  /** When the public state last changed (stuck toggles do not count). */
  readonly stateSinceMs: number;
  /** Whether the operator has looked since the last completion. */
  readonly seen: boolean;
  /** A turn's work (working or blocked) has been published since the last idle; reaching idle then is a completion. */
  readonly hasWorkPending: boolean;
  /** When the running turn started (working published after input); undefined between turns. */
  readonly turnStartedAtMs?: number | undefined;
  /** The newest operator input a turn has started answering (inputs up to it are answered). */
  readonly answeredInputAtMs: number | undefined;
  /** A prompt given on the command line that no turn has answered yet. */
  readonly isPromptPending: boolean;
  /** The evidence behind the published state (kept while debounce holds a different decision). */
  readonly winner: EvidenceKind;
  readonly ruleId: string | undefined;
  /** The winning rule's `reason` (e.g. "api-error"), or a blocked report's kind (e.g. "permission"); undefined when none. */
  readonly reason?: string | undefined;
}

/** One published frame from debounce + watchdog, with the evidence behind it. */
export interface PublishedFrame {
  readonly raw: RawState;
  readonly stuck: boolean;
  readonly winner: EvidenceKind;
  readonly ruleId: string | undefined;
  readonly reason?: string | undefined;
}

export function initialSessionState(nowMs: number, hasCommandLinePrompt = false): SessionState {
  return {
    state: 'unknown',
    raw: 'unknown',
    stuck: false,
    revision: 0,
    stateSinceMs: nowMs,
    seen: true,
    hasWorkPending: false,
    answeredInputAtMs: undefined,
    isPromptPending: hasCommandLinePrompt,
    winner: 'none',
    ruleId: undefined,
  };
}

function publicState(raw: RawState, seen: boolean): AgentState {
  return raw === 'idle' && !seen ? 'done' : raw;
}

function withChanges(previous: SessionState, next: Omit<SessionState, 'revision' | 'stateSinceMs'>, nowMs: number): SessionState {
  const isChanged =
    next.state !== previous.state ||
    next.raw !== previous.raw ||
    next.stuck !== previous.stuck ||
    next.seen !== previous.seen ||
    next.winner !== previous.winner ||
    next.ruleId !== previous.ruleId ||
    next.reason !== previous.reason;
  const isTurnChanged =
    next.hasWorkPending !== previous.hasWorkPending ||
    next.turnStartedAtMs !== previous.turnStartedAtMs ||
    next.answeredInputAtMs !== previous.answeredInputAtMs ||
    next.isPromptPending !== previous.isPromptPending;
  if (!isChanged && !isTurnChanged) return previous;
  return {
    ...next,
    revision: isChanged ? previous.revision + 1 : previous.revision,
    stateSinceMs: next.state === previous.state ? previous.stateSinceMs : nowMs,
  };
}

/**
 * `lastInputAtMs`: when the operator last typed into the agent (terminal replies excluded, see
 * operator-input.ts); undefined when never. `lastInterruptAtMs`: when the operator last pressed an
 * interrupt key (Esc, Ctrl-C).
 */
export function reduceSession(state: SessionState, published: PublishedFrame, nowMs: number, lastInputAtMs?: number, lastInterruptAtMs?: number): SessionState {
  const isWork = published.raw === 'working' || published.raw === 'blocked';
  const isInputUnanswered = lastInputAtMs !== undefined && (state.answeredInputAtMs === undefined || lastInputAtMs > state.answeredInputAtMs);
  // Input typed at a dialog outside any turn (a trust, sign-in or API-key screen at start-up)
  // answers the dialog; it is not a prompt. Live, Gemini's first run worked for a second after
  // the Enter on its key prompt (storing the key) and the reducer took that for a turn: `done`
  // at the prompt of an agent nobody had asked anything.
  const isDialogAnswer = isInputUnanswered && state.raw === 'blocked' && !state.hasWorkPending;
  // Working after unanswered input (or the command line's prompt) starts a turn, and so does a
  // dialog after a typed prompt (an agent that asks at once: working may never be published);
  // input typed while a turn works (a queued prompt) stays unanswered for the next one.
  const isPromptAnswered = isInputUnanswered && !isDialogAnswer;
  const isTurnStart =
    !state.hasWorkPending && ((published.raw === 'working' && (isPromptAnswered || state.isPromptPending)) || (published.raw === 'blocked' && isPromptAnswered));
  const isCompletion = published.raw === 'idle' && state.raw !== 'idle' && state.hasWorkPending;
  // A completion resets `seen`: a keystroke typed while the agent worked did not look at the
  // result. An interrupt key is different: the operator stopped the turn and watches it end.
  const isInterrupted =
    isCompletion &&
    lastInterruptAtMs !== undefined &&
    lastInterruptAtMs >= (state.turnStartedAtMs ?? Number.NEGATIVE_INFINITY) &&
    nowMs - lastInterruptAtMs <= INTERRUPT_SETTLE_MS;
  const seen = isCompletion ? isInterrupted : state.seen;
  const hasWorkPending = isTurnStart || (isWork && state.hasWorkPending) ? true : published.raw === 'idle' ? false : state.hasWorkPending;
  const turnStartedAtMs = isTurnStart ? nowMs : hasWorkPending ? state.turnStartedAtMs : undefined;
  return withChanges(
    state,
    {
      state: publicState(published.raw, seen),
      raw: published.raw,
      stuck: published.raw === 'working' && published.stuck,
      seen,
      hasWorkPending,
      turnStartedAtMs,
      answeredInputAtMs: (isTurnStart || isDialogAnswer) && isInputUnanswered ? lastInputAtMs : state.answeredInputAtMs,
      isPromptPending: state.isPromptPending && !isTurnStart,
      winner: published.winner,
      ruleId: published.ruleId,
      reason: published.reason,
    },
    nowMs,
  );
}

/** A keystroke into the session or `agentwrap ack`: the operator has looked; done becomes idle. */
export function markSeen(state: SessionState, nowMs: number): SessionState {
  if (state.seen) return state;
  return withChanges(state, { ...state, seen: true, state: publicState(state.raw, true) }, nowMs);
}

/** The most urgent state across sessions (blocked > done > working > idle > unknown); unknown when empty. */
export function rollUp(states: readonly AgentState[]): AgentState {
  let best: AgentState = 'unknown';
  for (const state of states) {
    if (ROLLUP_ORDER.indexOf(state) < ROLLUP_ORDER.indexOf(best)) best = state;
  }
  return best;
}
