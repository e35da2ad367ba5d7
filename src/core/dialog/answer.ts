/**
 * Whether an answer or a prompt from elsewhere may be typed into the agent now: an answer only
 * into the very dialog it was meant for (same digest), a prompt only into an agent waiting for
 * one. The session does the typing; this decides, and says why not.
 */
import type { AgentState } from '../types.js';
import type { LiveDialog } from './digest.js';

export type AnswerDecision =
  | { readonly ok: true; readonly keys: string; readonly label: string }
  | { readonly ok: false; readonly code: 'not-blocked' | 'no-dialog' | 'changed' | 'no-option' | 'no-keys'; readonly message: string };

/** What is on screen now, in words, for a refusal. */
export function describeDialog(dialog: LiveDialog): string {
  return `"${dialog.question}" ${dialog.options.map((label, i) => `${i + 1}. ${label}`).join('  ')} (dialog ${dialog.digest})`;
}

/** `option` is 1-based; `digest` is what the answerer saw (`dialog.digest` in the record). */
export function decideAnswer(state: AgentState, dialog: LiveDialog | undefined, option: number, digest: string): AnswerDecision {
  if (state !== 'blocked') return { ok: false, code: 'not-blocked', message: `the session is ${state}, not blocked: nothing to answer` };
  if (dialog === undefined) return { ok: false, code: 'no-dialog', message: 'the session is blocked but its pack cannot read this dialog; answer it in its pane' };
  if (dialog.digest !== digest) return { ok: false, code: 'changed', message: `the dialog changed; now showing ${describeDialog(dialog)}` };
  const label = dialog.options[option - 1];
  if (!Number.isInteger(option) || label === undefined) {
    return { ok: false, code: 'no-option', message: `no option ${option}; the dialog shows ${describeDialog(dialog)}` };
  }
  const keys = dialog.keys[option - 1] ?? '';
  if (keys === '') return { ok: false, code: 'no-keys', message: `option ${option} ("${label}") shows no key the pack can type; answer it in its pane` };
  return { ok: true, keys, label };
}

export type PromptDecision = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A prompt goes to an agent that waits for one (idle, done, unknown); working or blocked only when forced. */
export function decidePrompt(state: AgentState, isForced: boolean): PromptDecision {
  if (isForced || state === 'idle' || state === 'done' || state === 'unknown') return { ok: true };
  return { ok: false, message: `the session is ${state}; a prompt now would land in its ${state === 'blocked' ? 'dialog' : 'work'} (--force sends it anyway)` };
}
