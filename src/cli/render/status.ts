/**
 * Pure rendering for `agentwrap status`: text lines, the `--json` document and the tmux
 * string. Every string that came from a file is passed through `sanitizeTitle` before it
 * reaches a terminal, and every line through forTerminal (core/text): records are written by
 * other programs, and a title or a cwd holding an escape sequence must not be able to drive the
 * reader's terminal. Columns and widths are terminal cells (core/text/cells.ts).
 */
import { sanitizeTitle } from '../../core/records/session-record.js';
import { padToCells, truncateToCells } from '../../core/text/cells.js';
import { forTerminal } from '../../core/text/sanitize.js';
import { rollUp } from '../../core/detector/session-state.js';
import { ROLLUP_ORDER, type AgentState } from '../../core/types.js';
import type { ListedSession } from '../../app/sessions/store.js';
import type { HostedSession, HostHealth } from '../../app/sessions/remote-status.js';

export interface StatusView {
  /** Unix ms the view was read at. */
  readonly nowMs: number;
  readonly root: string;
  /** This machine's sessions, and other machines' (`--host`) marked with their host. */
  readonly sessions: readonly HostedSession[];
  readonly warnings: readonly string[];
  /** Every state directory read, when `--state-dir` named more than the one root. */
  readonly roots?: readonly string[];
  /** The machines asked with `--host`, reachable or not. */
  readonly hosts?: readonly HostHealth[];
}

/** `--json` output, shape version 1 (docs/publishing.md). Additive changes only. */
export interface StatusJson {
  readonly version: 1;
  readonly now: number;
  readonly root: string;
  readonly rollup: AgentState | null;
  readonly counts: Readonly<Record<AgentState, number>>;
  readonly warnings: readonly string[];
  readonly sessions: readonly StatusJsonSession[];
  /** Present with `--state-dir`: every directory read. */
  readonly roots?: readonly string[];
  /** Present with `--host`: each machine asked and whether it answered. */
  readonly hosts?: readonly HostHealth[];
}

export interface StatusJsonSession {
  readonly key: string;
  /** True for agentwrap's own records (they carry `state`); false for other writers'. */
  readonly agentwrap: boolean;
  readonly state: AgentState | null;
  readonly state_age_ms: number | null;
  /** The record as read (validated; unknown fields dropped). */
  readonly record: ListedSession['record'];
  /** Present for a session on another machine (`--host`): that host, as given. */
  readonly host?: string;
}

type OwnSession = ListedSession & { readonly kind: 'agentwrap' };

function isOwn(session: ListedSession): session is OwnSession {
  return session.kind === 'agentwrap';
}

/** agentwrap's sessions most urgent first, then other writers', each by key. */
export function sortSessions<T extends ListedSession>(sessions: readonly T[]): T[] {
  const rank = (s: ListedSession): number => (isOwn(s) ? ROLLUP_ORDER.indexOf(s.record.state) : ROLLUP_ORDER.length);
  const name = (s: T): string => ('host' in s && typeof s.host === 'string' ? `${s.host}:${s.key}` : s.key);
  return [...sessions].sort((a, b) => rank(a) - rank(b) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

export function countStates(sessions: readonly ListedSession[]): Record<AgentState, number> {
  const counts: Record<AgentState, number> = { blocked: 0, done: 0, working: 0, idle: 0, unknown: 0 };
  for (const session of sessions) if (isOwn(session)) counts[session.record.state] += 1;
  return counts;
}

/** The most urgent state of agentwrap's own sessions; undefined when there are none. */
export function rollUpSessions(sessions: readonly ListedSession[]): AgentState | undefined {
  const states = sessions.filter(isOwn).map((s) => s.record.state);
  return states.length === 0 ? undefined : rollUp(states);
}

export function statusJson(view: StatusView): StatusJson {
  return {
    version: 1,
    now: view.nowMs,
    root: view.root,
    rollup: rollUpSessions(view.sessions) ?? null,
    counts: countStates(view.sessions),
    warnings: view.warnings,
    sessions: sortSessions(view.sessions).map((session: HostedSession) => ({
      key: session.key,
      agentwrap: isOwn(session),
      state: isOwn(session) ? session.record.state : null,
      // Whole milliseconds: a record's state_since may carry a fraction (it is mapped from the monotonic clock).
      state_age_ms: isOwn(session) ? Math.max(0, Math.round(view.nowMs - session.record.state_since)) : null,
      record: session.record,
      ...(session.host === undefined ? {} : { host: session.host }),
    })),
    ...(view.roots === undefined ? {} : { roots: view.roots }),
    ...(view.hosts === undefined ? {} : { hosts: view.hosts }),
  };
}

/** `850ms`→`0s`, `12s`, `3m`, `2h`, `4d`: one unit, short enough for a status column. */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** `~/x` for paths under the home directory. */
/**
 * The cause as the status line shows it: `(usage-limit)`, with the reset in local time when the
 * agent showed one (`(usage-limit until 23:05)`, a date too when it is not today); '' when none.
 */
export function formatCause(reason: string | undefined, untilMs: number | undefined, nowMs: number): string {
  if (reason === undefined) return '';
  if (untilMs === undefined) return `(${reason})`;
  const until = new Date(untilMs);
  const time = `${String(until.getHours()).padStart(2, '0')}:${String(until.getMinutes()).padStart(2, '0')}`;
  const isToday = until.toDateString() === new Date(nowMs).toDateString();
  return `(${reason} until ${isToday ? time : `${until.toISOString().slice(0, 10)} ${time}`})`;
}

export function shortenPath(path: string, home: string | undefined): string {
  if (home === undefined || home === '' || home === '/') return path;
  if (path === home) return '~';
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Displayable form of a string from a file: sanitized, bounded, never empty. */
function clean(text: string | undefined, max = 256): string {
  const safe = text === undefined ? '' : sanitizeTitle(text, max);
  return safe === '' ? '-' : safe;
}

export interface TextOptions {
  readonly home?: string | undefined;
  /** Terminal width; lines are cut to it (so `--watch` never wraps). Unbounded when undefined. */
  readonly width?: number | undefined;
}

/** One line per session, a header, then the roll-up line. */
export function renderStatusText(view: StatusView, options: TextOptions = {}): string[] {
  const sessions = sortSessions(view.sessions);
  const lines: string[] = [];
  if (sessions.length === 0) {
    lines.push(`no live agent sessions (${clean(view.root)})`);
  } else {
    lines.push(`${padToCells('STATE', 8)} ${padToCells('FOR', 4)} ${padToCells('AGENT', 10)} ${padToCells('SESSION', 22)} ${padToCells('CWD', 24)} TITLE / DETAILS`);
    for (const session of sessions) lines.push(sessionLine(session, view.nowMs, options.home));
    const counts = countStates(sessions);
    const parts = ROLLUP_ORDER.filter((state) => counts[state] > 0).map((state) => `${counts[state]} ${state}`);
    const others = sessions.length - sessions.filter(isOwn).length;
    if (others > 0) parts.push(`${others} from other tools`);
    const rollup = rollUpSessions(sessions);
    lines.push(`rollup: ${rollup ?? '-'} (${parts.join(', ')})`);
  }
  for (const host of view.hosts ?? []) {
    if (!host.reachable) lines.push(`host ${clean(host.host, 128)}: unreachable${host.error === undefined ? '' : ` (${clean(host.error)})`}`);
  }
  // Every line once more through forTerminal: whatever a field above missed never reaches the terminal.
  const safe = lines.map((line) => forTerminal(line));
  return options.width === undefined ? safe : safe.map((line) => truncateToCells(line, options.width ?? line.length));
}

function sessionLine(session: HostedSession, nowMs: number, home: string | undefined): string {
  // A remote cwd is not under this machine's home directory, whatever it looks like.
  const cwd = clean(session.record.cwd === undefined ? undefined : shortenPath(session.record.cwd, session.host === undefined ? home : undefined));
  const key = clean(session.host === undefined ? session.key : `${session.host}:${session.key}`, 128);
  const agent = clean(session.record.source_cli, 64);
  if (isOwn(session)) {
    const { record } = session;
    // Reported display metadata (`agentwrap report-metadata`) follows the title, as key=value.
    const metadata = Object.entries(record.metadata ?? {}).map(([k, v]) => `${clean(k, 32)}=${clean(v, 64)}`);
    // The cause (`reason`) right after the state's own overlay: "done 2m … (usage-limit) title".
    const cause = formatCause(record.reason === undefined ? undefined : clean(record.reason, 64), record.until, nowMs);
    // A blocked session's dialog next: its options are what `agentwrap answer` takes.
    const dialog = record.dialog === undefined ? '' : `${clean(record.dialog.question, 120)} [${record.dialog.options.map((o, i) => `${i + 1} ${clean(o, 40)}`).join(' | ')}]`;
    const title = [record.stuck ? '(stuck)' : '', cause, dialog, record.title === undefined ? '' : clean(record.title), ...metadata].filter((t) => t !== '').join(' ');
    return `${padToCells(record.state, 8)} ${padToCells(formatAge(nowMs - record.state_since), 4)} ${padToCells(agent, 10)} ${padToCells(key, 22)} ${padToCells(cwd, 24)} ${title}`.trimEnd();
  }
  const { record } = session;
  const details = [`model ${clean(record.model, 64)}`];
  if (record.effort !== undefined) details.push(`effort ${clean(record.effort, 32)}`);
  details.push(`by ${clean(record.written_by, 64)}`);
  return `${padToCells('-', 8)} ${padToCells('-', 4)} ${padToCells(agent, 10)} ${padToCells(key, 22)} ${padToCells(cwd, 24)} ${details.join(', ')}`;
}

/**
 * tmux styles per state (status-right format codes). Each count is a badge with its own
 * background as well as its text colour, so it reads the same on any status bar: a text colour
 * alone vanished into one (`done` in green on tmux's default green bar, `working` in yellow on a
 * light one). Numbered colours (256-colour palette), not the 16 named ones a theme may redefine.
 */
export const TMUX_STYLE: Readonly<Record<AgentState, string>> = {
  blocked: 'fg=colour231,bg=colour160,bold',
  done: 'fg=colour231,bg=colour28,bold',
  working: 'fg=colour16,bg=colour220',
  idle: 'fg=colour231,bg=colour242',
  unknown: 'fg=colour252,bg=colour238',
};

/** Compact counts for tmux `status-right`, most urgent first; empty when no agentwrap session runs. */
export function renderTmux(view: StatusView): string {
  const counts = countStates(view.sessions);
  return ROLLUP_ORDER.filter((state) => counts[state] > 0)
    .map((state) => `#[${TMUX_STYLE[state]}] ${counts[state]} ${state} #[default]`)
    .join(' ');
}
