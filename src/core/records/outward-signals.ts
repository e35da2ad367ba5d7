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
const TMUX_OPTIONS = [TMUX_OPTION_STATE, TMUX_OPTION_NAME, TMUX_OPTION_SINCE] as const;

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

/** Arguments for one tmux call that sets the pane's options (commands joined by `;`). */
export function tmuxSetArgs(pane: string, values: { readonly state: AgentState; readonly name: string; readonly sinceMs: number }): string[] {
  const pairs: Array<[string, string]> = [
    [TMUX_OPTION_STATE, values.state],
    [TMUX_OPTION_NAME, signalWord(values.name)],
    [TMUX_OPTION_SINCE, String(Math.floor(values.sinceMs / 1000))],
  ];
  return pairs.flatMap(([option, value], index) => [...(index === 0 ? [] : [';']), 'set-option', '-p', '-t', pane, option, value]);
}

/** Arguments for one tmux call that unsets them (the agent exited). */
export function tmuxUnsetArgs(pane: string): string[] {
  return TMUX_OPTIONS.flatMap((option, index) => [...(index === 0 ? [] : [';']), 'set-option', '-p', '-u', '-t', pane, option]);
}
