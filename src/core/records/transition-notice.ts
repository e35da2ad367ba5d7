/**
 * What the notification webhook (`notify_url`) POSTs for one published state transition: a
 * small JSON object a person's phone, ntfy or Slack relay can show without knowing agentwrap.
 * Every string is cut to a bound and cleaned of controls first, so one body is never more than
 * WEBHOOK_BODY_MAX_BYTES whatever the agent drew.
 */
import { forTerminal, toJson } from '../text/sanitize.js';
import type { AgentState } from '../types.js';

/** The largest body agentwrap POSTs; the bounds below keep every body under it. */
export const WEBHOOK_BODY_MAX_BYTES = 16 * 1024;
const MAX_OPTIONS = 9;

export interface TransitionNotice {
  /**
   * `transition`: this session's state changed. `cause` / `cause-lifted`: a cause that holds up
   * every session of the agent's account appeared or lifted, said once for all of them.
   */
  readonly event?: 'transition' | 'cause' | 'cause-lifted' | undefined;
  readonly agent: string;
  /** The session's record key. */
  readonly session: string;
  readonly state: AgentState;
  readonly previous: AgentState | null;
  /** Why (the record's `reason`: `usage-limit`, `auth`…), when the deciding rule says. */
  readonly reason?: string | undefined;
  /** When what holds the agent up lifts (a usage limit's reset), ISO 8601, when the agent showed it. */
  readonly until?: string | undefined;
  /** The question of the dialog a `blocked` agent shows, and its options, when known. */
  readonly question?: string | undefined;
  readonly options?: readonly string[] | undefined;
  readonly host: string;
  readonly cwd: string;
  /** When the transition was published, ISO 8601 (core reads no clock: the caller formats it). */
  readonly time: string;
}

/** At most `max` code points of `text`, on one line, without controls or escape sequences. */
function clean(text: string, max: number): string {
  return forTerminal([...text].slice(0, max).join(''));
}

/** The JSON body for one transition. Absent facts are `null`, so a receiver's template can test them. */
export function transitionNoticeBody(notice: TransitionNotice): string {
  const body = {
    event: notice.event ?? 'transition',
    agent: clean(notice.agent, 64),
    session: clean(notice.session, 160),
    state: notice.state,
    previous: notice.previous,
    reason: notice.reason === undefined ? null : clean(notice.reason, 64),
    until: notice.until === undefined ? null : clean(notice.until, 40),
    question: notice.question === undefined ? null : clean(notice.question, 1000),
    options: notice.options === undefined ? null : notice.options.slice(0, MAX_OPTIONS).map((option) => clean(option, 100)),
    host: clean(notice.host, 255),
    cwd: clean(notice.cwd, 1000),
    time: clean(notice.time, 40),
    text: clean(summary(notice), 300),
  };
  return toJson(body);
}

/** One line a person reads on a lock screen: ntfy and Slack show `text` when nothing else is set up. */
function summary(notice: TransitionNotice): string {
  if (notice.event === 'cause') return `${notice.agent}: ${notice.reason ?? 'a failure'}${notice.until === undefined ? '' : ` until ${notice.until}`}, for every session`;
  if (notice.event === 'cause-lifted') return `${notice.agent}: ${notice.reason ?? 'the failure'} is over`;
  const why = notice.reason === undefined ? '' : ` (${notice.reason})`;
  const what = notice.state === 'blocked' ? 'needs you' : `is ${notice.state}`;
  const question = notice.state === 'blocked' && notice.question !== undefined ? `: ${notice.question}` : '';
  return `${notice.agent} ${what}${why}${question}`;
}
