/**
 * OSC 7501 on real recordings (docs/signals.md): Codex 0.171.0 reports its own state on every
 * change, and replay reads those reports from the recorded output like the live mirror does.
 */
import { describe, expect, it } from 'vitest';
import { castsUnder, replayCommitted as replay, signalOnlyScore } from '../../helpers/recording-replay.js';

describe('Codex\'s own reports (OSC 7501) in replay', () => {
  it('decide the turn in approve-80x24: working and done come from the reports, the drawn dialog stays the screen\'s', async () => {
    const { transitions } = await replay('recordings/codex/approve-80x24.cast');

    expect(transitions.map((t) => [t.state, t.winner])).toEqual([
      ['unknown', 'none'],
      ['idle', 'program-status'],
      ['working', 'program-status'],
      ['blocked', 'screen-rule'],
      ['working', 'program-status'],
      ['done', 'program-status'],
    ]);
    // `state=working` arrived at 5.683 s, `state=done` at 11.409 s: working is published once it
    // stood PROGRAM_STATUS_ACT_SETTLE_MS (5 ms), done once it stood PROGRAM_STATUS_SETTLE_MS (50 ms).
    expect(transitions[2]?.t).toBeCloseTo(5.688, 3);
    expect(transitions[5]?.t).toBeCloseTo(11.459, 2);
  });

  it('with every screen rule off, the reports alone score at least 98% (blocked recall 100%) on the Codex 0.171.0 recordings of what it reports', async () => {
    // Left out: blocked states Codex does not report (its first-run sign-in, the start-up trust
    // question, the plan prompt after `done`, a refused key it reports as `error`: fail-auth), and
    // older releases, which write no OSC 7501.
    const files = castsUnder('recordings/codex').filter((file) => !/(?:^|\/)(?:first-run|startup|plan|fail-auth)-|\/releases\//.test(file));

    const total = await signalOnlyScore(files, 'codex');

    expect(files.length).toBe(63);
    expect(total.accuracy).toBeGreaterThanOrEqual(0.98);
    expect(total.per_state.blocked?.recall).toBe(1);
  });
});
