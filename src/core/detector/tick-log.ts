/**
 * The explain ring buffer: the last TICK_LOG_CAPACITY ticks of one session, each with a digest
 * of its evidence, every rule match, the decision, what debounce and the watchdog did and why,
 * and the published state. `status explain` renders these entries as they are.
 */
import type { Decision } from './arbitrate.js';
import type { Disagreement } from './program-status.js';
import type { DebounceAction, DebounceReason, WatchdogReason } from './debounce.js';
import { viewClaim, type ClaimStatus } from './gating.js';
import { TICK_LOG_CAPACITY, TICK_LOG_TITLE_MAX_CHARS } from '../policy.js';
import type { AgentState, EvidenceSnapshot, ProgramStatusState, RawState, ReportEffect, ReportedState, ReportGrade, RuleMatch } from '../types.js';

/** One reporter source as explain shows it: its last event, its age, and whether it counted. */
export interface ReportDigest {
  readonly source: string;
  readonly agent: string;
  readonly lastEvent: string;
  readonly lastAgeMs: number;
  readonly lastEffect: ReportEffect;
  readonly accepted: number;
  readonly dropped: number;
  /** The source's claim, if it holds one, with whether it is live, expired or answered. */
  readonly claim:
    | { readonly state: ReportedState; readonly grade: ReportGrade; readonly event: string; readonly ageMs: number; readonly status: ClaimStatus }
    | undefined;
  /** This source's claim decided the tick. */
  readonly counted: boolean;
}

/** The evidence of one tick, reduced to what explain shows: values and ages, never screen text. */
export interface SnapshotDigest {
  readonly screenRevision: number;
  readonly title: string | undefined;
  readonly titleAgeMs: number | undefined;
  readonly progress: { readonly state: number; readonly value: number | undefined; readonly ageMs: number } | undefined;
  readonly mark: { readonly kind: string; readonly ageMs: number } | undefined;
  readonly process:
    | { readonly sampled: false; readonly reason: string }
    | {
        readonly sampled: true;
        readonly cpuRate: number | undefined;
        readonly agentState: string;
        /** Undefined where the source cannot see the agent's children. */
        readonly liveChildren: number | undefined;
        /** Distinct child commands, e.g. ["bash", "node"]. */
        readonly childCommands: readonly string[];
        readonly isForeground: boolean | undefined;
      };
  readonly outputAgeMs: number | undefined;
  readonly inputAgeMs: number | undefined;
  readonly exitCode: number | undefined;
  /** Reporter sources (agent hooks and plugins); absent when none reported. */
  readonly reports?: readonly ReportDigest[];
  /** The agent's OSC 7501 report (msg left out: it is the dialog's text); absent when none stands. */
  readonly programStatus?: {
    readonly state: ProgramStatusState;
    readonly app: string | undefined;
    readonly kind: string | undefined;
    readonly progress: number | undefined;
    readonly ageMs: number;
  };
}

export interface TickLogEntry {
  readonly nowMs: number;
  readonly digest: SnapshotDigest;
  /** Every matching rule of the pack, highest priority first; empty without a pack. */
  readonly matches: readonly RuleMatch[];
  readonly packAgent: string | undefined;
  readonly decision: Decision;
  readonly debounce: { readonly action: DebounceAction; readonly reason: DebounceReason; readonly detail: string };
  readonly watchdog: { readonly reason: WatchdogReason; readonly detail: string };
  readonly published: RawState;
  readonly state: AgentState;
  readonly stuck: boolean;
  readonly revision: number;
  readonly flapsPerMinute: number;
  readonly isFlapping: boolean;
  /** The agent's report and the screen rules have disagreed for PROGRAM_STATUS_DISAGREE_MS or more. */
  readonly disagreement?: Disagreement;
}

function ageOf(atMs: number | undefined, nowMs: number): number | undefined {
  return atMs === undefined ? undefined : nowMs - atMs;
}

/** The reporter sources of a snapshot; `decision` says which one (if any) decided. */
export function digestReports(snapshot: EvidenceSnapshot, nowMs: number, decision: Decision | undefined): ReportDigest[] {
  return (snapshot.reports ?? []).map((evidence) => {
    const view = viewClaim(evidence, nowMs, snapshot.lastInputAtMs);
    return {
      source: evidence.source,
      agent: evidence.agent,
      lastEvent: evidence.lastEvent,
      lastAgeMs: nowMs - evidence.lastAtMs,
      lastEffect: evidence.lastEffect,
      accepted: evidence.accepted,
      dropped: evidence.dropped,
      claim:
        view === undefined
          ? undefined
          : { state: view.assertion.state, grade: view.assertion.grade, event: view.assertion.event, ageMs: view.ageMs, status: view.status },
      counted: decision?.reportSource === evidence.source,
    };
  });
}

export function digestSnapshot(snapshot: EvidenceSnapshot, nowMs: number, decision?: Decision): SnapshotDigest {
  const proc = snapshot.process;
  const title = snapshot.title;
  const reports = digestReports(snapshot, nowMs, decision);
  return {
    screenRevision: snapshot.screen.revision,
    title: title === undefined ? undefined : [...title.text].slice(0, TICK_LOG_TITLE_MAX_CHARS).join(''),
    titleAgeMs: ageOf(title?.changedAtMs, nowMs),
    progress:
      snapshot.progress === undefined
        ? undefined
        : { state: snapshot.progress.state, value: snapshot.progress.value, ageMs: nowMs - snapshot.progress.atMs },
    mark: snapshot.lastMark === undefined ? undefined : { kind: snapshot.lastMark.kind, ageMs: nowMs - snapshot.lastMark.atMs },
    process: proc.sampled
      ? {
          sampled: true,
          cpuRate: proc.cpuRate,
          agentState: proc.agentState,
          liveChildren: proc.children?.filter((child) => child.state !== 'Z' && child.state !== 'X').length,
          childCommands: [...new Set((proc.children ?? []).map((child) => child.comm))],
          isForeground: proc.isForeground,
        }
      : { sampled: false, reason: proc.reason },
    outputAgeMs: ageOf(snapshot.lastOutputAtMs, nowMs),
    inputAgeMs: ageOf(snapshot.lastInputAtMs, nowMs),
    exitCode: snapshot.exit?.code,
    ...(reports.length === 0 ? {} : { reports }),
    ...(snapshot.programStatus === undefined ? {} : { programStatus: digestStatus(snapshot.programStatus, nowMs) }),
  };
}

function digestStatus(status: NonNullable<EvidenceSnapshot['programStatus']>, nowMs: number): NonNullable<SnapshotDigest['programStatus']> {
  return { state: status.state, app: status.app, kind: status.kind, progress: status.progress, ageMs: nowMs - status.atMs };
}

/**
 * A fixed-capacity ring of tick entries. Mutable by explicit `push` only (the session loop owns
 * one per session); `entries()` returns a fresh oldest-first array, safe to hand to explain.
 */
export class TickLog {
  readonly capacity: number;
  #slots: (TickLogEntry | undefined)[];
  #next = 0;
  #size = 0;

  constructor(capacity: number = TICK_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`tick log capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.#slots = new Array<TickLogEntry | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.#size;
  }

  push(entry: TickLogEntry): void {
    this.#slots[this.#next] = entry;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
  }

  /** Oldest first. */
  entries(): TickLogEntry[] {
    const out: TickLogEntry[] = [];
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    for (let i = 0; i < this.#size; i += 1) {
      const entry = this.#slots[(start + i) % this.capacity];
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }

  /** The newest `count` entries, oldest first. */
  last(count: number): TickLogEntry[] {
    const all = this.entries();
    return count <= 0 ? [] : all.slice(-count);
  }

  latest(): TickLogEntry | undefined {
    return this.#size === 0 ? undefined : this.#slots[(this.#next - 1 + this.capacity) % this.capacity];
  }
}
