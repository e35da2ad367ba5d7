/**
 * Gemini CLI's own signals on real recordings (docs/signals.md): with every screen rule off, the
 * window titles it writes (◇ Ready, ✦ Working…, ✋ Action Required) decide, beside its hook
 * reports where a recording has them (recordings/gemini/habitat-tmux-hooks, hooks on).
 */
import { describe, expect, it } from 'vitest';
import { scoreRecordings } from '../../../src/core/recordings/score.js';
import { castsUnder, replayCommitted, signalOnlyInputs } from '../../helpers/recording-replay.js';

/** Dialogs Gemini draws at start-up under its Ready title (folder trust, sign-in): only the screen sees them. */
const START_UP_DIALOGS = /(?:^|\/)(?:first-run|startup)-/;

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

  it('with every screen rule off, score at least 95% over every Gemini recording, and miss no change outside the start-up dialogs', async () => {
    const files = castsUnder('recordings/gemini');
    const inputs = await signalOnlyInputs(files, 'gemini');

    const all = scoreRecordings(inputs).total;
    const outsideStartUp = scoreRecordings(inputs.filter((input) => !START_UP_DIALOGS.test(input.file))).total;

    expect(files.length).toBe(76);
    expect(all.accuracy).toBeGreaterThanOrEqual(0.95);
    expect(outsideStartUp.accuracy).toBeGreaterThanOrEqual(0.99);
    expect(outsideStartUp.missed).toBe(0);
    // Not 100%: with agentwrap's hooks on, Gemini drew the deny dialog 1.5 s after the tool call,
    // past the 1 s the labels allow (habitat-tmux-hooks/deny-80x24, docs/signals.md).
    expect(outsideStartUp.per_state.blocked?.recall).toBeGreaterThanOrEqual(0.98);
  });
});
