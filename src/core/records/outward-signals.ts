/**
 * The published state said where people look, besides the record: the user's terminal (OSC 7501
 * program status, OSC 9;4 progress) and the tmux pane the agent runs in (pane user options a
 * status line reads with format loops). Pure: the bytes and the tmux arguments; app/live/
 * signals-out.ts decides when and whether they go out.
 */
import type { AgentState } from '../types.js';

/** The tmux pane options agentwrap sets (docs/publishing.md shows the status-right that reads them). */
export const TMUX_OPTION_STATE = '@agent_state';
export const TMUX_OPTION_NAME = '@agent_name';
export const TMUX_OPTION_SINCE = '@agent_since';
export const TMUX_OPTION_REASON = '@agent_reason';
const TMUX_OPTIONS = [TMUX_OPTION_STATE, TMUX_OPTION_NAME, TMUX_OPTION_SINCE, TMUX_OPTION_REASON] as const;

/** A value inside `key=value:…` (and a tmux option) keeps to a plain word: no separator, no control byte. */
export function signalWord(text: string): string {
  const word = text.replace(/[^A-Za-z0-9._+-]+/g, '-').slice(0, 64);
  return word === '' ? 'agent' : word;
}

/** OSC 7501 for a published state; `unknown` (no reliable evidence) and the end clear it. */
export function programStatusSequence(state: AgentState | 'clear', app: string): string {
  const value = state === 'unknown' ? 'clear' : state;
  return `\x1b]7501;state=${value}:app=${signalWord(app)}\x1b\\`;
}

/**
 * OSC 9;4 (ConEmu's progress, also Windows Terminal's and Ghostty's): indeterminate while
 * working, paused (the terminal's warning colour) while blocked on the operator, removed
 * otherwise.
 */
export function progressSequence(state: AgentState | 'clear'): string {
  if (state === 'working') return '\x1b]9;4;3\x1b\\';
  if (state === 'blocked') return '\x1b]9;4;4;100\x1b\\';
  return '\x1b]9;4;0\x1b\\';
}

/**
 * Arguments for one tmux call that sets the pane's options (commands joined by `;`). The reason
 * (the record's: a rule's `reason`, a blocked report's kind) is a plain word; with none, the
 * option is unset so a status line's `#{?@agent_reason,…}` shows nothing stale.
 */
export function tmuxSetArgs(
  pane: string,
  values: { readonly state: AgentState; readonly name: string; readonly sinceMs: number; readonly reason?: string | undefined },
): string[] {
  const pairs: Array<[string, string]> = [
    [TMUX_OPTION_STATE, values.state],
    [TMUX_OPTION_NAME, signalWord(values.name)],
    [TMUX_OPTION_SINCE, String(Math.floor(values.sinceMs / 1000))],
  ];
  const set = pairs.flatMap(([option, value]) => [';', 'set-option', '-p', '-t', pane, option, value]);
  const reason = values.reason === undefined || values.reason.trim() === '' ? undefined : signalWord(values.reason.trim());
  const last = reason === undefined ? [';', 'set-option', '-p', '-u', '-t', pane, TMUX_OPTION_REASON] : [';', 'set-option', '-p', '-t', pane, TMUX_OPTION_REASON, reason];
  return [...set, ...last].slice(1);
}

/** Arguments for one tmux call that unsets them (the agent exited). */
export function tmuxUnsetArgs(pane: string): string[] {
  return TMUX_OPTIONS.flatMap((option, index) => [...(index === 0 ? [] : [';']), 'set-option', '-p', '-u', '-t', pane, option]);
}
