import { describe, expect, it } from 'vitest';
import {
  explainRegexError,
  PACK_LIMITS,
  parseVersionRange,
  RULE_ENGINE_VERSION,
  versionAdvice,
  versionStatus,
} from '../../../src/core/packs/schema.js';
import { packErrors, packToml, parseToml, validPack } from '../../helpers/pack-toml.js';

const RULE = `[[rule]]
id = "r1"
state = "working"
region = "bottom:5"
requires_all = ["esc to interrupt"]`;

describe('parsePack', () => {
  it('reads the architecture.md example pack, with its Cargo-style comma range', () => {
    const text = `schema_version = 1
agent = "claude"
commands = ["claude"]
validated_versions = ">=2.1.0, <2.3.0"
min_engine_version = 1

[[rule]]
id = "permission-dialog"
state = "blocked"
priority = 900
region = "bottom_nonempty:12"
strength = "strong"
requires_all = ["enter to confirm"]
requires_any = ["esc to cancel", "esc to reject"]
forbids = ["ctrl+o to expand"]
regex = ['do you want to \\w+']
line_regex = ['^\\s*❯\\s*\\d\\.']
forbids_regex = ['^>\\s']
gate = { any = [ { contains = "yes" }, { not = { line_regex = "^\\\\s*$" } } ] }
`;

    const pack = validPack(text);

    expect(pack.agent).toBe('claude');
    expect(pack.validatedVersions).toBe('>=2.1.0, <2.3.0');
    const rule = pack.rules[0];
    expect(rule?.region).toEqual({ kind: 'bottom_nonempty', rows: 12 });
    expect(rule?.requiresAny).toEqual(['esc to cancel', 'esc to reject']);
    expect(rule?.gate).toEqual({
      kind: 'any',
      gates: [{ kind: 'contains', text: 'yes' }, { kind: 'not', gate: { kind: 'line_regex', pattern: '^\\s*$' } }],
    });
    expect(rule?.line).toBe(7);
  });

  it('defaults priority to 0, strength to strong, unverified to false', () => {
    const pack = validPack(packToml(RULE));

    expect(pack.rules[0]?.priority).toBe(0);
    expect(pack.rules[0]?.strength).toBe('strong');
    expect(pack.unverified).toBe(false);
  });

  it('reads a rule\'s reason and leaves it out when none is given', () => {
    const pack = validPack(packToml(`${RULE}\nreason = "api-error (non-retryable)"\n\n[[rule]]\nid = "r2"\nstate = "idle"\nregion = "screen"\nrequires_all = ["x"]`));

    expect(pack.rules[0]?.reason).toBe('api-error (non-retryable)');
    expect(pack.rules[1]?.reason).toBeUndefined();
  });

  it('rejects a reason that is not a short one-line label', () => {
    for (const reason of ['"two\\nlines"', '"' + 'x'.repeat(65) + '"', '42', '""']) {
      expect(packErrors(packToml(`${RULE}\nreason = ${reason}`))).toContainEqual(expect.stringMatching(/rule r1: reason must be a short label/));
    }
  });

  it('reads a strong idle rule\'s idle_hold_ms and leaves it out when none is given', () => {
    const idle = '[[rule]]\nid = "footer"\nstate = "idle"\nregion = "screen"\nrequires_all = ["x"]\nmin_engine_version = 3';
    const pack = validPack(packToml(`${idle}\nidle_hold_ms = 0\n\n${RULE}`));

    expect(pack.rules.find((rule) => rule.id === 'footer')?.idleHoldMs).toBe(0);
    expect(pack.rules.find((rule) => rule.id === 'r1')?.idleHoldMs).toBeUndefined();
  });

  it('rejects an idle_hold_ms out of range, or on a rule that is not strong idle', () => {
    const idle = '[[rule]]\nid = "footer"\nstate = "idle"\nregion = "screen"\nrequires_all = ["x"]';
    for (const value of ['-1', '301', '1.5', '"0"']) {
      expect(packErrors(packToml(`${idle}\nidle_hold_ms = ${value}`))).toContainEqual(expect.stringMatching(/rule footer: idle_hold_ms must be an integer from 0 to 300/));
    }
    expect(packErrors(packToml(`${RULE}\nidle_hold_ms = 0`))).toContainEqual(expect.stringMatching(/rule r1: idle_hold_ms applies only to a strong idle rule \(this one is strong working\)/));
    expect(packErrors(packToml(`${idle}\nstrength = "weak"\nidle_hold_ms = 0`))).toContainEqual(expect.stringMatching(/idle_hold_ms applies only to a strong idle rule \(this one is weak idle\)/));
  });

  it('reads prompt_carets and the unverified flag', () => {
    const pack = validPack(packToml(RULE, { extra: 'prompt_carets = ["❯", ">", "›"]\nunverified = true' }));

    expect(pack.promptCarets).toEqual(['❯', '>', '›']);
    expect(pack.unverified).toBe(true);
  });

  it('reports a TOML syntax error with the line smol-toml gives', () => {
    const errors = packErrors('schema_version = 1\nagent = "x"\ncommands = ["a"\n');

    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^test\.toml:\d+: TOML syntax error at column \d+: /);
  });

  it('names an unterminated string as such, with its line', () => {
    expect(packErrors('schema_version = 1\nagent = "x\ncommands = ["x"]\n')).toEqual([
      'test.toml:2: TOML syntax error at column 9: unterminated string (no closing quote before the end of the line)',
    ]);
  });

  it('gives every error a line and lists them in file order', () => {
    const text = packToml('[[rule]]\nid = "a"\nstate = "sleepy"\npriority = 10\n\n[[rule]]\nid = "b"\nstate = "idle"\npriority = "high"\nbogus = 1');
    const result = parseToml(text);
    const errors = result.kind === 'invalid' ? result.errors : [];

    expect(errors.length).toBeGreaterThanOrEqual(6);
    expect(errors.every((e) => typeof e.line === 'number')).toBe(true);
    const lines = errors.map((e) => e.line ?? 0);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('puts a misspelt [[rules]] table and a pack without rules on a line', () => {
    expect(packErrors(packToml('[[rules]]\nid = "a"'))).toEqual([
      expect.stringMatching(/^test\.toml:1: pack has no \[\[rule\]\] tables/),
      expect.stringMatching(/^test\.toml:7: unknown top-level key "rules"/),
    ]);
  });

  it('rejects an unknown top-level key on its own line', () => {
    const errors = packErrors(packToml(RULE, { extra: 'colour = "red"' }));

    expect(errors).toEqual([expect.stringMatching(/^test\.toml:5: unknown top-level key "colour"/)]);
  });

  it('rejects an unknown rule key with the rule id and the key line', () => {
    const errors = packErrors(packToml(`${RULE}\nforbid = ["x"]`));

    expect(errors).toEqual([expect.stringMatching(/^test\.toml:12: rule r1: unknown key "forbid"/)]);
  });

  it('rejects wrong types', () => {
    const errors = packErrors(packToml(`[[rule]]\nid = "r"\nstate = "idle"\npriority = 1.5\nregion = "screen"\nrequires_all = "x"`));

    expect(errors.some((e) => e.includes('priority must be an integer, got a float'))).toBe(true);
    expect(errors.some((e) => e.includes('requires_all must be an array of strings, got a string'))).toBe(true);
  });

  it('rejects an empty id and a duplicate id', () => {
    const errors = packErrors(packToml(`${RULE}\n\n${RULE}\n\n[[rule]]\nid = ""\nstate = "idle"\nregion = "screen"\nforbids = ["x"]`));

    expect(errors).toContainEqual(expect.stringMatching(/^test\.toml:13: rule r1: duplicate rule id \(first defined at line 7\)/));
    expect(errors).toContainEqual(expect.stringMatching(/rule #3: id is empty/));
  });

  it('rejects a rule without matchers', () => {
    const errors = packErrors(packToml('[[rule]]\nid = "bare"\nstate = "idle"\nregion = "screen"'));

    expect(errors).toEqual(['test.toml:7: rule bare: rule has no matchers (add requires_all, requires_any, forbids, regex, line_regex, forbids_regex or gate)']);
  });

  it('names look-behind, look-ahead and backreferences that RE2 rejects', () => {
    const errors = packErrors(
      packToml(`[[rule]]\nid = "re"\nstate = "idle"\nregion = "screen"\nregex = ['(?<=a)b']\nline_regex = ['(a)\\1']\nforbids_regex = ['x(?!y)']`),
    );

    expect(errors).toContainEqual(expect.stringMatching(/^test\.toml:11: rule re: regex: regex '\(\?<=a\)b' uses look-behind `\(\?<=`/));
    expect(errors).toContainEqual(expect.stringMatching(/^test\.toml:12: rule re: line_regex: .* uses a backreference `\\1`/));
    expect(errors).toContainEqual(expect.stringMatching(/forbids_regex: .* uses look-ahead `\(\?!`/));
  });

  it('rejects a regex RE2 cannot parse for another reason, quoting RE2', () => {
    expect(explainRegexError('[a', new Error('missing ]: [a'))).toBe("regex '[a' is not valid RE2: missing ]: [a");
  });

  it('rejects validated_versions without an upper bound', () => {
    const errors = packErrors(packToml(RULE, { validatedVersions: '>=2.1.0' }));

    expect(errors).toEqual([expect.stringMatching(/^test\.toml:4: validated_versions ">=2\.1\.0" has no upper bound/)]);
  });

  it('rejects a gate nested deeper than the limit', () => {
    let gate = '{ contains = "x" }';
    for (let i = 0; i < PACK_LIMITS.maxGateDepth; i++) gate = `{ not = ${gate} }`;
    const errors = packErrors(packToml(`[[rule]]\nid = "deep"\nstate = "idle"\nregion = "screen"\ngate = ${gate}`));

    expect(errors).toEqual([expect.stringMatching(/rule deep: gate(\.not){16}: gate nested deeper than 16 levels/)]);
  });

  it('accepts a gate exactly at the depth limit', () => {
    let gate = '{ contains = "x" }';
    for (let i = 1; i < PACK_LIMITS.maxGateDepth; i++) gate = `{ not = ${gate} }`;

    expect(validPack(packToml(`[[rule]]\nid = "deep"\nstate = "idle"\nregion = "screen"\ngate = ${gate}`)).rules).toHaveLength(1);
  });

  it('rejects empty all/any gates and multi-key gate tables', () => {
    const errors = packErrors(packToml(`[[rule]]\nid = "g"\nstate = "idle"\nregion = "screen"\ngate = { all = [], any = [ { contains = "a" } ] }\n\n[[rule]]\nid = "h"\nstate = "idle"\nregion = "screen"\ngate = { any = [] }`));

    expect(errors).toContainEqual(expect.stringMatching(/rule g: gate must have exactly one of/));
    expect(errors).toContainEqual(expect.stringMatching(/rule h: gate\.any is empty \(it could never pass\)/));
  });

  it('rejects too many rules, too many matchers and too-long patterns', () => {
    const many = Array.from({ length: PACK_LIMITS.maxRules + 1 }, (_, i) => RULE.replace('"r1"', `"r${i}"`)).join('\n\n');
    const matchers = JSON.stringify(Array.from({ length: PACK_LIMITS.maxMatchersPerRule + 1 }, (_, i) => `m${i}`));
    const long = 'x'.repeat(PACK_LIMITS.maxPatternChars + 1);

    expect(packErrors(packToml(many))).toContainEqual(expect.stringMatching(/pack has 129 rules, more than the limit of 128/));
    expect(packErrors(packToml(`[[rule]]\nid = "m"\nstate = "idle"\nregion = "screen"\nrequires_any = ${matchers}`))).toContainEqual(
      expect.stringMatching(/rule m: rule has 33 matchers, more than the limit of 32/),
    );
    expect(packErrors(packToml(`[[rule]]\nid = "l"\nstate = "idle"\nregion = "screen"\nforbids = ["${long}"]`))).toContainEqual(
      expect.stringMatching(/rule l: forbids entry is longer than 512 characters/),
    );
  });

  it('counts gate leaves toward the matcher limit', () => {
    const leaves = Array.from({ length: PACK_LIMITS.maxMatchersPerRule + 1 }, (_, i) => `{ contains = "c${i}" }`).join(', ');

    expect(packErrors(packToml(`[[rule]]\nid = "g"\nstate = "idle"\nregion = "screen"\ngate = { any = [ ${leaves} ] }`))).toContainEqual(
      expect.stringMatching(/rule has 33 matchers/),
    );
  });

  it('rejects unknown regions and caret regions without prompt_carets', () => {
    const errors = packErrors(
      packToml(`[[rule]]\nid = "a"\nstate = "idle"\nregion = "bottom"\nforbids = ["x"]\n\n[[rule]]\nid = "b"\nstate = "idle"\nregion = "last_prompt_marker"\nforbids = ["x"]\n\n[[rule]]\nid = "c"\nstate = "idle"\nregion = "middle"\nforbids = ["x"]`),
    );

    expect(errors).toContainEqual(expect.stringMatching(/rule a: region "bottom" needs a row count, e\.g\. "bottom:10"/));
    expect(errors).toContainEqual(expect.stringMatching(/rule b: region "last_prompt_marker" needs the pack's top-level prompt_carets/));
    expect(errors).toContainEqual(expect.stringMatching(/rule c: unknown region "middle"/));
  });

  it('skips a pack that needs a newer engine before looking at its keys', () => {
    const result = parseToml(packToml(RULE, { extra: `min_engine_version = ${RULE_ENGINE_VERSION + 1}\nfuture_key = 1` }));

    expect(result.kind).toBe('needs-newer-engine');
    if (result.kind !== 'needs-newer-engine') return;
    expect(result.agent).toBe('test');
    expect(result.issue.message).toBe(`pack needs rule engine v${RULE_ENGINE_VERSION + 1}, this agentwrap has v${RULE_ENGINE_VERSION}; skipped`);
  });

  it('skips only the rule that needs a newer engine, with a warning', () => {
    const result = parseToml(packToml(`${RULE}\n\n[[rule]]\nid = "future"\nmin_engine_version = 99\nstate = "idle"\nregion = "hologram"\nnew_matcher = ["x"]`));

    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    expect(result.pack.rules.map((r) => r.id)).toEqual(['r1']);
    expect(result.pack.skippedRules).toEqual([{ id: 'future', minEngineVersion: 99, line: 13 }]);
    expect(result.warnings.map((w) => w.message)).toEqual([`rule needs rule engine v99, this agentwrap has v${RULE_ENGINE_VERSION}; rule skipped`]);
  });

  it('collects several errors from one file instead of stopping at the first', () => {
    const errors = packErrors(packToml(`${RULE}\ncolour = "x"\nregex = ['(?<=a)b']`, { validatedVersions: '>=1.0.0', extra: 'bogus = 1' }));

    expect(errors).toHaveLength(4);
  });
});

describe('parseVersionRange', () => {
  it.each([
    ['>=2.1.0, <2.3.0', true],
    ['>=2.1.0 <2.3.0', true],
    ['^2.1.0', true],
    ['~2.1', true],
    ['2.x', true],
    ['2.1.3', true],
    ['<3', true],
    ['>=2.1.0', false],
    ['*', false],
    ['>=1 <2 || >=3', false],
    ['garbage', false],
    ['', false],
  ])('%s → bounded %s', (range, ok) => {
    expect(parseVersionRange(range).ok).toBe(ok);
  });
});

describe('versionStatus', () => {
  it.each([
    ['2.1.5', '>=2.1.0, <2.3.0', 'inside'],
    ['2.3.0', '>=2.1.0, <2.3.0', 'newer'],
    ['2.1.337', '>=2.1.282, <=2.1.332', 'newer'],
    ['2.0.9', '>=2.1.0, <2.3.0', 'older'],
    ['1.5.0', '>=1.0.0 <1.2.0 || >=2.0.0 <2.1.0', 'between'],
    ['v2.2.0 (Claude Code)', '>=2.1.0, <2.3.0', 'inside'],
    ['nonsense', '>=2.1.0, <2.3.0', 'unparsable'],
  ])('%s in %s is %s', (version, range, status) => {
    expect(versionStatus(version, range)).toBe(status);
  });
});

describe('versionAdvice', () => {
  it('calls a newer release a note with what to do, and the others warnings', () => {
    const newer = versionAdvice('claude', '2.1.337', '>=2.1.282, <=2.1.332', 'newer');
    const older = versionAdvice('claude', '2.0.1', '>=2.1.282, <=2.1.332', 'older');

    expect(versionAdvice('claude', '2.1.300', '>=2.1.282, <=2.1.332', 'inside')).toBeUndefined();
    expect(newer).toMatchObject({ level: 'note' });
    expect(newer?.text).toBe('claude 2.1.337 is newer than the releases its pack was checked on (">=2.1.282, <=2.1.332"); newer releases usually still match');
    expect(newer?.todo).toContain('agentwrap status capture');
    expect(newer?.todo).toContain('`npm run drift -- --agent claude --version 2.1.337`');
    expect(older).toMatchObject({ level: 'warning' });
    expect(older?.text).toContain('older than every release');
    expect(versionAdvice('x', '1.5.0', '>=1.0.0 <1.2.0 || >=2.0.0 <2.1.0', 'between')?.level).toBe('warning');
    expect(versionAdvice('x', 'nonsense', '>=1.0.0 <1.2.0', 'unparsable')?.level).toBe('warning');
  });
});
