/**
 * Gemini CLI's own signals on real recordings (docs/signals.md): with every screen rule off, the
 * window titles it writes (◇ Ready, ✦ Working…, ✋ Action Required) decide, beside its hook
 * reports where a recording has them (recordings/gemini/habitat-tmux-hooks, hooks on).
 */
import { describe, expect, it } from 'vitest';
import { scoreRecordings } from '../../../src/core/recordings/score.js';
import { castsUnder, replayCommitted, signalOnlyInputs } from '../../helpers/recording-replay.js';

/**
 * Dialogs whose title does not say so, which only the screen sees: at start-up (folder
 * trust, sign-in), and after a refused key or a usage limit (fail-auth, fail-usage-limit: docs/errors.md).
 */
const START_UP_DIALOGS = /(?:^|\/)(?:first-run|startup|fail-auth|fail-usage-limit)-/;

describe('Gemini CLI\'s own signals in replay', () => {
  it('decide approve-80x24 with every screen rule off: each state comes from the title Gemini wrote', async () => {
    const { transitions } = await replayCommitted('recordings/gemini/approve-80x24.cast', true);

    expect(transitions.map((t) => [t.state, t.rule_id])).toEqual([
      ['unknown', null],
      ['idle', 'title-ready'],
      ['working', 'title-working'],
      ['blocked', 'title-action-required'],
      ['working', 'title-working'],
      ['done', 'title-ready'],
    ]);
  });

  it('with every screen rule off, score at least 95% over every Gemini recording, and outside the start-up dialogs miss no change and no dialog', async () => {
    const files = castsUnder('recordings/gemini');
    const inputs = await signalOnlyInputs(files, 'gemini');

    const all = scoreRecordings(inputs).total;
    const outsideStartUp = scoreRecordings(inputs.filter((input) => !START_UP_DIALOGS.test(input.file))).total;

    expect(files.length).toBe(85);
    expect(all.accuracy).toBeGreaterThanOrEqual(0.95);
    expect(outsideStartUp.accuracy).toBeGreaterThanOrEqual(0.99);
    expect(outsideStartUp.missed).toBe(0);
    expect(outsideStartUp.per_state.blocked?.recall).toBe(1);
  });
});
