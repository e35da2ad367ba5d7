import { describe, expect, it } from 'vitest';
import { checkFixture, parseFixture, parseFixtureName, screenFromRows, verdictOutcome } from '../../../src/core/packs/fixture.js';
import type { PackVerdict } from '../../../src/core/types.js';

function verdict(state: 'working' | 'blocked' | 'idle' | undefined): PackVerdict {
  const winner = state === undefined ? undefined : { ruleId: `${state}-rule`, state, priority: 1, strength: 'strong' as const, region: 'screen' };
  return { agent: 'a', matches: winner === undefined ? [] : [winner], winner };
}

describe('parseFixtureName', () => {
  it.each([
    ['working_spinner.txt', { expected: 'working', slug: 'spinner' }],
    ['false_positive_quoted_prompt.txt', { expected: 'false_positive', slug: 'quoted_prompt' }],
    ['blocked_.txt', undefined],
    ['done_x.txt', undefined],
    ['idle_x.md', undefined],
  ])('%s → %j', (name, expected) => {
    expect(parseFixtureName(name)).toEqual(expected);
  });
});

describe('parseFixture', () => {
  it('strips the header lines and reads not, title, progress and cursor', () => {
    const fixture = parseFixture('# not: blocked\n# provenance: claude 2.1.3, 2026-11-01, tmux capture\n# title: ⠋ claude\n# progress: 3\n# cursor: 2\nfirst   \nsecond\n');

    expect(fixture.rows).toEqual(['first', 'second']);
    expect(fixture.notState).toBe('blocked');
    expect(fixture.provenance).toEqual(['claude 2.1.3, 2026-11-01, tmux capture']);
    expect(fixture.title).toBe('⠋ claude');
    expect(fixture.progress).toBe('3');
    expect(fixture.cursorRow).toBe(1);
    expect(fixture.problems).toEqual([]);
  });

  it('strips provenance lines anywhere, keeps other # lines as screen text', () => {
    const fixture = parseFixture('a\n# provenance: later\n# a heading on screen\r\n');

    expect(fixture.rows).toEqual(['a', '# a heading on screen']);
    expect(fixture.provenance).toEqual(['later']);
  });

  it('reads the agent a capture names: # agent:, else an older status capture provenance, else none', () => {
    expect(parseFixture('# agent: demo\n# provenance: x\nscreen\n')).toMatchObject({ agent: 'demo', rows: ['screen'] });
    const older = '# provenance: claude 2.1.3, 2026-12-07T18:00:00.000Z, agentwrap status capture of session claude-aw1-x (80x24)\nscreen\n';
    expect(parseFixture(older).agent).toBe('claude');
    expect(parseFixture('# provenance: claude 2.1.3, 2026-11-01, tmux capture\nscreen\n').agent).toBeUndefined();
  });

  it('puts the cursor on the last non-blank row by default', () => {
    expect(parseFixture('a\nb\n\n\n').cursorRow).toBe(1);
  });

  it('reports unreadable headers as problems', () => {
    expect(parseFixture('# not: sleepy\n# cursor: 9\nx').problems).toEqual([
      '# not: "sleepy" is not one of working, blocked, idle, freeze, unknown',
      '# cursor: "9" is not a row between 1 and 1',
    ]);
  });

  it('makes a screen whose rows are the file lines', () => {
    expect(screenFromRows(['ab', 'cdé'], 1)).toEqual({ rows: ['ab', 'cdé'], cols: 3, cursorRow: 1, cursorCol: 0, isAlternateScreen: false, revision: 1 });
  });
});

describe('checkFixture', () => {
  const plain = parseFixture('x');

  it('a state fixture passes when the winner has that state', () => {
    expect(checkFixture('idle', plain, verdict('idle')).passed).toBe(true);
    expect(checkFixture('idle', plain, verdict('working'))).toMatchObject({ passed: false, wanted: 'idle', got: 'working', ruleId: 'working-rule' });
  });

  it('no strong winner reads as unknown', () => {
    expect(verdictOutcome(verdict(undefined))).toBe('unknown');
    expect(checkFixture('working', plain, verdict(undefined)).passed).toBe(false);
  });

  it('a false positive must avoid working by default, or the # not: state', () => {
    expect(checkFixture('false_positive', plain, verdict('working')).passed).toBe(false);
    expect(checkFixture('false_positive', plain, verdict('idle')).passed).toBe(true);
    expect(checkFixture('false_positive', parseFixture('# not: blocked\nx'), verdict('blocked')).passed).toBe(false);
    expect(checkFixture('false_positive', parseFixture('# not: blocked\nx'), verdict('working')).passed).toBe(true);
  });

  it('a # not: header on a state fixture is a mistake that fails it', () => {
    expect(checkFixture('idle', parseFixture('# not: working\nx'), verdict('idle')).passed).toBe(false);
  });
});
