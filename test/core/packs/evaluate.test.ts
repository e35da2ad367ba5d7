import { describe, expect, it } from 'vitest';
import { evaluatePack, explainPack, packInputFromSnapshot, verdictFromExplain } from '../../../src/core/packs/evaluate.js';
import type { EvidenceSnapshot } from '../../../src/core/types.js';
import { compiledPack, inputOf, packToml, screenOf } from '../../helpers/pack-toml.js';

/** One rule on `screen` with the given clause lines; returns whether it matches `rows`. */
function matches(clauses: string, rows: readonly string[], region = 'screen'): boolean {
  const pack = compiledPack(packToml(`[[rule]]\nid = "r"\nstate = "working"\nregion = "${region}"\n${clauses}`));
  return evaluatePack(pack, inputOf(rows)).matches.length === 1;
}

describe('substring matchers', () => {
  it('requires_all needs every substring, case-insensitively', () => {
    expect(matches('requires_all = ["Esc to INTERRUPT", "thinking"]', ['✻ Thinking… (esc to interrupt)'])).toBe(true);
    expect(matches('requires_all = ["esc to interrupt", "thinking"]', ['esc to interrupt'])).toBe(false);
  });

  it('requires_any needs at least one', () => {
    expect(matches('requires_any = ["esc to cancel", "esc to reject"]', ['Esc to reject'])).toBe(true);
    expect(matches('requires_any = ["esc to cancel", "esc to reject"]', ['enter to confirm'])).toBe(false);
  });

  it('forbids needs every substring absent', () => {
    expect(matches('requires_all = ["a"]\nforbids = ["ctrl+o to expand"]', ['a', 'CTRL+O to expand'])).toBe(false);
    expect(matches('requires_all = ["a"]\nforbids = ["ctrl+o to expand"]', ['a'])).toBe(true);
  });

  it('folds case beyond ASCII', () => {
    expect(matches('requires_all = ["échec", "ΣΦΑΛΜΑ"]', ['ÉCHEC de la compilation', 'σφαλμα'])).toBe(true);
  });

  it('matches across the newline that joins two lines', () => {
    expect(matches('requires_all = ["end\\nstart"]', ['the end', 'start here'])).toBe(true);
  });
});

describe('regex matchers', () => {
  it('regex runs on the region joined by newlines, case-insensitively', () => {
    expect(matches(`regex = ['do you want to \\w+']`, ['Do You Want To proceed?'])).toBe(true);
    expect(matches(`regex = ['first\\nsecond']`, ['first', 'second'])).toBe(true);
    expect(matches(`regex = ['^second']`, ['first', 'second'])).toBe(false);
  });

  it('regex is Unicode-aware', () => {
    const pack = compiledPack(packToml(`[[rule]]\nid = "t"\nstate = "working"\nregion = "osc_title"\nregex = ['^[\\x{2800}-\\x{28FF}] ']`));
    expect(evaluatePack(pack, inputOf([], { title: '⠙ working' })).matches).toHaveLength(1);
    expect(matches(`regex = ['^.$']`, ['é'])).toBe(true);
  });

  it('line_regex must match some single line', () => {
    expect(matches(`line_regex = ['^\\s*❯\\s*\\d\\.']`, ['Do you want to proceed?', ' ❯ 1. Yes', '   2. No'])).toBe(true);
    expect(matches(`line_regex = ['^1\\. yes$']`, ['x 1. Yes'])).toBe(false);
    expect(matches(`line_regex = ['yes\\s+no']`, ['yes', 'no'])).toBe(false);
  });

  it('line_regex patterns with \\A and \\z are checked per line too', () => {
    expect(matches(`line_regex = ['\\Adone\\z']`, ['working', 'done', 'x'])).toBe(true);
    expect(matches(`line_regex = ['\\Adone\\z']`, ['working', 'done!'])).toBe(false);
  });

  it('forbids_regex must match no line', () => {
    expect(matches(`requires_all = ["x"]\nforbids_regex = ['^>\\s']`, ['x', '> typed'])).toBe(false);
    expect(matches(`requires_all = ["x"]\nforbids_regex = ['^>\\s']`, ['x', 'a > b'])).toBe(true);
  });

  it('every pattern of a clause must hold', () => {
    expect(matches(`line_regex = ['^a$', '^b$']`, ['a', 'b'])).toBe(true);
    expect(matches(`line_regex = ['^a$', '^c$']`, ['a', 'b'])).toBe(false);
  });
});

describe('gates', () => {
  const GATE = `gate = { all = [ { contains = "proceed" }, { any = [ { line_regex = '^\\s*1\\. yes' }, { regex = 'allow\\s+once' } ] }, { not = { contains = "quoted" } } ] }`;

  it('all/any/not nest', () => {
    expect(matches(GATE, ['Proceed?', '1. Yes'])).toBe(true);
    expect(matches(GATE, ['Proceed?', 'Allow   once'])).toBe(true);
    expect(matches(GATE, ['Proceed?', 'no options'])).toBe(false);
    expect(matches(GATE, ['Proceed?', '1. Yes', 'quoted text'])).toBe(false);
  });

  it('a gate is ANDed with the flat matchers', () => {
    expect(matches(`requires_all = ["must"]\n${GATE}`, ['Proceed?', '1. Yes'])).toBe(false);
  });
});

describe('evaluatePack', () => {
  const PACK = compiledPack(
    packToml(`
[[rule]]
id = "low-idle"
state = "idle"
priority = 10
region = "screen"
requires_all = ["prompt"]

[[rule]]
id = "tie-first"
state = "working"
priority = 50
region = "screen"
requires_all = ["busy"]

[[rule]]
id = "weak-blocker"
state = "blocked"
priority = 900
strength = "weak"
region = "screen"
requires_all = ["busy"]

[[rule]]
id = "tie-second"
state = "idle"
priority = 50
region = "bottom:1"
requires_all = ["busy"]

[[rule]]
id = "freeze-redraw"
state = "freeze"
priority = 1000
region = "top:1"
requires_all = ["redrawing"]
`),
  );

  it('lists every match, highest priority first, ties in file order', () => {
    const verdict = evaluatePack(PACK, inputOf(['prompt', 'busy']));

    expect(verdict.matches.map((m) => m.ruleId)).toEqual(['weak-blocker', 'tie-first', 'tie-second', 'low-idle']);
  });

  it('the winner is the first strong match; a weak match never wins', () => {
    const verdict = evaluatePack(PACK, inputOf(['prompt', 'busy']));

    expect(verdict.winner).toEqual({ ruleId: 'tie-first', state: 'working', priority: 50, strength: 'strong', region: 'screen' });
  });

  it('reports a freeze match as the winner for arbitration to hold the previous state', () => {
    expect(evaluatePack(PACK, inputOf(['redrawing', 'busy'])).winner?.state).toBe('freeze');
  });

  it('has no winner when nothing strong matches', () => {
    const verdict = evaluatePack(PACK, inputOf(['nothing here']));

    expect(verdict).toEqual({ agent: 'test', matches: [], winner: undefined });
  });

  it('reads the virtual regions from the snapshot', () => {
    const pack = compiledPack(packToml(`[[rule]]\nid = "p"\nstate = "working"\nregion = "osc_progress"\nline_regex = ['^3$']`));
    const snapshot = {
      screen: screenOf([]),
      title: { text: 'x', changedAtMs: 0, recentChangesMs: [] },
      progress: { state: 3, value: 0, atMs: 0 },
    } as unknown as EvidenceSnapshot;

    expect(evaluatePack(pack, packInputFromSnapshot(snapshot)).winner?.ruleId).toBe('p');
  });

  it('an absent virtual region is empty: requirements fail, forbids pass', () => {
    const pack = compiledPack(
      packToml(`[[rule]]\nid = "f"\nstate = "idle"\nregion = "osc_title"\nforbids = ["x"]\n\n[[rule]]\nid = "r"\nstate = "working"\nregion = "osc_title"\nrequires_any = ["x"]`),
    );

    expect(evaluatePack(pack, inputOf([])).matches.map((m) => m.ruleId)).toEqual(['f']);
  });
});

describe('explainPack', () => {
  const PACK = compiledPack(
    packToml(`
[[rule]]
id = "dialog"
state = "blocked"
priority = 900
region = "bottom_nonempty:3"
requires_all = ["do you want to"]
forbids = ["quoted"]
forbids_regex = ['^>\\s']
gate = { all = [ { contains = "esc" }, { not = { contains = "ctrl+o" } } ] }

[[rule]]
id = "idle"
state = "idle"
region = "last_nonempty_line"
line_regex = ['^>']
`),
  );

  it('marks each clause passed or failed and names the first failure', () => {
    const [dialog] = explainPack(PACK, inputOf(['Do you want to run?', 'Esc to cancel · ctrl+o', '> x']));

    expect(dialog?.matched).toBe(false);
    expect(dialog?.failedClause).toBe(`forbids_regex '^>\\s': matches line "> x"`);
    expect(dialog?.clauses.map((c) => [c.clause, c.passed])).toEqual([
      ['requires_all "do you want to"', true],
      ['forbids "quoted"', true],
      [`forbids_regex '^>\\s'`, false],
      ['gate', false],
    ]);
    expect(dialog?.clauses[3]?.detail).toBe('gate.all[1].not: contains "ctrl+o" matched');
  });

  it('shows the region preview and line count', () => {
    const [, idle] = explainPack(PACK, inputOf(['a', '> typed', '']));

    expect(idle?.regionPreview).toBe('> typed');
    expect(idle?.regionLineCount).toBe(1);
    expect(idle?.matched).toBe(true);
    expect(idle?.failedClause).toBeUndefined();
  });

  it('agrees with evaluatePack', () => {
    const screens = [['Do you want to run?', 'Esc to cancel'], ['> '], ['Do you want to run?', 'Esc', '> x'], []];
    for (const rows of screens) {
      const explained = verdictFromExplain('test', explainPack(PACK, inputOf(rows)));

      expect(explained).toEqual(evaluatePack(PACK, inputOf(rows)));
    }
  });
});
