/**
 * A live session's recent state transitions, kept for the dashboard's timelines: the last hour
 * (HISTORY_WINDOW_MS), at most HISTORY_MAX_ENTRIES of them, so a flapping session's memory stays
 * bounded. The state before the window's first kept transition is remembered too, so the
 * timeline can be drawn from the window's start. Pure: time is an argument.
 */
import type { AgentState } from '../types.js';

export const HISTORY_WINDOW_MS = 60 * 60 * 1000;
/** A transition a second for the whole hour would be 3,600; a session flapping harder loses its oldest. */
export const HISTORY_MAX_ENTRIES = 2_000;

export interface StateTransition {
  /** Unix ms. */
  readonly t: number;
  readonly to: AgentState;
}

export interface StateHistorySnapshot {
  /** Unix ms the window starts at (now − window, or the session's start when later). */
  readonly since: number;
  /** The state at `since`: the last transition dropped from the window, or null before the first. */
  readonly initial: AgentState | null;
  readonly transitions: readonly StateTransition[];
}

export class StateHistory {
  private readonly entries: StateTransition[] = [];
  private head = 0;
  private dropped: AgentState | null = null;

  constructor(
    private readonly startedAtMs: number,
    private readonly windowMs: number = HISTORY_WINDOW_MS,
    private readonly maxEntries: number = HISTORY_MAX_ENTRIES,
  ) {}

  add(transition: StateTransition): void {
    this.entries.push(transition);
    this.trim(transition.t);
  }

  snapshot(nowMs: number): StateHistorySnapshot {
    this.trim(nowMs);
    return {
      since: Math.max(this.startedAtMs, nowMs - this.windowMs),
      initial: this.dropped,
      transitions: this.entries.slice(this.head),
    };
  }

  get length(): number {
    return this.entries.length - this.head;
  }

  private trim(nowMs: number): void {
    const cutoff = nowMs - this.windowMs;
    while (this.head < this.entries.length) {
      const oldest = this.entries[this.head];
      if (oldest === undefined || (oldest.t >= cutoff && this.entries.length - this.head <= this.maxEntries)) break;
      this.dropped = oldest.to;
      this.head += 1;
    }
    // Compact once the dropped prefix is as long as what is kept: amortised O(1) per entry.
    if (this.head > 0 && this.head >= this.entries.length - this.head) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}
