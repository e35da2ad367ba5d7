/**
 * The live session's publisher: builds the session record from the detector's state, writes it
 * through the session store, and announces every change of the published state (subscribers of
 * the control socket, the caller's hook, notifications). The store and the control path arrive
 * once publishing has started (publishing.ts); until then changes are announced but not written.
 */
import { isLastingDisagreement } from '../../core/detector/program-status.js';
import type { Clock } from '../../adapters/clock.js';
import type { ScreenMirror } from '../../adapters/screen/index.js';
import { createSessionRecord, type SessionRecord, type TmuxPane } from '../../core/records/session-record.js';
import type { DetectorState } from '../../core/detector/tick.js';
import type { TickLogEntry } from '../../core/detector/tick-log.js';
import { StateHistory, type StateHistorySnapshot } from '../../core/records/state-history.js';
import { parseResetTime } from '../../core/records/reset-time.js';
import type { AgentState } from '../../core/types.js';
import type { LiveDialog } from '../../core/dialog/digest.js';
import { publishedDialog } from '../../core/records/dialog-field.js';
import type { StateChangeEvent } from '../control/socket.js';
import type { Reporter } from '../reporters/reporter.js';
import type { SessionStore } from '../sessions/store.js';

/**
 * A title change alone (no state change) is republished at most this often: spinner titles
 * change ten times a second, and a record write (temp file, fsync, rename) per frame would cost
 * more than everything else agentwrap does while an agent works.
 */
export const TITLE_REPUBLISH_MIN_MS = 2_000;

/** Who the session is: fixed for its life. */
export interface SessionIdentity {
  readonly key: string;
  readonly sourceCli: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly startedWallMs: number;
  /** The session clock at the start: stateSinceMs is mapped to wall time from it. */
  readonly detectorStartMs: number;
  /**
   * The wall clock read together with detectorStartMs. Not startedWallMs: the packs load (and the
   * agent's version is read) between the two, 70–120 ms on the shared machine, and mapping from
   * startedWallMs put every state_since that much before the change.
   */
  readonly detectorStartWallMs: number;
  /** The installed agent's version, when found without running it. */
  readonly agentVersion: string | undefined;
  /** The tmux server and pane the session runs in ($TMUX, $TMUX_PANE), for jumping to it. */
  readonly tmux?: TmuxPane | undefined;
}

export interface PublisherOptions {
  readonly identity: SessionIdentity;
  readonly clock: Clock;
  readonly screen: Pick<ScreenMirror, 'evidence' | 'view'>;
  readonly reporter: Pick<Reporter, 'identity' | 'metadata'>;
  /** The pid to publish: the agent's once known, else the pty's own child. */
  readonly pid: () => number;
  readonly onStateChange?: ((event: StateChangeEvent, entry: TickLogEntry) => void) | undefined;
  /** Called for a published blocked or done (notifier.ts). */
  readonly notify: (state: AgentState, entry: TickLogEntry) => void;
  /** Every change of the published state, with the record that published it (the webhook, webhook.ts). */
  readonly onTransition?: ((event: StateChangeEvent, record: SessionRecord) => void) | undefined;
  /** The blocked dialog on screen now (remote-input.ts), published with a blocked state. */
  readonly dialog?: () => LiveDialog | undefined;
}

export class Publisher {
  /** Set once publishing started; undefined while the state directory is refused or not yet open. */
  store: SessionStore | undefined;
  /** The control socket path written into the record; '' when there is none. */
  controlPath = '';
  private readonly subscribers = new Set<(event: StateChangeEvent) => void>();
  /** The last hour of transitions, bounded, for the dashboard's timelines (control `history`). */
  private readonly history: StateHistory;
  private lastPublishedState: AgentState | undefined;
  /** The cause last announced with it: a change of cause alone is announced too. */
  private lastPublishedReason: string | undefined;
  /** The title as last published: a new title alone must still reach the record. */
  private publishedTitle: string | undefined;
  private titlePublishedAtMs = Number.NEGATIVE_INFINITY;
  /** The dialog digest as last published: a new dialog under the same blocked state is republished at once. */
  private publishedDialogDigest: string | undefined;

  constructor(private readonly options: PublisherOptions) {
    this.history = new StateHistory(options.identity.startedWallMs);
  }

  /** The record for `state`, as it would be published now. */
  record(state: DetectorState): SessionRecord {
    const { identity, clock, reporter } = this.options;
    const s = state.session;
    const title = this.options.screen.evidence().title?.text;
    this.publishedTitle = title;
    const reported = reporter.identity();
    const metadata = reporter.metadata(clock.nowMs());
    const agentVersion = identity.agentVersion ?? reported.agentVersion;
    const toWallMs = (detectorMs: number): number => identity.detectorStartWallMs + (detectorMs - identity.detectorStartMs);
    const d = state.disagreement;
    const dialog = s.state === 'blocked' ? this.readDialog() : undefined;
    this.publishedDialogDigest = dialog?.digest;
    return createSessionRecord({
      sourceCli: identity.sourceCli,
      sessionId: identity.sessionId,
      pid: this.options.pid(),
      wrapperPid: process.pid,
      cwd: identity.cwd,
      startedAtMs: identity.startedWallMs,
      updatedAtMs: clock.wallMs(),
      state: s.state,
      stateSinceMs: toWallMs(s.stateSinceMs),
      seen: s.seen,
      stuck: s.stuck,
      winner: s.winner,
      ruleId: s.ruleId ?? null,
      ...(s.reason === undefined ? {} : { reason: s.reason, untilMs: this.until(s.reason) }),
      ...(title === undefined ? {} : { title }),
      ...(agentVersion === undefined ? {} : { agentVersion }),
      ...(reported.model === undefined ? {} : { model: reported.model, modelSource: 'report' as const }),
      ...(reported.agentSessionId === undefined ? {} : { agentSessionId: reported.agentSessionId }),
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
      control: this.controlPath,
      ...(identity.tmux === undefined ? {} : { tmux: identity.tmux }),
      ...(isLastingDisagreement(d, clock.nowMs())
        ? { disagreement: { reported: d.reported, screen: d.screen, rule_id: d.ruleId ?? null, since: toWallMs(d.sinceMs) } }
        : {}),
      ...(dialog === undefined ? {} : { dialog: publishedDialog(dialog) }),
    });
  }

  /**
   * When a limit lifts, read from the screen while the cause is a limit: the agent's own words
   * ("try again at 9:05 PM"), in the user's local time zone. Undefined when it shows none.
   */
  private until(reason: string): number | undefined {
    if (reason !== 'usage-limit' && reason !== 'rate-limited') return undefined;
    const nowMs = this.options.clock.wallMs();
    return parseResetTime(this.options.screen.view().rows.join('\n'), nowMs, -new Date(nowMs).getTimezoneOffset());
  }

  /** The dialog, or undefined when reading it failed: a pack's dialog table must never stop a publish. */
  private readDialog(): LiveDialog | undefined {
    try {
      return this.options.dialog?.();
    } catch {
      return undefined;
    }
  }

  /** Writes the record for `state` (once the store is open); failures are the store's to report. */
  publish(state: DetectorState): SessionRecord {
    const record = this.record(state);
    if (this.store !== undefined) void this.store.publish(record);
    return record;
  }

  /**
   * The detector's onChange: write the record, and announce a change of the published state or of
   * its cause (`reason`) to subscribers and the webhook; notifications and the caller's hook hear
   * of state changes only.
   */
  onChange(state: DetectorState, entry: TickLogEntry): void {
    const to = state.session.state;
    const record = this.publish(state);
    const reason = record.reason;
    if (to === this.lastPublishedState && reason === this.lastPublishedReason) return;
    const isStateChange = to !== this.lastPublishedState;
    const { identity, clock } = this.options;
    const event: StateChangeEvent = {
      t: clock.wallMs(),
      session: identity.key,
      agent: identity.sourceCli,
      from: this.lastPublishedState ?? null,
      to,
      winner: state.session.winner,
      rule_id: state.session.ruleId ?? null,
      reason: reason ?? null,
      ...(record.dialog === undefined ? {} : { dialog: record.dialog }),
    };
    this.lastPublishedState = to;
    this.lastPublishedReason = reason;
    for (const emit of this.subscribers) emit(event);
    this.options.onTransition?.(event, record);
    if (!isStateChange) return;
    this.history.add({ t: event.t, to });
    this.options.onStateChange?.(event, entry);
    if (to === 'blocked' || to === 'done') this.options.notify(to, entry);
  }

  /**
   * After a tick: the store's periodic refresh rides on the tick's wake-up (early, when the next
   * tick is further off than the refresh: one wake-up instead of two), and a changed title alone
   * is republished at most every TITLE_REPUBLISH_MIN_MS. `nextTickInMs`: how long until the
   * session's next tick is due as things stand.
   */
  afterTick(changed: boolean, state: DetectorState, nowMs: number, nextTickInMs = 0): void {
    const store = this.store;
    if (store === undefined) return;
    void store.refreshIfDue(nextTickInMs);
    // Another dialog under the same blocked state (the next tool call's): its options must not wait.
    if (!changed && state.session.state === 'blocked' && this.readDialog()?.digest !== this.publishedDialogDigest) {
      void store.publish(this.record(state));
      return;
    }
    if (!changed && this.options.screen.evidence().title?.text !== this.publishedTitle && nowMs - this.titlePublishedAtMs >= TITLE_REPUBLISH_MIN_MS) {
      this.titlePublishedAtMs = nowMs;
      void store.publish(this.record(state));
    }
  }

  /** The published transitions of the last hour, as of now (wall time). */
  historySnapshot(): StateHistorySnapshot & { readonly now: number } {
    const now = this.options.clock.wallMs();
    return { now, ...this.history.snapshot(now) };
  }

  subscribe(emit: (event: StateChangeEvent) => void): () => void {
    this.subscribers.add(emit);
    return () => this.subscribers.delete(emit);
  }
}
