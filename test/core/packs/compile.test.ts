import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { evaluatePack } from '../../../src/core/packs/evaluate.js';
import { compilePack } from '../../../src/core/packs/compile.js';
import { checkRegex, packRegex } from '../../../src/core/packs/regex.js';
import { compiledPack, inputOf, packToml, validPack } from '../../helpers/pack-toml.js';

describe('compilePack', () => {
  it('sorts rules by priority, highest first, keeping file order on ties', () => {
    const pack = compiledPack(
      packToml(
        ['a:5', 'b:9', 'c:5', 'd:-1', 'e:9']
          .map((s) => s.split(':'))
          .map(([id, p]) => `[[rule]]\nid = "${id}"\nstate = "idle"\npriority = ${p}\nregion = "screen"\nforbids = ["x"]`)
          .join('\n\n'),
      ),
    );

    expect(pack.rules.map((r) => r.rule.id)).toEqual(['b', 'e', 'a', 'c', 'd']);
    expect(pack.rules.map((r) => r.fileOrder)).toEqual([1, 4, 0, 2, 3]);
  });

  it('plans each distinct region once and shares it between rules', () => {
    const pack = compiledPack(
      packToml(
        `[[rule]]\nid = "a"\nstate = "idle"\nregion = "bottom:3"\nregex = ['x']\n\n[[rule]]\nid = "b"\nstate = "idle"\nregion = "bottom:3"\nline_regex = ['^y']\n\n[[rule]]\nid = "c"\nstate = "idle"\nregion = "screen"\nforbids = ["z"]`,
      ),
    );

    expect(pack.regions.map((r) => r.label)).toEqual(['bottom:3', 'screen']);
    expect(pack.regions[0]?.set?.size).toBe(2);
    expect(pack.regions[1]?.set).toBeUndefined();
  });

  it('keeps \\A, \\z and inline-flag line patterns out of the Set, but not plain groups', () => {
    const pack = compiledPack(packToml(`[[rule]]\nid = "a"\nstate = "idle"\nregion = "screen"\nline_regex = ['\\Ax', '^y', '(?-m:^z)', '(?:a|b)c']`));

    expect(pack.rules[0]?.lineRegex.map((r) => r.setIndex)).toEqual([undefined, 0, undefined, 1]);
  });
});

/**
 * The Set prefilter must never change an answer. A reference evaluator (one RE2 per pattern,
 * per line, on strings) is compared with evaluatePack over many screens and patterns.
 */
describe('pack regexes', () => {
  it('are compiled once for the check and the compiled pack alike, rejected ones explained each time', () => {
    const pattern = 'shared-(once|twice)';
    const pack = compiledPack(packToml(`[[rule]]\nid = "a"\nstate = "idle"\nregion = "screen"\nregex = ['${pattern}']`));

    expect(pack.rules[0]?.regex[0]?.re).toBe(packRegex(pattern));
    expect(checkRegex('(?<=x)y')).toMatch(/look-behind/);
    expect(checkRegex('(?<=x)y')).toMatch(/look-behind/);
  });
});

describe('the RE2.Set prefilter', () => {
  const LINE_PATTERNS = ['^\\s*❯\\s*\\d\\.', '^>\\s', 'yes$', '^\\s*$', '\\bok\\b', 'é+', '^[·✢✳✶✻✽*] \\S', 'a.b', '(?:x|y)z', '\\d{2,}s'];
  const SCREENS: string[][] = [
    [' ❯ 1. Yes', '   2. No'],
    ['> typed', 'yes'],
    ['', 'ok then', 'x yz'],
    ['éé', 'a\tb', 'axb'],
    ['✻ Thinking… (12s · esc to interrupt)'],
    ['no', 'matches', 'here'],
    ['a', 'b'],
    [],
  ];

  function reference(kind: 'regex' | 'line_regex' | 'forbids_regex', pattern: string, rows: readonly string[]): boolean {
    const re = new RE2(pattern, 'iu');
    if (kind === 'regex') return re.test(rows.join('\n'));
    const some = rows.some((row) => re.test(row));
    return kind === 'line_regex' ? some : !some;
  }

  it('gives the same answer as matching each line on its own', () => {
    const kinds = ['regex', 'line_regex', 'forbids_regex'] as const;
    const rules = kinds.flatMap((kind) =>
      LINE_PATTERNS.map((pattern, i) => `[[rule]]\nid = "${kind}-${i}"\nstate = "idle"\nregion = "screen"\n${kind} = ['${pattern}']`),
    );
    const pack = compilePack(validPack(packToml(rules.join('\n\n'))));
    expect(pack.regions[0]?.set?.size).toBe(kinds.length * LINE_PATTERNS.length);

    for (const rows of SCREENS) {
      const matched = new Set(evaluatePack(pack, inputOf(rows)).matches.map((m) => m.ruleId));
      for (const kind of kinds) {
        LINE_PATTERNS.forEach((pattern, i) => {
          expect(matched.has(`${kind}-${i}`), `${kind} '${pattern}' on ${JSON.stringify(rows)}`).toBe(reference(kind, pattern, rows));
        });
      }
    }
  });
});
