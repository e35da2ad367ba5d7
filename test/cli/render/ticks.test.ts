import { describe, expect, it } from 'vitest';
import { renderTickEntry } from '../../../src/cli/render/ticks.js';
import { initialDetectorState, tick, type DetectorState } from '../../../src/core/detector/tick.js';
import { PROGRAM_STATUS_DISAGREE_MS } from '../../../src/core/policy.js';
import type { ProgramStatus } from '../../../src/core/types.js';
import { snapshot, strongIdle, unsampledProcess, verdict } from '../../helpers/detector-builders.js';

const working: ProgramStatus = { state: 'working', kind: undefined, progress: 30, id: undefined, app: 'codex', msg: undefined, atMs: 1_000 };

function run(times: readonly number[]) {
  let state: DetectorState = initialDetectorState(0);
  const results = times.map((nowMs) => {
    const result = tick(state, snapshot({ nowMs, programStatus: working, lastOutputAtMs: nowMs, process: unsampledProcess() }), verdict(strongIdle('composer-idle')), nowMs);
    state = result.state;
    return result;
  });
  return { state, results };
}

describe('explain and the agent\'s own report (OSC 7501)', () => {
  it('names the report, what it says and its age', () => {
    const { results } = run([2_500]);
    const text = renderTickEntry(results[0]!.entry, 'now');

    expect(text).toContain('agent status: codex working (30%), OSC 7501 (1.5s ago)');
    expect(text).toContain('note: program-status — codex working (30%), OSC 7501, 1500 ms ago');
    expect(text).not.toContain('disagreement');
  });

  it('says which disagrees and since when once the report and the screen rules disagreed PROGRAM_STATUS_DISAGREE_MS, and that is a change to publish', () => {
    const start = 2_000;
    // The second tick publishes working (held 100 ms: nothing was typed), so the third changes nothing.
    const { results, state } = run([start, start + 1_000, start + PROGRAM_STATUS_DISAGREE_MS - 1, start + PROGRAM_STATUS_DISAGREE_MS]);
    const [first, , early, lasting] = results;

    expect(early!.entry.disagreement).toBeUndefined();
    expect(early!.changed).toBe(false);
    expect(lasting!.entry.disagreement).toMatchObject({ reported: 'working', screen: 'idle', ruleId: 'composer-idle', sinceMs: start, app: 'codex' });
    expect(lasting!.changed).toBe(true);
    expect(first!.state.disagreement?.sinceMs).toBe(start);
    expect(state.evidenceDeadlinesMs).toContain(start + PROGRAM_STATUS_DISAGREE_MS);
    expect(renderTickEntry(lasting!.entry, 'now', 1_000)).toContain(
      `disagreement: codex says working, the screen reads idle (rule composer-idle), since 1.00s (${(PROGRAM_STATUS_DISAGREE_MS / 1000).toFixed(1)}s): the pack may be stale for this release`,
    );
  });
});
