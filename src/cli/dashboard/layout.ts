/**
 * The dashboard's frame as text lines for a given terminal size. Pure: the I/O side writes the
 * lines and paints the selected one. Layout, top to bottom: a summary line, the session list
 * (scrolled to keep the selection in view), the selected session's screen preview, one line of
 * keys or feedback. Every line fits the width; there are exactly `height` lines.
 */
import { sanitizeTitle } from '../../core/records/session-record.js';
import { cellWidth, padToCells, truncateToCells } from '../../core/text/cells.js';
import { forTerminal } from '../../core/text/sanitize.js';
import { ROLLUP_ORDER, type AgentState } from '../../core/types.js';
import type { ScreenPreview } from '../../app/control/socket.js';
import { selectedRow, visibleRows, type DashboardRow, type DashboardState } from './model.js';
import { KEY_HELP } from './keys.js';
import { formatAge, formatCause, shortenPath } from '../render/status.js';

export interface FrameInput {
  readonly state: DashboardState;
  /** The selected session's screen, or why there is none. */
  readonly preview: ScreenPreview | string;
  readonly width: number;
  readonly height: number;
  readonly nowMs: number;
  readonly home: string | undefined;
}

export interface Frame {
  readonly lines: readonly string[];
  /** Index in `lines` of the selected session's row, when it is on screen. */
  readonly selectedLine: number | undefined;
}

/** The list takes at most this share of the screen when a preview is shown. */
const LIST_SHARE = 0.4;
/** Below this height there is no room for a preview: the list takes everything. */
const MIN_HEIGHT_FOR_PREVIEW = 10;

const FOOTER = '↑↓ select · Enter jump · a ack · 1-9 answer · p prompt · f filter · ? help · q quit';

function summary(state: DashboardState): string {
  const counts = new Map<AgentState, number>();
  for (const row of state.rows) if (row.state !== undefined) counts.set(row.state, (counts.get(row.state) ?? 0) + 1);
  const parts = ROLLUP_ORDER.filter((s) => (counts.get(s) ?? 0) > 0).map((s) => `${counts.get(s) ?? 0} ${s}`);
  const total = `${state.rows.length} session${state.rows.length === 1 ? '' : 's'}`;
  const unreachable = state.hosts.filter((h) => !h.reachable).length;
  return [
    'agentwrap',
    parts.length === 0 ? total : `${total}: ${parts.join(', ')}`,
    ...(unreachable > 0 ? [`${unreachable} host${unreachable === 1 ? '' : 's'} unreachable`] : []),
    `filter: ${state.filter}`,
  ].join(' · ');
}

interface Columns {
  readonly host: number;
}

function columns(rows: readonly DashboardRow[]): Columns {
  const longestHost = Math.max(0, ...rows.map((row) => cellWidth(row.host ?? 'local')));
  return { host: rows.some((row) => row.host !== undefined) ? Math.min(longestHost, 20) : 0 };
}

function header(cols: Columns): string {
  const host = cols.host > 0 ? `${padToCells('HOST', cols.host)} ` : '';
  return `  ${padToCells('STATE', 8)} ${padToCells('FOR', 4)} ${host}${padToCells('AGENT', 9)} ${padToCells('SESSION', 20)} ${padToCells('CWD', 22)} TITLE`;
}

function rowLine(row: DashboardRow, cols: Columns, isSelected: boolean, nowMs: number, home: string | undefined): string {
  const age = row.stateSinceMs === undefined ? '-' : formatAge(nowMs - row.stateSinceMs);
  const host = cols.host > 0 ? `${padToCells(row.host ?? 'local', cols.host)} ` : '';
  const title = [row.stuck ? '(stuck)' : '', formatCause(row.reason, row.until, nowMs), row.title].filter((t) => t !== '').join(' ');
  // Another machine's cwd is under that machine's home, not this one's.
  const cwd = shortenPath(row.cwd, row.host === undefined ? home : undefined);
  return `${isSelected ? '›' : ' '} ${padToCells(row.state ?? '-', 8)} ${padToCells(age, 4)} ${host}${padToCells(row.agent, 9)} ${padToCells(row.key, 20)} ${padToCells(cwd === '' ? '-' : cwd, 22)} ${title}`.trimEnd();
}

/** The list's lines, scrolled so the selected row is in view; unreachable hosts last. */
function listLines(input: FrameInput, height: number): { lines: string[]; selected: number | undefined } {
  const { state } = input;
  const rows = visibleRows(state);
  const cols = columns(state.rows);
  const hostLines = state.hosts.filter((h) => !h.reachable).map((h) => `! ${h.host}: unreachable${h.error === undefined ? '' : ` (${sanitizeTitle(h.error, 200)})`}`);
  const body: string[] = [];
  if (rows.length === 0) body.push(state.rows.length === 0 ? '  no live agent sessions' : `  no ${state.filter} sessions (f: next filter)`);
  const selected = selectedRow(state);
  const selectedIndex = rows.findIndex((row) => row.id === selected?.id);
  const room = Math.max(1, height - 1 - Math.min(hostLines.length, Math.max(0, height - 2)));
  const first = selectedIndex < room ? 0 : selectedIndex - room + 1;
  const shown = rows.slice(first, first + room);
  for (const row of shown) body.push(rowLine(row, cols, row.id === selected?.id, input.nowMs, input.home));
  const hidden = rows.length - shown.length;
  if (hidden > 0 && body.length < room) body.push(`  … ${hidden} more`);
  const lines = [header(cols), ...body, ...hostLines].slice(0, height);
  const selected_ = selectedIndex === -1 ? undefined : 1 + selectedIndex - first;
  return { lines, selected: selected_ !== undefined && selected_ < lines.length ? selected_ : undefined };
}

/** The bottom of the agent's screen that has something on it, `height` rows at most. */
export function previewRows(preview: ScreenPreview, height: number): string[] {
  let last = preview.rows.length - 1;
  while (last >= 0 && (preview.rows[last] ?? '').trim() === '') last -= 1;
  const start = Math.max(0, last + 1 - height);
  return preview.rows.slice(start, last + 1).map((row) => row.trimEnd());
}

function previewTitle(state: DashboardState, width: number): string {
  const row = selectedRow(state);
  const label = row === undefined ? '── preview ' : `── ${row.host === undefined ? '' : `${row.host}:`}${row.key} · ${row.state ?? 'no state'} `;
  return truncateToCells(`${label}${'─'.repeat(Math.max(0, width - cellWidth(label)))}`, width);
}

/** `› text█` while a prompt is typed; `? question  1 Yes · 2 No` for a selected blocked session with a dialog. */
export function actionLine(state: DashboardState): string | undefined {
  if (state.prompt !== undefined) {
    const row = state.rows.find((r) => r.id === state.prompt?.rowId);
    return `prompt for ${row?.key ?? '?'} › ${state.prompt.text}█   (Enter send · Esc cancel)`;
  }
  const row = selectedRow(state);
  const dialog = row?.state === 'blocked' ? row.dialog : undefined;
  if (dialog === undefined) return undefined;
  return `? ${dialog.question}  ${dialog.options.map((option, i) => `${i + 1} ${option}`).join(' · ')}`;
}

export function renderFrame(input: FrameInput): Frame {
  const width = Math.max(20, input.width);
  const height = Math.max(3, input.height);
  const { state } = input;
  const footer = state.message ?? FOOTER;
  const top = summary(state);
  let body: string[];
  let selectedLine: number | undefined;
  if (state.isHelpShown) {
    body = ['keys:', '', ...KEY_HELP.map((line) => `  ${line}`)];
  } else if (height < MIN_HEIGHT_FOR_PREVIEW) {
    const list = listLines(input, height - 2);
    body = list.lines;
    selectedLine = list.selected === undefined ? undefined : list.selected + 1;
  } else {
    const wanted = visibleRows(state).length + state.hosts.filter((h) => !h.reachable).length + 2;
    const listHeight = Math.max(3, Math.min(wanted, Math.floor((height - 2) * LIST_SHARE)));
    const list = listLines(input, listHeight);
    const previewHeight = height - 3 - list.lines.length;
    const preview =
      typeof input.preview === 'string' ? [`  ${input.preview}`] : previewRows(input.preview, previewHeight).map((row) => sanitizeRow(row));
    body = [...list.lines, previewTitle(state, width), ...preview];
    selectedLine = list.selected === undefined ? undefined : list.selected + 1;
  }
  // The prompt being typed, or the selected session's dialog and its options, above the footer.
  const act = actionLine(state);
  const lines = [top, ...body.slice(0, height - (act === undefined ? 2 : 3))];
  while (lines.length < height - (act === undefined ? 1 : 2)) lines.push('');
  if (act !== undefined) lines.push(act);
  lines.push(footer);
  // Every line through forTerminal, once, here: a footer quoting a session's or ssh's error, a
  // state a session sent, a host's name never reach the terminal as anything but text.
  return { lines: lines.map((line) => truncateToCells(forTerminal(line), width)), selectedLine };
}

/** Screen text is the agent's own drawing, already free of escapes; control characters still never reach the terminal. */
function sanitizeRow(row: string): string {
  return row.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/**
 * How long until a "for how long" cell on screen would read differently (formatAge shows one
 * unit: seconds under a minute, then minutes, hours, days), so the dashboard wakes up only when
 * the picture changes. Infinity when no visible row has an age.
 */
export function msUntilAgesChange(state: DashboardState, nowMs: number): number {
  let soonest = Number.POSITIVE_INFINITY;
  for (const row of visibleRows(state)) {
    if (row.stateSinceMs === undefined) continue;
    const age = Math.max(0, nowMs - row.stateSinceMs);
    const unit = age < 60_000 ? 1_000 : age < 3_600_000 ? 60_000 : age < 86_400_000 ? 3_600_000 : 86_400_000;
    soonest = Math.min(soonest, unit - (age % unit));
  }
  // Ages counted in seconds change at each row's own phase: twenty rows made twenty redraws a
  // second. Whatever changes within the coming second is drawn together at the clock's next
  // whole second instead, each cell at most a second late.
  return soonest < 1_000 ? 1_000 - (nowMs % 1_000) : soonest;
}

const ESC = '\u001b';

/**
 * The bytes that turn the terminal from `previous` into `next`: each changed line (or one whose
 * highlight changed) is rewritten in place and cleared to its end; the selected line is drawn
 * in reverse video. Nothing else is touched, so nothing flickers.
 */
export function frameUpdate(previous: Frame | undefined, next: Frame): string {
  let text = '';
  next.lines.forEach((line, i) => {
    const isSelected = i === next.selectedLine;
    if (previous !== undefined && line === previous.lines[i] && isSelected === (i === previous.selectedLine)) return;
    text += isSelected ? `${ESC}[${i + 1};1H${ESC}[7m${line}${ESC}[K${ESC}[0m` : `${ESC}[${i + 1};1H${line}${ESC}[K`;
  });
  return text;
}
