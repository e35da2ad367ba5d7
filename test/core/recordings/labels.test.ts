import { describe, expect, it } from 'vitest';
import { LabelsFormatError, labelAt, labelsPathFor, parseLabels } from '../../../src/core/recordings/labels.js';

describe('parseLabels', () => {
  it('reads one label per line, ignoring blank lines and extra fields', () => {
    const text = '{"t": 0, "state": "idle"}\n\n{"t": 1.5, "state": "working", "note": "typed a prompt"}\n{"t":4,"state":"uncertain"}\n';

    expect(parseLabels(text)).toEqual([
      { t: 0, state: 'idle' },
      { t: 1.5, state: 'working' },
      { t: 4, state: 'uncertain' },
    ]);
  });

  it('reports every bad line with its number in one error', () => {
    const text = [
      '{"t": 0, "state": "idle"}',
      '{"t": 1, "state": "done"}',
      'oops',
      '{"t": -1, "state": "idle"}',
      '{"t": 5, "state": "working"}',
      '{"t": 3, "state": "idle"}',
      '[1, "idle"]',
    ].join('\n');

    let error: unknown;
    try {
      parseLabels(text, 'a.labels.jsonl');
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(LabelsFormatError);
    const problems = (error as LabelsFormatError).problems;
    expect(problems.map((problem) => problem.line)).toEqual([2, 3, 4, 6, 7]);
    expect(problems[0]?.message).toContain('"state" must be one of working, blocked, idle, uncertain (got "done")');
    expect(problems[3]?.message).toContain('before the previous label');
    expect((error as Error).message).toContain('a.labels.jsonl:6:');
  });

  it('accepts an empty file as no labels', () => {
    expect(parseLabels('\n')).toEqual([]);
  });
});

describe('labelAt', () => {
  const labels = parseLabels('{"t":1,"state":"working"}\n{"t":2.5,"state":"blocked"}\n{"t":2.5,"state":"idle"}\n{"t":4,"state":"uncertain"}');

  it.each([
    [0, undefined],
    [0.999, undefined],
    [1, 'working'],
    [2.4, 'working'],
    [2.5, 'idle'],
    [3.9, 'idle'],
    [4, 'uncertain'],
    [1000, 'uncertain'],
  ])('at %s s the label is %s (each label holds until the next; the later of equal times wins)', (t, expected) => {
    expect(labelAt(labels, t)).toBe(expected);
  });
});

describe('labelsPathFor', () => {
  it.each([
    ['recordings/claude/edit.cast', 'recordings/claude/edit.labels.jsonl'],
    ['a.b/run', 'a.b/run.labels.jsonl'],
    ['/tmp/x.v3.cast', '/tmp/x.v3.labels.jsonl'],
  ])('pairs %s with %s', (recording, labels) => {
    expect(labelsPathFor(recording)).toBe(labels);
  });
});
