/**
 * Hostile packs: every validation error the schema can report, through the registry's real
 * file loader (each message names the file, the line and the rule, and says why); regexes RE2
 * refuses; packs past every size limit and at them; gates nested to the limit and far beyond;
 * and a user pack edited to garbage while a session uses it (the last good version stays live,
 * and `status explain` says so in its pack notes).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchWrapped } from '../../src/app/launch/launch.js';
import { attachLiveSession, syntheticSessionId } from '../../src/app/live/live-session.js';
import { loadPackFile } from '../../src/app/pack-registry.js';
import { createVirtualTerminal } from '../../src/app/virtual-terminal.js';
import { evaluatePack } from '../../src/core/packs/evaluate.js';
import { PACK_LIMITS } from '../../src/core/packs/schema.js';
import { RULE_ENGINE_VERSION } from '../../src/core/packs/types.js';
import { packToml } from '../helpers/pack-toml.js';
import { runCli, runCliAsync, sleep } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-robust-packs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function load(text: string): ReturnType<typeof loadPackFile> & { path: string } {
  const path = join(dir, `p${++fileCount}.toml`);
  writeFileSync(path, text);
  return { ...loadPackFile(path, 'user'), path };
}

const RULE = (body: string, id = 'r1'): string => `[[rule]]\nid = "${id}"\nstate = "working"\nregion = "bottom:5"\n${body}`;
const OK_RULE = RULE('requires_all = ["esc to interrupt"]');

/** [what is wrong, pack text, what the message must say, the line it must name (when known)]. */
const INVALID: readonly [string, string, RegExp, number | undefined][] = [
  ['TOML syntax', 'schema_version = 1\nagent = "x\n', /TOML syntax error at column \d+/, 2],
  ['unknown top-level key', packToml(OK_RULE, { extra: 'agnet = "x"' }), /unknown top-level key "agnet"/, 5],
  ['schema_version missing', packToml(OK_RULE).replace('schema_version = 1\n', ''), /schema_version is required/, 1],
  ['schema_version wrong', packToml(OK_RULE).replace('schema_version = 1', 'schema_version = 2'), /schema_version must be 1, got 2/, 1],
  ['agent missing', packToml(OK_RULE).replace('agent = "test"\n', ''), /agent is required/, 1],
  ['agent not a string', packToml(OK_RULE).replace('agent = "test"', 'agent = 3'), /agent must be a string, got an integer/, 2],
  ['agent with capitals', packToml(OK_RULE, { agent: 'Claude' }), /agent "Claude" must be lowercase/, 2],
  ['commands missing', packToml(OK_RULE).replace('commands = ["test-agent"]\n', ''), /commands is required/, 1],
  ['commands empty', packToml(OK_RULE, { commands: '[]' }), /commands is empty/, 3],
  ['commands too many', packToml(OK_RULE, { commands: JSON.stringify(Array.from({ length: 17 }, (_, i) => `c${i}`)) }), /commands has more than 16 entries/, 3],
  ['command with a slash', packToml(OK_RULE, { commands: '["/usr/bin/claude"]' }), /must be a bare executable name/, 3],
  ['command not a string', packToml(OK_RULE, { commands: '[1]' }), /commands\[0\] must be a string, got an integer/, 3],
  ['validated_versions missing', packToml(OK_RULE).replace(/validated_versions = .*\n/, ''), /validated_versions is required/, 1],
  ['validated_versions not a string', packToml(OK_RULE).replace(/validated_versions = .*/, 'validated_versions = 2'), /validated_versions must be a string/, 4],
  ['validated_versions without upper bound', packToml(OK_RULE, { validatedVersions: '>=1.0.0' }), /upper bound/, 4],
  ['validated_versions not semver', packToml(OK_RULE, { validatedVersions: 'banana' }), /validated_versions/, 4],
  ['min_engine_version not an integer', packToml(OK_RULE, { extra: 'min_engine_version = "new"' }), /min_engine_version must be a positive integer, got a string/, 5],
  ['prompt_carets too many', packToml(OK_RULE, { extra: `prompt_carets = ${JSON.stringify('abcdefghi'.split(''))}` }), /prompt_carets has more than 8 entries/, 5],
  ['prompt caret with a space', packToml(OK_RULE, { extra: 'prompt_carets = ["> "]' }), /prompt_carets entry "> " must be 1–4 characters without spaces/, 5],
  ['unverified not a boolean', packToml(OK_RULE, { extra: 'unverified = "yes"' }), /unverified must be true or false, got a string/, 5],
  ['description not a string', packToml(OK_RULE, { extra: 'description = 5' }), /description must be a string, got an integer/, 5],
  ['no rules', packToml(''), /pack has no \[\[rule\]\] tables/, undefined],
  ['rule not an array of tables', packToml('', { extra: 'rule = 5' }), /rule must be an array of tables/, 5],
  ['too many rules', packToml(Array.from({ length: 129 }, (_, i) => RULE('requires_all = ["x"]', `r${i}`)).join('\n')), /pack has 129 rules, more than the limit of 128/, undefined],
  ['duplicate rule id', packToml(`${OK_RULE}\n${OK_RULE}`), /rule r1: duplicate rule id \(first defined at line 7\)/, 12],
  ['rule not a table', packToml('', { extra: 'rule = [1]' }), /rule #1 must be a table, got an integer/, undefined],
  ['unknown rule key', packToml(RULE('requires_all = ["x"]\nforbid = ["y"]')), /rule r1: unknown key "forbid" \(did you mean "forbids"\?\)/, 12],
  ['id missing', packToml(RULE('requires_all = ["x"]').replace('id = "r1"\n', '')), /rule #1: id is required/, 7],
  ['id not a string', packToml(RULE('requires_all = ["x"]').replace('id = "r1"', 'id = 7')), /id must be a string, got an integer/, 8],
  ['id empty', packToml(RULE('requires_all = ["x"]', '')), /id is empty/, 8],
  ['id too long', packToml(RULE('requires_all = ["x"]', 'a'.repeat(65))), /id is longer than 64 characters/, 8],
  ['id with spaces', packToml(RULE('requires_all = ["x"]', 'my rule')), /id "my rule" may use only letters/, 8],
  ['state missing', packToml(RULE('requires_all = ["x"]').replace('state = "working"\n', '')), /state is required/, 7],
  ['state unknown', packToml(RULE('requires_all = ["x"]').replace('"working"', '"busy"')), /state must be one of working, blocked, idle, freeze, got "busy"/, 9],
  ['priority not an integer', packToml(RULE('requires_all = ["x"]\npriority = 1.5')), /priority must be an integer, got a float/, 12],
  ['region missing', packToml(RULE('requires_all = ["x"]').replace('region = "bottom:5"\n', '')), /region is required/, 7],
  ['region not a string', packToml(RULE('requires_all = ["x"]').replace('"bottom:5"', '5')), /region must be a string, got an integer/, 10],
  ['region unknown', packToml(RULE('requires_all = ["x"]').replace('bottom:5', 'middle')), /unknown region "middle"/, 10],
  ['region count missing', packToml(RULE('requires_all = ["x"]').replace('bottom:5', 'bottom')), /region "bottom" needs a row count/, 10],
  ['region count out of range', packToml(RULE('requires_all = ["x"]').replace('bottom:5', 'bottom:1001')), /N must be between 1 and 1000/, 10],
  ['region count not a number', packToml(RULE('requires_all = ["x"]').replace('bottom:5', 'bottom:-1')), /N must be a positive integer/, 10],
  ['caret region without carets', packToml(RULE('requires_all = ["x"]').replace('bottom:5', 'last_prompt_marker')), /needs the pack's top-level prompt_carets/, 10],
  ['strength unknown', packToml(RULE('requires_all = ["x"]\nstrength = "medium"')), /strength must be "strong" or "weak", got "medium"/, 12],
  ['rule description not a string', packToml(RULE('requires_all = ["x"]\ndescription = []')), /description must be a string, got an array/, 12],
  ['matcher list not an array', packToml(RULE('requires_all = "x"')), /requires_all must be an array of strings, got a string/, 11],
  ['matcher entry not a string', packToml(RULE('forbids = [1]\nrequires_all = ["x"]')), /forbids\[0\] must be a string, got an integer/, 11],
  ['matcher empty string', packToml(RULE('requires_any = [""]')), /requires_any has an empty string \(it would match everything\)/, 11],
  ['matcher too long', packToml(RULE(`requires_all = ["${'x'.repeat(513)}"]`)), /requires_all entry is longer than 512 characters/, 11],
  ['no matchers', packToml(RULE('')), /rule has no matchers/, 7],
  ['too many matchers', packToml(RULE(`requires_any = ${JSON.stringify(Array.from({ length: 33 }, (_, i) => `m${i}`))}`)), /rule has 33 matchers, more than the limit of 32/, 7],
  ['rule min_engine_version not an integer', packToml(RULE('requires_all = ["x"]\nmin_engine_version = 0')), /min_engine_version must be a positive integer, got an integer 0/, 12],
  ['gate not a table', packToml(RULE('gate = "x"')), /gate must be a table like \{ contains = "…" \}, got a string/, 11],
  ['gate with two keys', packToml(RULE('gate = { contains = "a", regex = "b" }')), /gate must have exactly one of all, any, not, contains, regex, line_regex; got contains, regex/, 11],
  ['gate with no key', packToml(RULE('gate = {}')), /gate must have exactly one of .*; got none/, 11],
  ['gate unknown key', packToml(RULE('gate = { has = "a" }')), /gate: unknown gate key "has"/, 11],
  ['gate all not an array', packToml(RULE('gate = { all = "a" }')), /gate\.all must be an array of gates, got a string/, 11],
  ['gate all empty', packToml(RULE('gate = { all = [] }')), /gate\.all is empty \(it would always pass\)/, 11],
  ['gate any empty', packToml(RULE('gate = { any = [] }')), /gate\.any is empty \(it could never pass\)/, 11],
  ['gate leaf not a string', packToml(RULE('gate = { contains = 1 }')), /gate\.contains must be a string, got an integer/, 11],
  ['gate leaf empty', packToml(RULE('gate = { not = { contains = "" } }')), /gate\.not\.contains is an empty string/, 11],
  ['gate leaf too long', packToml(RULE(`gate = { contains = "${'y'.repeat(513)}" }`)), /gate\.contains is longer than 512 characters/, 11],
  ['gate nested too deep', packToml(RULE(`gate = ${'{ not = '.repeat(17)}{ contains = "a" }${' }'.repeat(17)}`)), /gate nested deeper than 16 levels/, 11],
];

/** Regexes RE2 refuses (linear time: no look-around, backreferences, atomic or possessive). */
const RE2_REJECTS: readonly [string, RegExp][] = [
  ['(?=a)b', /uses look-ahead `\(\?=`, which RE2 does not support/],
  ['(?<!a)b', /uses look-behind `\(\?<!`, which RE2 does not support/],
  ['(a)\\1', /uses a backreference `\\1`/],
  ['(?>ab)', /uses an atomic group `\(\?>`/],
  ['a++', /uses a possessive quantifier `\+\+`/],
  ['(unclosed', /is not valid RE2: .*missing \)/],
  ['[z-a]', /is not valid RE2: .*invalid character class range/],
  ['\\p{NotAScript}', /is not valid RE2/],
  ['a{1001}', /is not valid RE2: .*invalid repetition size/],
  ['((((a{100}){100}){100}){100})', /is not valid RE2: .*invalid repetition size/],
];

describe('hostile packs through the registry loader', () => {
  it.each(INVALID)('refuses a pack with %s, naming file, line and reason', (_what, text, message, line) => {
    const loaded = load(text);

    expect(loaded.status).toBe('invalid');
    expect(loaded.pack).toBeUndefined();
    const problem = loaded.problems.find((p) => message.test(p));
    expect(problem, loaded.problems.join('\n')).toBeDefined();
    expect(problem?.startsWith(line === undefined ? `${loaded.path}:` : `${loaded.path}:${line}:`), problem).toBe(true);
  });

  it.each(RE2_REJECTS)('refuses the regex %s in every place a regex can go, saying why', (pattern, message) => {
    const literal = `'${pattern}'`;
    for (const body of [`regex = [${literal}]`, `line_regex = [${literal}]`, `forbids_regex = [${literal}]\nrequires_all = ["x"]`, `gate = { not = { line_regex = ${literal} } }`]) {
      const loaded = load(packToml(RULE(body)));
      expect(loaded.status, body).toBe('invalid');
      expect(loaded.problems.some((p) => message.test(p) && p.includes(' rule r1: ')), loaded.problems.join('\n')).toBe(true);
    }
  });

  it('says a pack for a newer engine is skipped, not misread, and keeps rules for this one', () => {
    const newer = load(packToml(OK_RULE, { extra: 'min_engine_version = 99' }));
    expect(newer.status).toBe('needs-newer-engine');
    expect(newer.problems[0]).toMatch(new RegExp(`pack needs rule engine v99, this agentwrap has v${RULE_ENGINE_VERSION}; skipped`));

    const mixed = load(packToml(`${OK_RULE}\n${RULE('requires_all = ["y"]\nmin_engine_version = 5\nfuture_key = 1', 'r2')}`));
    expect(mixed.status).toBe('ok');
    expect(mixed.pack?.compiled.pack.rules.map((r) => r.id)).toEqual(['r1']);
    expect(mixed.problems.join('\n')).toMatch(new RegExp(`rule r2: rule needs rule engine v5, this agentwrap has v${RULE_ENGINE_VERSION}; rule skipped`));
  });

  it('refuses an enormous pack by its size before parsing it, and an absent or unreadable file by name', () => {
    const huge = load(`# ${'x'.repeat(PACK_LIMITS.maxPackBytes)}\n${packToml(OK_RULE)}`);
    expect(huge.status).toBe('invalid');
    expect(huge.problems).toEqual([`${huge.path}: pack is ${Buffer.byteLength(readFileSync(huge.path))} bytes, more than the limit of ${PACK_LIMITS.maxPackBytes}`]);

    const absent = loadPackFile(join(dir, 'nope.toml'), 'user');
    expect(absent.problems[0]).toMatch(/nope\.toml: cannot read pack: ENOENT/);
    const directory = join(dir, 'dir.toml');
    mkdirSync(directory);
    expect(loadPackFile(directory, 'user').problems[0]).toMatch(/dir\.toml: pack file is a directory, not a regular file; not read/);
  });

  it('loads and evaluates a pack at its limits: 128 rules of 32 matchers, 512-character patterns, 16-deep gates', () => {
    const deepGate = `${'{ not = { not = '.repeat(7)}{ line_regex = '${'\\w'.repeat(256)}' }${' } }'.repeat(7)}`;
    const rules = Array.from({ length: PACK_LIMITS.maxRules }, (_, i) =>
      RULE(
        i === 0
          ? `requires_any = ["${'p'.repeat(PACK_LIMITS.maxPatternChars)}"]\ngate = ${deepGate}`
          : `requires_any = ${JSON.stringify(Array.from({ length: PACK_LIMITS.maxMatchersPerRule }, (_, j) => `m${i}-${j}`))}`,
        `rule-${i}`,
      ),
    );
    const text = packToml(rules.join('\n'));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PACK_LIMITS.maxPackBytes);
    const loaded = load(text);
    expect(loaded.status, loaded.problems.slice(0, 3).join('\n')).toBe('ok');

    const rows = [`${'p'.repeat(PACK_LIMITS.maxPatternChars)} ${'w'.repeat(300)}`, ...Array.from({ length: 40 }, (_, i) => `m${i + 1}-31 ${'x'.repeat(200)}`)];
    const screen = { rows: rows.slice(-5), cols: 900, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1 };
    const verdict = evaluatePack(loaded.pack!.compiled, { screen, title: undefined, progress: undefined });
    expect(verdict.matches.map((m) => m.ruleId)).toEqual(['rule-36', 'rule-37', 'rule-38', 'rule-39', 'rule-40']);
    const first = evaluatePack(loaded.pack!.compiled, { screen: { ...screen, rows: rows.slice(0, 1) }, title: undefined, progress: undefined });
    expect(first.winner?.ruleId).toBe('rule-0');
  });

  it('reports TOML nested thousands of levels deep as an error instead of overflowing the stack', () => {
    const deepTable = load(packToml(RULE(`gate = ${'{ not = '.repeat(5000)}{ contains = "a" }${' }'.repeat(5000)}`)));
    expect(deepTable.status).toBe('invalid');
    expect(deepTable.problems.join('\n')).toMatch(/TOML syntax error|nested deeper/);

    const deepArray = load(`${packToml(OK_RULE)}\nx = ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    expect(deepArray.status).toBe('invalid');
  });

  it('`packs lint` prints each problem as FILE:LINE: rule ID: reason and exits 1', () => {
    const path = join(dir, 'lint.toml');
    writeFileSync(path, packToml(`${RULE("regex = ['(?=x)']")}\n${RULE('requires_all = ["y"]', 'r1')}`));

    const result = runCli(['packs', 'lint', path], {});

    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).toMatch(new RegExp(`${path}:11: rule r1: regex: regex '\\(\\?=x\\)' uses look-ahead`));
    expect(result.stdout + result.stderr).toMatch(new RegExp(`${path}:12: rule r1: duplicate rule id`));
  });
});

describe('a user pack edited to garbage while a session uses it', () => {
  it('keeps the last good version live, says so in status explain, and picks up the repaired file', async () => {
    const packsDir = join(dir, 'user-packs');
    const root = join(dir, 'state');
    mkdirSync(packsDir);
    const packPath = join(packsDir, 'robust.toml');
    const goodPack = packToml(RULE('requires_all = ["robust-marker"]', 'marker-working').replace('bottom:5', 'bottom_nonempty:5'), { agent: 'robust', commands: '["robust-agent"]' });
    writeFileSync(packPath, goodPack);
    const env = { ...process.env, AGENTWRAP_PACKS: packsDir, AGENT_STATUS_DIR: root };
    const terminal = createVirtualTerminal({ cols: 80, rows: 24 });
    const launched = launchWrapped({ file: '/bin/sh', args: ['-c', 'echo robust-marker; sleep 30'], env, terminal, forwardSignals: false });
    const warnings: string[] = [];
    const live = attachLiveSession({
      launched, command: 'sh', args: [], packAgent: 'robust', sessionId: syntheticSessionId(process.pid, Date.now()), env, cwd: dir,
      record: undefined, notify: false, onStateCommand: undefined, warn: (m) => warnings.push(m),
    });
    type Explain = { pack: { pack: { source: string; path: string } }; pack_notes: string[]; rule_id: string | null; state: string };
    const explain = async (): Promise<Explain> => {
      const result = await runCliAsync(['status', 'explain', live.key, '--json'], { AGENT_STATUS_DIR: root });
      if (result.status !== 0) throw new Error(result.stderr);
      return JSON.parse(result.stdout) as never;
    };
    try {
      await waitFor(() => live.detector.state.session.ruleId === 'marker-working', 10_000).catch((e: unknown) => {
        throw new Error(`${String(e)} ${JSON.stringify(live.detector.state.session)} ${warnings.join('|')} ${JSON.stringify(live.detector.snapshot().screen.rows.slice(0, 3))}`);
      });

      writeFileSync(packPath, 'schema_version = 1\nagent = "robust"\n[[rule]\ngarbage garbage\n');
      // mtime granularity: make sure the edit is seen as one even within the same millisecond.
      utimesSync(packPath, new Date(), new Date(Date.now() + 5_000));
      let during = await explain();
      for (let i = 0; i < 50 && !during.pack_notes.some((n) => n.includes('is invalid after an edit')); i++) {
        await sleep(200);
        during = await explain();
      }

      expect(during.pack.pack.source).toBe('user');
      expect(during.pack.pack.path).toBe(packPath);
      expect(during.pack_notes).toContain(`${packPath} is invalid after an edit; keeping the last good version live`);
      expect(during.pack_notes.some((n) => n.startsWith(`${packPath}:3: TOML syntax error`))).toBe(true);
      expect(live.detector.state.session.ruleId).toBe('marker-working');
      expect(warnings.join('\n')).toContain('keeping the last good version live');

      writeFileSync(packPath, goodPack.replace('marker-working', 'marker-again'));
      utimesSync(packPath, new Date(), new Date(Date.now() + 10_000));
      await waitFor(() => live.detector.currentPack?.compiled.pack.rules[0]?.id === 'marker-again', 10_000);
      expect((await explain()).pack_notes).toContain(`reloaded ${packPath} (agent robust)`);
    } finally {
      launched.kill('SIGTERM');
      await launched.exited;
      await live.closed;
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}
