/**
 * Gating of the reporter channel: agent hooks and plugins report *events*, never states, and
 * this pure table decides what each event of each agent may change (events-not-states, the
 * jackin design's Decision 0a). Screens stay the state authority; a report can only help:
 *
 * - a permission / question event may assert `blocked` (grade `blocker`), until the source
 *   reports progress, a keystroke answers it, the source releases it, or REPORT_CLAIM_TTL_MS;
 * - a full-lifecycle source (an OpenCode plugin, the reporter of an agent agentwrap has no pack
 *   for) is `authoritative`: its working/idle/blocked events author state below screen blockers;
 * - a turn-start event of an agent listed in TURN_START_EVENTS (Claude Code's `UserPromptSubmit`)
 *   asserts `working` (grade `turn-start`) until the agent's own next report, a keystroke, a
 *   redrawn idle screen, the source's next event, or TURN_START_CLAIM_MS;
 * - stop / idle / completion events of agents whose completion events are unreliable in order
 *   and timing (Claude Code, Codex, every agent with a screen pack) never author state: they
 *   refresh identity and freshness, and end that source's own blocked claim;
 * - per source, a sequence number lower than the last accepted one is dropped (out of order),
 *   as is a report that took longer than REPORT_MAX_DELIVERY_MS to arrive (stale).
 *
 * Time is an argument (`nowMs`, the session clock); nothing here reads a clock.
 */
import { REPORT_CLAIM_TTL_MS, REPORT_MAX_DELIVERY_MS, TURN_START_AFTER_KEY_MS, TURN_START_CLAIM_MS } from '../policy.js';
import type { ReportAssertion, ReportEffect, ReportEvidence, ReportGrade, ReportedState } from '../types.js';
import { classifyEvent, isObject, stringAt, type EventClass, type Payload } from './event-classes.js';

export { classifyEvent, type EventClass } from './event-classes.js';

/**
 * How much an agent's reporter is trusted. `screen-owned`: the agent has a screen pack and its
 * completion events are unreliable, so reports assert blockers only. `blocked-authoritative`: the
 * same, except that its blocked report outranks the agent's working evidence (it is sent before
 * the dialog is drawn, while the screen still reads working). `full-lifecycle`: the reporter sees
 * the agent's whole state machine and is authoritative below screen blockers.
 */
export type TrustProfile = 'screen-owned' | 'blocked-authoritative' | 'full-lifecycle';

/** Agents whose reporter is full-lifecycle even though a pack exists (their plugin API is complete). */
export const FULL_LIFECYCLE_AGENTS: readonly string[] = ['opencode'];

/**
 * Agents whose blocked report is authoritative though nothing else of theirs is: Gemini CLI runs
 * its permission `Notification` hook before it draws the dialog, and keeps its `✦ Working…` title
 * and status row until then (0.5-1.5 s with agentwrap's hooks on, recordings/gemini/
 * habitat-tmux-hooks); its turn-end event is not sent after a denied tool, a cancel or an error,
 * so its working and idle events still author nothing (docs/reporter.md).
 */
export const BLOCKED_AUTHORITATIVE_AGENTS: readonly string[] = ['gemini'];

/**
 * The trust profile of a session's reporter: an agent listed as full-lifecycle, or one without
 * a screen pack (nothing better to cross-check it), is full-lifecycle; an agent listed as
 * blocked-authoritative is that; everything else is screen-owned. Trust follows the *session's*
 * agent, never what a report claims to be.
 */
export function trustProfile(sessionAgent: string, hasPack: boolean): TrustProfile {
  if (FULL_LIFECYCLE_AGENTS.includes(sessionAgent) || !hasPack) return 'full-lifecycle';
  return BLOCKED_AUTHORITATIVE_AGENTS.includes(sessionAgent) ? 'blocked-authoritative' : 'screen-owned';
}

/**
 * Events that start a turn and may author `working` for a screen-owned agent until its own next
 * report. Claude Code runs `UserPromptSubmit` 114-179 ms after Enter and reports OSC 7501
 * `working` only 76-115 ms later (recordings/claude/habitat-tmux); its screen shows nothing new
 * in between. Only the submit event: a tool hook can arrive after the turn's last report.
 */
export const TURN_START_EVENTS: Readonly<Record<string, readonly string[]>> = { claude: ['UserPromptSubmit'] };

/** Whether `event` starts a turn for a screen-owned session of `sessionAgent`. */
export function startsTurn(profile: TrustProfile, sessionAgent: string, event: string): boolean {
  return profile === 'screen-owned' && (TURN_START_EVENTS[sessionAgent]?.includes(event) ?? false);
}

/** What one event does to its source's claim, given the session's trust profile. */
export type GateAction =
  | { readonly kind: 'assert'; readonly state: ReportedState; readonly grade: ReportGrade }
  | { readonly kind: 'release' }
  /** Identity and freshness only; the source's claim stays as it is. */
  | { readonly kind: 'identity' };

/**
 * The gating table. Rows are event classes, columns trust profiles:
 *
 * | class    | screen-owned (claude, codex, packs)   | full-lifecycle (opencode, no pack) |
 * |----------|---------------------------------------|------------------------------------|
 * | blocked  | assert blocked (blocker)              | assert blocked (authoritative)     |
 * | working  | release own blocked claim             | assert working (authoritative)     |
 * | progress | release own blocked claim             | assert working (authoritative)     |
 * | idle     | release own blocked claim (no state)  | assert idle (authoritative)        |
 * | release  | release                               | release                            |
 * | identity | identity only                         | identity only                      |
 *
 * `blocked-authoritative` (gemini) asserts blocked as full-lifecycle does; every other row is
 * screen-owned's.
 */
export function gateAction(profile: TrustProfile, eventClass: EventClass): GateAction {
  const full = profile === 'full-lifecycle';
  switch (eventClass) {
    case 'blocked':
      return { kind: 'assert', state: 'blocked', grade: full || profile === 'blocked-authoritative' ? 'authoritative' : 'blocker' };
    case 'working':
    case 'progress':
      return full ? { kind: 'assert', state: 'working', grade: 'authoritative' } : { kind: 'release' };
    case 'idle':
      return full ? { kind: 'assert', state: 'idle', grade: 'authoritative' } : { kind: 'release' };
    case 'release':
      return { kind: 'release' };
    case 'identity':
      return { kind: 'identity' };
  }
}

// ── per-source state ───────────────────────────────────────────────────────────────────────

/** Every source that reported to one session, keyed by source name. Immutable. */
export interface GatingState {
  readonly sources: Readonly<Record<string, ReportEvidence>>;
}

export const INITIAL_GATING: GatingState = { sources: {} };

/** One report as the control socket received it. */
export interface IncomingReport {
  readonly event: string;
  /** Who reports; defaults to `<agent>-reporter`. */
  readonly source: string;
  /** The agent the reporter says it reports for (kept for explain; trust uses the session's agent). */
  readonly agent: string;
  /** Monotonic per source; undefined = order of arrival. */
  readonly seq: number | undefined;
  readonly payload: Payload | undefined;
  /** How long the report took from the reporting command to the session, when known. */
  readonly deliveryMs: number | undefined;
}

export interface GateContext {
  /** The session's agent (its pack's agent, or the command name). */
  readonly sessionAgent: string;
  readonly hasPack: boolean;
}

export interface GateResult {
  readonly state: GatingState;
  readonly effect: ReportEffect;
  /** True when the report was accepted (identity may be taken from it). */
  readonly accepted: boolean;
  /** One line for the reporter's reply and debug output. */
  readonly reason: string;
}

/** Runs one report through the table: drops it, or updates its source's claim. */
export function gateReport(state: GatingState, report: IncomingReport, context: GateContext, nowMs: number): GateResult {
  const previous = state.sources[report.source];
  const base = {
    source: report.source,
    agent: report.agent,
    lastEvent: report.event,
    lastAtMs: nowMs,
    lastSeq: previous?.lastSeq,
    accepted: previous?.accepted ?? 0,
    dropped: previous?.dropped ?? 0,
    assertion: previous?.assertion,
  };
  const store = (evidence: ReportEvidence): GatingState => ({ sources: { ...state.sources, [report.source]: evidence } });
  const drop = (effect: ReportEffect, reason: string): GateResult => ({
    state: store({ ...base, lastEffect: effect, dropped: base.dropped + 1 }),
    effect,
    accepted: false,
    reason,
  });

  if (report.seq !== undefined && previous?.lastSeq !== undefined && report.seq < previous.lastSeq) {
    return drop('dropped-out-of-order', `seq ${report.seq} after ${previous.lastSeq}`);
  }
  if (report.deliveryMs !== undefined && report.deliveryMs > REPORT_MAX_DELIVERY_MS) {
    return drop('dropped-stale', `arrived ${report.deliveryMs} ms after it was sent`);
  }
  const accepted = {
    ...base,
    lastSeq: report.seq ?? previous?.lastSeq,
    accepted: base.accepted + 1,
  };
  const eventClass = classifyEvent(context.sessionAgent, report.event, report.payload);
  if (eventClass === undefined) {
    return {
      state: store({ ...accepted, lastEffect: 'dropped-unknown-event' }),
      effect: 'dropped-unknown-event',
      accepted: true,
      reason: `${report.event} is not in the gating table for ${context.sessionAgent}: freshness only`,
    };
  }
  const profile = trustProfile(context.sessionAgent, context.hasPack);
  const action: GateAction = startsTurn(profile, context.sessionAgent, report.event)
    ? { kind: 'assert', state: 'working', grade: 'turn-start' }
    : gateAction(profile, eventClass);
  switch (action.kind) {
    case 'assert': {
      const assertion: ReportAssertion = { state: action.state, grade: action.grade, event: report.event, atMs: nowMs };
      return {
        state: store({ ...accepted, lastEffect: 'asserted', assertion }),
        effect: 'asserted',
        accepted: true,
        reason: `${report.event} asserts ${action.state} (${action.grade})`,
      };
    }
    case 'release':
      return {
        state: store({ ...accepted, lastEffect: 'released', assertion: undefined }),
        effect: 'released',
        accepted: true,
        reason:
          eventClass === 'release'
            ? 'released'
            : `${report.event} is ${eventClass} for ${context.sessionAgent} (${profile}): ends this source's claim, authors no state`,
      };
    case 'identity':
      return {
        state: store({ ...accepted, lastEffect: 'identity' }),
        effect: 'identity',
        accepted: true,
        reason: `${report.event}: identity and freshness only`,
      };
  }
}

// ── what arbitration may use ───────────────────────────────────────────────────────────────

/** Whether a source's claim counts now, and if not, why. */
export type ClaimStatus = 'live' | 'expired' | 'answered';

export interface ClaimView {
  readonly source: string;
  readonly assertion: ReportAssertion;
  readonly status: ClaimStatus;
  readonly ageMs: number;
}

/** How long a claim counts at most: a turn-start one only bridges the gap to the agent's report. */
function claimTtlMs(assertion: ReportAssertion): number {
  return assertion.grade === 'turn-start' ? TURN_START_CLAIM_MS : REPORT_CLAIM_TTL_MS;
}

/**
 * A source's claim as of `nowMs`: live, expired (older than its TTL), or answered (a blocked or
 * turn-start claim with a keystroke after it: the operator responded, Esc or Ctrl-C cancelled
 * the turn, or typed on; the screen decides again).
 */
export function viewClaim(evidence: ReportEvidence, nowMs: number, lastInputAtMs: number | undefined): ClaimView | undefined {
  const assertion = evidence.assertion;
  if (assertion === undefined) return undefined;
  const ageMs = nowMs - assertion.atMs;
  const endsOnInput = assertion.state === 'blocked' || assertion.grade === 'turn-start';
  const status: ClaimStatus =
    ageMs >= claimTtlMs(assertion)
      ? 'expired'
      : endsOnInput && lastInputAtMs !== undefined && lastInputAtMs > assertion.atMs
        ? 'answered'
        : 'live';
  return { source: evidence.source, assertion, status, ageMs };
}

/** Every claim in the snapshot's reports, newest first. */
export function viewClaims(
  reports: readonly ReportEvidence[] | undefined,
  nowMs: number,
  lastInputAtMs: number | undefined,
): ClaimView[] {
  const views: ClaimView[] = [];
  for (const evidence of reports ?? []) {
    const view = viewClaim(evidence, nowMs, lastInputAtMs);
    if (view !== undefined) views.push(view);
  }
  return views.sort((a, b) => b.assertion.atMs - a.assertion.atMs);
}

/** When a live claim next expires (for the tick loop's wake-up), or undefined. */
export function claimDeadlinesMs(reports: readonly ReportEvidence[] | undefined): number[] {
  const deadlines: number[] = [];
  for (const evidence of reports ?? []) {
    if (evidence.assertion !== undefined) deadlines.push(evidence.assertion.atMs + claimTtlMs(evidence.assertion));
  }
  return deadlines;
}

/** What decides whether a turn-start claim still stands, besides the claim. */
export interface TurnStartContext {
  /** The agent's own report (OSC 7501): when it arrived and when it starts to count. */
  readonly agentReport: { readonly atMs: number; readonly countsAtMs: number } | undefined;
  /** The last output, when the screen's strong evidence reads idle; undefined otherwise. */
  readonly idleRedrawnAtMs: number | undefined;
  /** The operator's last input (a claim after it; a key after the claim already ended it). */
  readonly lastInputAtMs: number | undefined;
  readonly nowMs: number;
}

/**
 * The live turn-start claim that still stands: one sent within TURN_START_AFTER_KEY_MS of the
 * operator's last key (a prompt nobody typed starts no turn the operator sees), and none once
 * the agent's own report newer than it counts, nor once the screen was redrawn after the claim
 * and reads idle (a prompt refused by another hook, `/clear`, a command that never reaches the
 * model).
 */
export function standingTurnStart(liveClaims: readonly ClaimView[], context: TurnStartContext): ClaimView | undefined {
  const claim = liveClaims.find((view) => view.assertion.grade === 'turn-start');
  if (claim === undefined) return undefined;
  const atMs = claim.assertion.atMs;
  const { agentReport, idleRedrawnAtMs, lastInputAtMs, nowMs } = context;
  if (lastInputAtMs === undefined || atMs - lastInputAtMs > TURN_START_AFTER_KEY_MS) return undefined;
  if (agentReport !== undefined && agentReport.atMs >= atMs && nowMs >= agentReport.countsAtMs) return undefined;
  if (idleRedrawnAtMs !== undefined && idleRedrawnAtMs > atMs) return undefined;
  return claim;
}

/** What arbitration reads of the reports, as a key (a change means "evaluate again"). */
export function reportsKey(reports: readonly ReportEvidence[] | undefined): unknown {
  if (reports === undefined || reports.length === 0) return undefined;
  return reports.map((r) => [r.source, r.assertion?.state, r.assertion?.atMs, r.lastAtMs]);
}

// ── identity ───────────────────────────────────────────────────────────────────────────────

/** What a report says about who the agent is. */
export interface ReportedIdentity {
  /** The agent's own session id (Claude `session_id`, Codex `thread-id`, OpenCode `sessionID`). */
  readonly agentSessionId?: string;
  readonly model?: string;
  readonly agentVersion?: string;
}

/** Identity values are short tokens; anything else is not an id. */
const IDENTITY_VALUE = /^[\w.:@/+-]{1,128}$/;

function token(value: string | undefined): string | undefined {
  return value !== undefined && IDENTITY_VALUE.test(value) ? value : undefined;
}

/** Claude sends `model` as a string or as `{id, display_name}` depending on the event and version. */
function modelOf(payload: Payload): string | undefined {
  const model = payload['model'];
  if (typeof model === 'string') return token(model);
  if (isObject(model)) return token(stringAt(model, 'id')) ?? token(stringAt(model, 'display_name'));
  return undefined;
}

/** The identity fields a report carries, validated as short tokens; never screen or prompt text. */
export function identityFromPayload(payload: Payload | undefined): ReportedIdentity {
  if (payload === undefined) return {};
  const sessionId =
    token(stringAt(payload, 'session_id')) ??
    token(stringAt(payload, 'thread-id')) ??
    token(stringAt(payload, 'sessionID')) ??
    token(stringAt(payload, 'properties', 'sessionID')) ??
    token(stringAt(payload, 'properties', 'info', 'id'));
  const model = modelOf(payload);
  const version = token(stringAt(payload, 'agent_version')) ?? token(stringAt(payload, 'version'));
  return {
    ...(sessionId === undefined ? {} : { agentSessionId: sessionId }),
    ...(model === undefined ? {} : { model }),
    ...(version === undefined ? {} : { agentVersion: version }),
  };
}

/** Top-level payload keys a reporter forwards; everything else (prompts, tool output) stays behind. */
const PAYLOAD_KEYS: readonly string[] = [
  'hook_event_name',
  'session_id',
  'notification_type',
  'model',
  'source',
  'reason',
  'type',
  'thread-id',
  'turn-id',
  'agent_version',
  'version',
  'sessionID',
  'status',
  'properties',
];

/** Nested keys kept under `properties`/`status`/`model` (OpenCode events, Claude model objects). */
const NESTED_KEYS: readonly string[] = ['sessionID', 'status', 'type', 'info', 'id', 'display_name'];

const PAYLOAD_STRING_MAX_CHARS = 200;

function slimValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length <= PAYLOAD_STRING_MAX_CHARS ? value : undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth < 3 && isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of NESTED_KEYS) {
      const slim = slimValue(value[key], depth + 1);
      if (slim !== undefined) out[key] = slim;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return undefined;
}

/**
 * A hook payload's text as JSON; undefined when it is missing, blank or not JSON (the event
 * still counts, without a payload). For `agentwrap report --json` and Claude's hook spool.
 */
export function parsePayload(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The part of a hook payload that gating and identity read, and nothing else: hooks pipe whole
 * transcripts' worth of JSON (tool input and output, the last assistant message), which must
 * neither travel nor be kept. Pure; used by `agentwrap report` before sending.
 */
export function slimPayload(payload: unknown): Payload | undefined {
  if (!isObject(payload)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of PAYLOAD_KEYS) {
    const slim = slimValue(payload[key], 1);
    if (slim !== undefined) out[key] = slim;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
