/**
 * The live dashboard's state and what each key does to it (`agentwrap status --watch` on a
 * terminal). Pure: the rows come in, actions.ts carries out the actions that
 * leave the dashboard (jump, ack, quit).
 */
import type { TmuxPane } from '../../core/records/session-record.js';
import type { PublishedDialog } from '../../core/records/dialog-field.js';
import { ROLLUP_ORDER, type AgentState } from '../../core/types.js';
import type { DashboardKey } from './keys.js';

/** One session as the dashboard lists it, from this machine or another. */
export interface DashboardRow {
  /** Unique across hosts: `<host>/<key>`, or the key for this machine's sessions. */
  readonly id: string;
  /** `user@box` for a session on another machine; undefined for this one. */
  readonly host: string | undefined;
  readonly key: string;
  readonly agent: string;
  /** Undefined for another tool's record (no state published). */
  readonly state: AgentState | undefined;
  /** Unix ms on this machine's clock. */
  readonly stateSinceMs: number | undefined;
  readonly stuck: boolean;
  /** The cause the record names (`usage-limit`, `auth`…), sanitized; undefined when none. */
  readonly reason?: string | undefined;
  /** Unix ms when the cause lifts, where the agent showed it. */
  readonly until?: number | undefined;
  /** Sanitized already (records are written by other programs). */
  readonly title: string;
  readonly cwd: string;
  /** The control socket, for this machine's agentwrap sessions. */
  readonly control: string | undefined;
  readonly tmux: TmuxPane | undefined;
  /** A blocked session's dialog, as its record offers it (sanitized and bounded when read). */
  readonly dialog?: PublishedDialog | undefined;
}

/** A machine asked over ssh; unreachable hosts are listed as such, never as empty. */
export interface HostHealth {
  readonly host: string;
  readonly reachable: boolean;
  /** Why it is unreachable (ssh's last error line), or undefined. */
  readonly error: string | undefined;
}

export type StateFilter = AgentState | 'all';

const FILTER_CYCLE: readonly StateFilter[] = ['all', ...ROLLUP_ORDER];

export interface DashboardState {
  /** Sorted by urgency (sortRows). */
  readonly rows: readonly DashboardRow[];
  readonly hosts: readonly HostHealth[];
  readonly selectedId: string | undefined;
  /**
   * Whether the user moved the selection. Until then it stays on the top row, the most urgent
   * session, whatever arrives (so Enter right away jumps to the one that needs you).
   */
  readonly hasMoved: boolean;
  readonly filter: StateFilter;
  readonly isHelpShown: boolean;
  /** One line of feedback (what a key did, or why it could not). */
  readonly message: string | undefined;
  /** The prompt being typed for the selected session (`p`); undefined when none is. */
  readonly prompt?: { readonly rowId: string; readonly text: string } | undefined;
}

export type DashboardAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'quit' }
  | { readonly kind: 'jump'; readonly row: DashboardRow }
  | { readonly kind: 'ack'; readonly row: DashboardRow }
  | { readonly kind: 'answer'; readonly row: DashboardRow; readonly option: number; readonly digest: string }
  | { readonly kind: 'send'; readonly row: DashboardRow; readonly text: string };

export function initialState(): DashboardState {
  return { rows: [], hosts: [], selectedId: undefined, hasMoved: false, filter: 'all', isHelpShown: false, message: undefined };
}

function rank(row: DashboardRow): number {
  return row.state === undefined ? ROLLUP_ORDER.length : ROLLUP_ORDER.indexOf(row.state);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Most urgent first (blocked, done, working, idle, unknown, then other tools' records); within
 * a state the one waiting longest first, then this machine before others, then by key.
 */
export function sortRows(rows: readonly DashboardRow[]): DashboardRow[] {
  return [...rows].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.stateSinceMs ?? 0) - (b.stateSinceMs ?? 0) ||
      compareText(a.host ?? '', b.host ?? '') ||
      compareText(a.key, b.key),
  );
}

/** The rows the filter lets through, in order. */
export function visibleRows(state: DashboardState): readonly DashboardRow[] {
  return state.filter === 'all' ? state.rows : state.rows.filter((row) => row.state === state.filter);
}

/** The selected row; the first visible one when the selection is gone or filtered out. */
export function selectedRow(state: DashboardState): DashboardRow | undefined {
  const rows = visibleRows(state);
  return rows.find((row) => row.id === state.selectedId) ?? rows[0];
}

/**
 * New rows (and host health) in: the selection follows its session by id. When that session
 * left, the row now at its old place is selected, so the cursor does not jump to the top.
 */
export function withRows(state: DashboardState, rows: readonly DashboardRow[], hosts: readonly HostHealth[]): DashboardState {
  const sorted = sortRows(rows);
  const next = { ...state, rows: sorted, hosts };
  if (!state.hasMoved) return { ...next, selectedId: visibleRows(next)[0]?.id };
  if (state.selectedId !== undefined && visibleRows(next).some((row) => row.id === state.selectedId)) return next;
  const oldIndex = visibleRows(state).findIndex((row) => row.id === state.selectedId);
  const visible = visibleRows(next);
  const fallback = visible[Math.min(Math.max(oldIndex, 0), visible.length - 1)];
  return { ...next, selectedId: fallback?.id };
}

function moveSelection(state: DashboardState, delta: number): DashboardState {
  const rows = visibleRows(state);
  if (rows.length === 0) return state;
  const current = rows.findIndex((row) => row.id === selectedRow(state)?.id);
  const index = Math.min(rows.length - 1, Math.max(0, current + delta));
  return { ...state, selectedId: rows[index]?.id, hasMoved: true, message: undefined };
}

function nextFilter(state: DashboardState): DashboardState {
  const filter = FILTER_CYCLE[(FILTER_CYCLE.indexOf(state.filter) + 1) % FILTER_CYCLE.length] ?? 'all';
  const next = { ...state, filter, message: `showing ${filter === 'all' ? 'all sessions' : `${filter} sessions`}` };
  return { ...next, selectedId: selectedRow(next)?.id };
}

/** What a key does: the next state, and an action for the I/O side to carry out. */
export function applyKey(state: DashboardState, key: DashboardKey): { readonly state: DashboardState; readonly action: DashboardAction } {
  const none = { kind: 'none' } as const;
  // Any key closes the help, q too (docs/publishing.md); only Ctrl-C quits from it.
  if (state.isHelpShown && key !== 'interrupt') return { state: { ...state, isHelpShown: false }, action: none };
  switch (key) {
    case 'up':
      return { state: moveSelection(state, -1), action: none };
    case 'down':
      return { state: moveSelection(state, 1), action: none };
    case 'top':
      return { state: moveSelection(state, -Infinity), action: none };
    case 'bottom':
      return { state: moveSelection(state, Infinity), action: none };
    case 'filter':
      return { state: nextFilter(state), action: none };
    case 'help':
      return { state: { ...state, isHelpShown: true }, action: none };
    case 'quit':
    case 'interrupt':
      return { state, action: { kind: 'quit' } };
    case 'jump':
    case 'ack': {
      const row = selectedRow(state);
      if (row === undefined) return { state: { ...state, message: 'no session selected' }, action: none };
      return { state, action: { kind: key, row } };
    }
    case 'prompt': {
      const row = selectedRow(state);
      if (row === undefined || row.state === undefined) return { state: { ...state, message: 'no agentwrap session selected' }, action: none };
      return { state: { ...state, prompt: { rowId: row.id, text: '' }, message: undefined }, action: none };
    }
    case 'other':
      return { state, action: none };
    default:
      return answerKey(state, Number(key.slice('option-'.length)));
  }
}

/** A digit: option n of the selected session's dialog, with the digest of the dialog shown. */
function answerKey(state: DashboardState, option: number): { readonly state: DashboardState; readonly action: DashboardAction } {
  const row = selectedRow(state);
  const none = { kind: 'none' } as const;
  if (row === undefined) return { state: { ...state, message: 'no session selected' }, action: none };
  const dialog = row.state === 'blocked' ? row.dialog : undefined;
  if (dialog === undefined) return { state: { ...state, message: `${row.key} shows no dialog to answer` }, action: none };
  if (option > dialog.options.length) return { state: { ...state, message: `${row.key}'s dialog has ${dialog.options.length} options` }, action: none };
  return { state: { ...state, message: `answering ${row.key}: ${option}. ${dialog.options[option - 1] ?? ''}` }, action: { kind: 'answer', row, option, digest: dialog.digest } };
}

/**
 * Raw input while a prompt is typed: text is added, Backspace removes, Ctrl-U clears, Enter
 * sends it to the session it was opened for, Esc or Ctrl-C closes it unsent.
 */
export function applyPromptInput(state: DashboardState, input: string): { readonly state: DashboardState; readonly action: DashboardAction } {
  const none = { kind: 'none' } as const;
  let text = state.prompt?.text ?? '';
  for (const char of input.replace(/\u001b\[200~|\u001b\[201~/g, '')) {
    if (char === '\u001b' || char === '\u0003') return { state: { ...state, prompt: undefined, message: 'prompt cancelled' }, action: none };
    if (char === '\r' || char === '\n') {
      const row = state.rows.find((r) => r.id === state.prompt?.rowId);
      const closed = { ...state, prompt: undefined };
      if (row === undefined) return { state: { ...closed, message: 'that session is gone' }, action: none };
      if (text.trim() === '') return { state: { ...closed, message: 'nothing to send' }, action: none };
      return { state: { ...closed, message: `sending ${row.key} a prompt…` }, action: { kind: 'send', row, text } };
    }
    if (char === '\u007f' || char === '\b') text = [...text].slice(0, -1).join('');
    else if (char === '\u0015') text = '';
    else if (char >= ' ') text += char;
  }
  return { state: { ...state, prompt: state.prompt === undefined ? undefined : { ...state.prompt, text } }, action: none };
}

/** What the jump can do for a row, or why it cannot (shown as the message). */
export function jumpRefusal(row: DashboardRow): string | undefined {
  if (row.host !== undefined) return `${row.key} runs on ${row.host}: jump there with ssh`;
  if (row.tmux === undefined) return `${row.key} does not run in tmux: nothing to jump to`;
  return undefined;
}

export function ackRefusal(row: DashboardRow): string | undefined {
  if (row.state === undefined) return `${row.key} is another tool's session: it has no ack`;
  if (row.host !== undefined) return undefined;
  if (row.control === undefined || row.control === '') return `${row.key} has no control socket`;
  return undefined;
}
