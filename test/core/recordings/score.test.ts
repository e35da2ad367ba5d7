import { describe, expect, it } from 'vitest';
import type { Label } from '../../../src/core/recordings/labels.js';
import {
  type PublishedTransition,
  type ScoreInput,
  analyzeRecording,
  nearestRank,
  scoreRecording,
  scoreRecordings,
} from '../../../src/core/recordings/score.js';
import type { AgentState } from '../../../src/core/types.js';

/** `'idle@0.3'` → a label; keeps the hand-computed cases readable. */
function labels(...specs: string[]): Label[] {
  return specs.map((spec) => {
    const [state, t] = spec.split('@');
    return { t: Number(t), state: state as Label['state'] };
  });
}

/** `'working@0.5'`, `'working!@0.5'` (stuck) → a published transition. */
function published(...specs: string[]): PublishedTransition[] {
  return specs.map((spec) => {
    const [state, t] = spec.split('@');
    const stuck = state?.endsWith('!') ?? false;
    return { t: Number(t), state: state?.replace('!', '') as AgentState, stuck, winner: 'pack', rule_id: 'r' };
  });
}

function input(overrides: Partial<ScoreInput>): ScoreInput {
  return { file: 'a.cast', agent: 'demo', labels: [], published: [], durationS: 1, ...overrides };
}

describe('accuracy', () => {
  it('counts done as idle and unknown (also before anything is published) as wrong', () => {
    // 11 samples (0 … 1.0 s): 0–0.2 unknown (wrong), 0.3–0.5 done (= idle), 0.6–1.0 idle.
    const score = scoreRecording(
      input({ labels: labels('idle@0'), published: published('unknown@0.05', 'done@0.3', 'idle@0.6'), durationS: 1 }),
    );

    expect(score.samples).toBe(11);
    expect(score.accuracy).toBe(0.7273); // 8 / 11
    expect(score.unknown_samples).toBe(3);
    expect(score.per_state.idle).toEqual({ precision: 1, recall: 0.7273, labeled: 11, predicted: 8 });
  });

  it('counts a stuck sample as wrong even though its state is the label', () => {
    // 10 samples (0 … 0.9 s): working 0–0.4 correct, stuck 0.5–0.9 wrong.
    const score = scoreRecording(
      input({ labels: labels('working@0'), published: published('working@0', 'working!@0.5'), durationS: 0.9 }),
    );

    expect(score.samples).toBe(10);
    expect(score.accuracy).toBe(0.5);
    expect(score.stuck_samples).toBe(5);
    expect(score.per_state.working).toEqual({ precision: 1, recall: 0.5, labeled: 10, predicted: 5 });
  });

  it('skips samples before the first label and inside uncertain spans', () => {
    // Samples 0–0.2 have no label, 0.6–0.7 are uncertain: 6 of 11 samples are scored, all correct.
    const score = scoreRecording(
      input({
        labels: labels('working@0.3', 'uncertain@0.6', 'idle@0.8'),
        published: published('idle@0', 'working@0.25', 'idle@0.75'),
        durationS: 1,
      }),
    );

    expect(score.samples).toBe(6);
    expect(score.accuracy).toBe(1);
  });

  it('has no accuracy (null) when nothing is scored', () => {
    const score = scoreRecording(input({ labels: labels('uncertain@0'), published: published('idle@0') }));

    expect(score.samples).toBe(0);
    expect(score.accuracy).toBeNull();
    expect(score.per_state.working).toEqual({ precision: null, recall: null, labeled: 0, predicted: 0 });
  });
});

describe('detection latency', () => {
  it('runs from the last line of an uncertain span that a second line restarted (a new event inside the previous window)', () => {
    // Enter at 1.0 (its window still open), a tool call at 1.5 restarts the span; blocked at 2.5.
    const score = scoreRecording(
      input({
        labels: labels('idle@0', 'uncertain@1', 'uncertain@1.5', 'blocked@2.5'),
        published: published('idle@0', 'blocked@1.75'),
        durationS: 3,
      }),
    );

    // First blocked sample 1.8: 300 ms after the tool call (800 ms after Enter, as before).
    expect(score.latency_ms).toMatchObject({ p50: 300, max: 300 });
    expect(score.accuracy).toBe(1);
  });

  it('runs from the start of the uncertain span before the new label, detection inside the span included', () => {
    // Changed at 1.0 (uncertain start), blocked published at 1.35 → first blocked sample 1.4.
    const analysis = analyzeRecording(
      input({
        labels: labels('working@0', 'uncertain@1', 'blocked@2'),
        published: published('working@0', 'blocked@1.35'),
        durationS: 3,
      }),
    );

    expect(analysis.changes).toEqual([
      { from: 'working', to: 'blocked', labelT: 2, startT: 1, endT: 3, detectedT: 1.4, latencyMs: 400 },
    ]);
  });

  it('measures from the first on-grid sample after the change', () => {
    // Changed at 0.6 (uncertain start); idle published at 0.75 → first idle sample 0.8 → 200 ms.
    const score = scoreRecording(
      input({
        labels: labels('working@0.3', 'uncertain@0.6', 'idle@0.8'),
        published: published('working@0', 'idle@0.75'),
        durationS: 1,
      }),
    );

    expect(score.latency_ms).toEqual({ p50: 200, p95: 200, max: 200 });
    expect(score.changes).toBe(1);
    expect(score.missed).toBe(0);
  });

  it('is a miss when the new label is never published before its segment ends', () => {
    // working → blocked at 0.5 is never published; blocked → idle at 1.0 is published at 1.2.
    const score = scoreRecording(
      input({
        labels: labels('working@0', 'blocked@0.5', 'idle@1'),
        published: published('working@0', 'idle@1.2'),
        durationS: 1.5,
      }),
    );

    expect(score.changes).toBe(2);
    expect(score.missed).toBe(1);
    expect(score.latency_ms).toEqual({ p50: 200, p95: 200, max: 200 });
    expect(score.samples).toBe(16);
    expect(score.accuracy).toBe(0.5625); // 5 working + 0 blocked + 4 idle of 16
    expect(score.per_state.blocked).toEqual({ precision: null, recall: 0, labeled: 5, predicted: 0 });
  });

  it('does not count a detection that only comes after the segment ended', () => {
    const analysis = analyzeRecording(
      input({
        labels: labels('working@0', 'blocked@0.5', 'working@1'),
        published: published('working@0', 'blocked@1.5'),
        durationS: 2,
      }),
    );

    expect(analysis.changes.map((change) => change.latencyMs)).toEqual([undefined, 0]);
  });

  it('sees no change in working → uncertain → working, and none at the first label', () => {
    const score = scoreRecording(
      input({ labels: labels('idle@0', 'idle@0.2', 'uncertain@0.4', 'idle@0.6'), published: published('working@0') }),
    );

    expect(score.changes).toBe(0);
    expect(score.latency_ms).toEqual({ p50: null, p95: null, max: null });
  });
});

describe('spurious transitions', () => {
  it('counts published changes inside one certain segment to a state other than its label', () => {
    const analysis = analyzeRecording(
      input({
        labels: labels('idle@0', 'uncertain@1.8'),
        published: published(
          'idle@0',
          'done@0.5', // idle → done is not a change of the scored state
          'working@0.7', // spurious
          'idle@0.9', // back to the label: not spurious
          'working@1.2', // spurious
          'working@1.3', // same state, new winner: not a change
          'unknown@1.5', // spurious
          'working@1.9', // inside the uncertain span: not scored
        ),
        durationS: 2,
      }),
    );

    expect(analysis.spurious).toEqual([
      { t: 0.7, published: 'working', label: 'idle' },
      { t: 1.2, published: 'working', label: 'idle' },
      { t: 1.5, published: 'unknown', label: 'idle' },
    ]);
  });

  it('counts a change to stuck as spurious, and nothing before the first label', () => {
    const score = scoreRecording(
      input({
        labels: labels('working@1'),
        published: published('idle@0.2', 'working@0.5', 'working!@1.5'),
        durationS: 2,
      }),
    );

    expect(score.spurious_transitions).toBe(1);
  });
});

describe('totals', () => {
  it('pool samples, latencies and counts across files', () => {
    const report = scoreRecordings([
      input({ file: 'a.cast', labels: labels('idle@0'), published: published('unknown@0', 'done@0.3'), durationS: 1 }),
      input({ file: 'b.cast', labels: labels('working@0'), published: published('working@0', 'working!@0.5'), durationS: 0.9 }),
      input({
        file: 'c.cast',
        labels: labels('working@0', 'blocked@0.5', 'idle@1'),
        published: published('working@0', 'idle@1.2'),
        durationS: 1.5,
      }),
      input({
        file: 'd.cast',
        labels: labels('working@0', 'uncertain@1', 'blocked@2'),
        published: published('working@0', 'blocked@1.35'),
        durationS: 3,
      }),
    ]);

    expect(report.files.map((file) => file.file)).toEqual(['a.cast', 'b.cast', 'c.cast', 'd.cast']);
    // a: 8/11, b: 5/10, c: 9/16, d: 10 working (0–0.9) + 10 blocked (2.0–2.9, then 3.0) = 21/21
    expect(report.total.samples).toBe(11 + 10 + 16 + 21);
    expect(report.total.accuracy).toBe(Math.round(((8 + 5 + 9 + 21) / 58) * 10_000) / 10_000);
    // working labeled: b 10 + c 5 + d 10; published working: b 5 + c 12 (0–1.1) + d 10; correct: 5 + 5 + 10.
    expect(report.total.per_state.working).toEqual({ precision: 0.7407, recall: 0.8, labeled: 25, predicted: 27 });
    expect(report.total.latency_ms).toEqual({ p50: 200, p95: 400, max: 400 });
    expect(report.total.changes).toBe(3);
    expect(report.total.missed).toBe(1);
    expect(report.total.spurious_transitions).toBe(1);
    expect(report.total.stuck_samples).toBe(5);
    expect(report.total.unknown_samples).toBe(3);
  });

  it('serializes in the documented field order', () => {
    const report = scoreRecordings([input({ labels: labels('idle@0'), published: published('idle@0') })]);

    expect(Object.keys(report)).toEqual(['files', 'total']);
    expect(Object.keys(report.files[0] ?? {})).toEqual([
      'file',
      'agent',
      'samples',
      'accuracy',
      'per_state',
      'latency_ms',
      'changes',
      'missed',
      'spurious_transitions',
      'unknown_samples',
      'stuck_samples',
    ]);
    expect(Object.keys(report.total)).toEqual(Object.keys(report.files[0] ?? {}).slice(2));
  });
});

describe('nearestRank', () => {
  const tens = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

  it.each([
    [50, 50],
    [95, 100],
    [90, 90],
    [1, 10],
    [100, 100],
  ])('p%s of 10…100 is %s (rank ⌈p·n/100⌉)', (percent, expected) => {
    expect(nearestRank(tens, percent)).toBe(expected);
  });

  it('is null without values and the value itself for one', () => {
    expect(nearestRank([], 50)).toBeNull();
    expect(nearestRank([7], 95)).toBe(7);
  });
});
