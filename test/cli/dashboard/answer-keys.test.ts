/**
 * `status --watch` answering and prompting (cli/dashboard/model.ts, layout.ts): a digit chooses
 * an option of the selected blocked session's dialog, carrying the digest of the dialog shown;
 * `p` opens a prompt line whose text Enter sends to the session it was opened for.
 */
import { describe, expect, it } from 'vitest';
import { decodeKeys } from '../../../src/cli/dashboard/keys.js';
import { actionLine, renderFrame } from '../../../src/cli/dashboard/layout.js';
import { applyKey, applyPromptInput, initialState, withRows, type DashboardRow } from '../../../src/cli/dashboard/model.js';

const NOW = 1_800_000_000_000;
const DIALOG = { question: 'Do you want to run ls -la?', options: ['Yes', "Yes, and don't ask again", 'No'], digest: '0123456789abcdef' };

function row(key: string, state: DashboardRow['state'], extra: Partial<DashboardRow> = {}): DashboardRow {
  return { id: key, host: undefined, key, agent: 'demo', state, stateSinceMs: NOW - 1000, stuck: false, title: '', cwd: '/w', control: `/run/${key}.sock`, tmux: undefined, ...extra };
}

const blocked = withRows(initialState(), [row('b', 'blocked', { dialog: DIALOG }), row('i', 'idle')], []);

describe('answering from the dashboard', () => {
  it('a digit answers the selected blocked session with that option and the digest it shows', () => {
    const [key] = decodeKeys('2');

    const result = applyKey(blocked, key ?? 'other');

    expect(result.action).toEqual({ kind: 'answer', row: expect.objectContaining({ key: 'b' }), option: 2, digest: DIALOG.digest });
    expect(result.state.message).toBe("answering b: 2. Yes, and don't ask again");
  });

  it('a digit past the options, or on a session without a dialog, does nothing but say so', () => {
    expect(applyKey(blocked, 'option-4')).toMatchObject({ action: { kind: 'none' }, state: { message: "b's dialog has 3 options" } });
    const idleSelected = applyKey(blocked, 'down').state;
    expect(applyKey(idleSelected, 'option-1')).toMatchObject({ action: { kind: 'none' }, state: { message: 'i shows no dialog to answer' } });
  });

  it("shows the selected session's question and options above the keys", () => {
    const frame = renderFrame({ state: blocked, preview: 'no preview', width: 100, height: 12, nowMs: NOW, home: undefined });

    expect(actionLine(blocked)).toBe("? Do you want to run ls -la?  1 Yes · 2 Yes, and don't ask again · 3 No");
    expect(frame.lines).toHaveLength(12);
    expect(frame.lines.at(-2)).toBe(actionLine(blocked));
  });
});

describe('prompting from the dashboard', () => {
  const idle = applyKey(blocked, 'down').state;

  it('p opens a prompt line; text, Backspace and Enter send it to that session', () => {
    const open = applyKey(idle, 'prompt').state;

    const typed = applyPromptInput(open, 'run the testz\u007fs');
    const sent = applyPromptInput(typed.state, '\r');

    expect(actionLine(typed.state)).toBe('prompt for i › run the tests█   (Enter send · Esc cancel)');
    expect(sent.action).toEqual({ kind: 'send', row: expect.objectContaining({ key: 'i' }), text: 'run the tests' });
    expect(sent.state.prompt).toBeUndefined();
  });

  it('keys typed into the prompt are text, not dashboard keys; Esc closes it unsent', () => {
    const open = applyKey(idle, 'prompt').state;

    const typed = applyPromptInput(open, 'q1a');
    const cancelled = applyPromptInput(typed.state, '\u001b');

    expect(typed.state.prompt?.text).toBe('q1a');
    expect(typed.action.kind).toBe('none');
    expect(cancelled).toMatchObject({ action: { kind: 'none' }, state: { prompt: undefined, message: 'prompt cancelled' } });
  });
});
