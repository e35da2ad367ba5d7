/**
 * A cause that holds up every session of an agent (a usage limit, a refused login, the API
 * overloaded or out of reach) is said once per account, not once per session, and again when it
 * lifts (issue 33; docs/errors.md). Each session remembers the causes it saw; the marker files
 * (adapters/cause-markers.ts) decide which session says it. A cause lifts when a session that saw
 * it finishes a turn without one: the work went through again.
 *
 * Failures (a state directory refused, a marker that cannot be written) are one warning; the
 * cause then goes unannounced and the agent notices nothing.
 */
import { claimCause, releaseCause } from '../../adapters/cause-markers.js';
import type { SessionRecord } from '../../core/records/session-record.js';
import type { StateChangeEvent } from '../control/protocol.js';
import { describeError } from '../session.js';
import { terminalNotification } from './notifier.js';
import { notifyUrlWebhook } from './webhook.js';

/** Causes that belong to the account; `api-error` (one turn's bad request) is not one. */
export const ACCOUNT_CAUSES: readonly string[] = ['usage-limit', 'rate-limited', 'overloaded', 'auth', 'network'];

/** A marker older than this is from a session that ended before its cause lifted: claimed afresh. */
export const CAUSE_MARKER_STALE_MS = 6 * 3_600_000;

export type { AccountCause as CauseNotice } from './webhook.js';
import type { AccountCause as CauseNotice } from './webhook.js';

export interface CauseNoticesOptions {
  readonly stateRoot: string;
  readonly agent: string;
  readonly warn: (message: string) => void;
  /** Says it: the webhook, the terminal's notification. */
  readonly announce: (notice: CauseNotice, event: StateChangeEvent, record: SessionRecord) => void;
}

/** The publisher's onTransition for causes. */
export function createCauseNotices(options: CauseNoticesOptions): (event: StateChangeEvent, record: SessionRecord) => void {
  const seen = new Set<string>();
  let hasWarned = false;
  const guarded = (what: () => boolean): boolean => {
    try {
      return what();
    } catch (error) {
      if (!hasWarned) options.warn(`causes are not shared between sessions (${describeError(error)}); each session says its own`);
      hasWarned = true;
      return true;
    }
  };
  return (event, record) => {
    const reason = record.reason;
    if (reason !== undefined && ACCOUNT_CAUSES.includes(reason) && !seen.has(reason)) {
      seen.add(reason);
      if (guarded(() => claimCause(options.stateRoot, options.agent, reason, event.t, CAUSE_MARKER_STALE_MS))) options.announce({ cause: reason, lifted: false }, event, record);
      return;
    }
    const isTurnThrough = (event.to === 'done' || event.to === 'idle') && event.from === 'working' && reason === undefined;
    if (!isTurnThrough) return;
    for (const cause of seen) {
      if (guarded(() => releaseCause(options.stateRoot, options.agent, cause))) options.announce({ cause, lifted: true }, event, record);
    }
    seen.clear();
  };
}

export interface SessionNoticesOptions {
  /** `notify_url`: the webhook every transition is POSTed to; none when undefined. */
  readonly notifyUrl: URL | undefined;
  /** `--notify`: causes go to the terminal's notification too. */
  readonly notify: boolean;
  readonly writeTerminal: (data: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** The state directory, when this session publishes (the markers live there); undefined: none. */
  readonly stateRoot: string | undefined;
  readonly agent: string;
  readonly warn: (message: string) => void;
}

export interface SessionNotices {
  readonly onTransition: (event: StateChangeEvent, record: SessionRecord) => void;
  /** Waits, bounded, for the webhook's last deliveries (shutdown.ts). */
  readonly drain: (maxWaitMs: number) => Promise<void>;
}

/**
 * Everything a published transition tells the person beyond the record: the webhook's POST and,
 * once per account, a cause. Undefined when neither a webhook nor --notify asks for anything.
 */
export function sessionNotices(options: SessionNoticesOptions): SessionNotices | undefined {
  const webhook = options.notifyUrl === undefined ? undefined : notifyUrlWebhook(options.notifyUrl, options.warn);
  if (webhook === undefined && !options.notify) return undefined;
  const causes =
    options.stateRoot === undefined
      ? undefined
      : createCauseNotices({
          stateRoot: options.stateRoot,
          agent: options.agent,
          warn: options.warn,
          announce: (notice, event, record) => {
            webhook?.onTransition(event, record, notice);
            if (options.notify) sayOnTerminal(options, notice.lifted ? `${options.agent}: ${notice.cause} is over` : `${options.agent}: ${notice.cause}, for every session`);
          },
        });
  return {
    onTransition: (event, record) => {
      webhook?.onTransition(event, record);
      causes?.(event, record);
    },
    drain: (maxWaitMs) => webhook?.drain(maxWaitMs) ?? Promise.resolve(),
  };
}

function sayOnTerminal(options: SessionNoticesOptions, message: string): void {
  try {
    options.writeTerminal(terminalNotification(message, options.env));
  } catch (error) {
    options.warn(`notification failed: ${describeError(error)}`);
  }
}
