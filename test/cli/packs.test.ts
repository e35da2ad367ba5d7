/**
 * `packs lint/list/test` and `status explain --file`, run in-process with a private environment
 * (helpers/cli-in-process.ts): what is checked is each command's output and exit code.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { runCliInProcess, type CliResult } from '../helpers/cli-in-process.js';

const LINT = 'test/fixtures-packs/lint';
const SHOWCASE = 'test/fixtures-packs/showcase';

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'agentwrap-packs-cli-'));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

function run(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCliInProcess(args, {
    cwd: ROOT,
    // A private HOME and pack dir so the user's own packs never leak into the assertions.
    env: { PATH: process.env['PATH'] ?? '', HOME: home, AGENTWRAP_PACKS: join(home, 'packs'), ...env },
  });
}

describe('packs lint', () => {
  it('prints four precise messages for four broken packs and exits 1', async () => {
    const result = await run(['packs', 'lint', `${LINT}/syntax-error.toml`, `${LINT}/unknown-key.toml`, `${LINT}/look-behind.toml`, `${LINT}/no-upper-bound.toml`]);

    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      `${LINT}/syntax-error.toml:4: TOML syntax error at column 1: expected comma or end of structure`,
      `${LINT}/unknown-key.toml:11: rule spinner: unknown key "forbid" (did you mean "forbids"?)`,
      `${LINT}/look-behind.toml:10: rule numbered-choice: line_regex: regex '(?<=❯ )1\\. Yes' uses look-behind \`(?<=\`, which RE2 does not support (invalid perl operator: (?<=)`,
      `${LINT}/no-upper-bound.toml:4: validated_versions ">=2.1.0" has no upper bound (write e.g. ">=2.1.0, <2.3.0")`,
      '4 files checked, 4 errors',
    ]);
  });

  it('passes a valid pack with exit 0', async () => {
    const result = await run(['packs', 'lint', `${SHOWCASE}/showcase.toml`]);

    expect(result.stdout).toContain(`${SHOWCASE}/showcase.toml: ok (agent showcase, 14 rules)`);
    expect(result.code).toBe(0);
  });

  it('with no file lints the bundled and user packs', async () => {
    const result = await run(['packs', 'lint'], { AGENTWRAP_PACKS: join(ROOT, LINT) });

    expect(result.stdout).toMatch(/packs\/demo\.toml: ok/);
    expect(result.stdout).toContain('unknown-key.toml:11: rule spinner');
    expect(result.code).toBe(1);
  });
});

describe('packs list', () => {
  it('counts as many verified packs of real agents as the README says, and names the demo agent\'s', async () => {
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
    const said = /the (\w+) verified packs of real agents/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))?.[1] ?? '';

    const rows = (await run(['packs', 'list'])).stdout.split('\n').filter((line) => / bundled /.test(line));
    const evidence = (agent: string): string => /\S+ +\S+ +\S+ +\S+ +.+? {2,}(\S.*?) {2,}\//.exec(rows.find((r) => r.startsWith(`${agent} `)) ?? '')?.[1] ?? '';

    expect(words.indexOf(said) + 1).toBe(rows.filter((r) => / verified {2,}\//.test(r)).length);
    expect(evidence('demo')).toBe('verified (the demo agent)');
    expect(evidence('claude')).toBe('verified');
  });

  it('shows each pack file with source, status, rules, range and the unverified flag', async () => {
    const result = await run(['packs', 'list', '--json'], { AGENTWRAP_PACKS: join(ROOT, SHOWCASE) });
    const listed = JSON.parse(result.stdout) as { packs: { agent: string; source: string; status: string; rules: number; unverified: boolean; validated_versions: string }[] };

    expect(result.code).toBe(0);
    expect(listed.packs.find((p) => p.agent === 'showcase')).toMatchObject({
      source: 'user',
      status: 'live',
      rules: 14,
      unverified: true,
      validated_versions: '>=1.0.0, <2.0.0',
    });
  });

  it('lists a broken user pack with its problems', async () => {
    const result = await run(['packs', 'list'], { AGENTWRAP_PACKS: join(ROOT, LINT) });

    expect(result.stdout).toMatch(/typo\s+user\s+invalid|\?\s+user\s+invalid/);
    expect(result.stdout).toContain('rule spinner: unknown key "forbid"');
  });
});

describe('packs test', () => {
  it('passes every showcase fixture against the showcase pack', async () => {
    const result = await run(['packs', 'test', SHOWCASE], { AGENTWRAP_PACKS: join(ROOT, SHOWCASE) });

    expect(result.stdout).toContain('PASS blocked_dialog.txt: blocked: blocked (rule dialog)');
    expect(result.stdout).toMatch(/15 passed, 0 failed/);
    expect(result.code).toBe(0);
  });

  it('fails with exit 1 when a fixture is misclassified', async () => {
    const dir = mkdtempSync(join(home, 'showcase-'));
    const agentDir = join(dir, 'showcase');
    spawnSync('mkdir', ['-p', agentDir]);
    copyFileSync(join(ROOT, SHOWCASE, 'working_title.txt'), join(agentDir, 'idle_title.txt'));

    const result = await run(['packs', 'test', dir], { AGENTWRAP_PACKS: join(ROOT, SHOWCASE) });

    expect(result.stdout).toContain('FAIL showcase/idle_title.txt: wanted idle, got working (rule title-spinner)');
    expect(result.code).toBe(1);
  });

  it('sweeps the bundled fixtures by default', async () => {
    const result = await run(['packs', 'test']);

    expect(result.stdout).toMatch(/PASS demo\//);
    expect(result.code).toBe(0);
  });
});

describe('status explain --file', () => {
  /** The documented winners of the worked example in docs/packs.md. */
  const WINNERS: readonly [string, string, string | null][] = [
    ['blocked_dialog.txt', 'blocked', 'dialog'],
    ['false_positive_quoted_dialog.txt', 'idle', 'prompt-box-empty'],
    ['blocked_password_cursor.txt', 'blocked', 'password'],
    ['blocked_press_enter.txt', 'blocked', 'press-enter'],
    ['blocked_caret_question.txt', 'blocked', 'caret-question'],
    ['working_title.txt', 'working', 'title-spinner'],
    ['working_progress.txt', 'working', 'progress-normal'],
    ['working_spinner_above_box.txt', 'working', 'spinner-above-box'],
    ['working_footer_interrupt.txt', 'working', 'footer-interrupt'],
    ['blocked_maintenance_banner.txt', 'blocked', 'maintenance-banner'],
    ['idle_worked_for_caret.txt', 'idle', 'worked-for'],
    ['idle_caret_placeholder.txt', 'idle', 'caret-placeholder'],
    ['idle_empty_prompt_box.txt', 'idle', 'prompt-box-empty'],
    ['idle_bottom_error.txt', 'idle', 'bottom-error'],
    ['false_positive_retrying_error.txt', 'unknown', null],
  ];

  it.each(WINNERS)('%s → %s by %s', async (file, state, ruleId) => {
    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/${file}`, '--pack', `${SHOWCASE}/showcase.toml`, '--json']);
    const json = JSON.parse(result.stdout) as { state: string; rule_id: string | null; rules: { id: string; matched: boolean }[] };

    expect(result.code).toBe(0);
    expect([json.state, json.rule_id]).toEqual([state, ruleId]);
    expect(json.rules).toHaveLength(14);
  });

  it('prints the documented JSON shape, with failed clauses and previews', async () => {
    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/false_positive_quoted_dialog.txt`, '--pack', `${SHOWCASE}/showcase.toml`, '--json']);
    const json = JSON.parse(result.stdout) as Record<string, unknown> & { rules: Record<string, unknown>[] };

    expect(json).toMatchObject({ agent: 'showcase', pack: { source: 'file', validated_versions: '>=1.0.0, <2.0.0', unverified: true }, state: 'idle', rule_id: 'prompt-box-empty' });
    expect(json.rules[0]).toMatchObject({
      id: 'dialog',
      state: 'blocked',
      priority: 900,
      region: 'bottom_nonempty:8',
      matched: false,
      strength: 'strong',
      failed_clause: `gate: gate.all[2].not: any(contains "(quoted)", line_regex '^\\s*>\\s') matched`,
    });
    expect(json.rules[0]?.['region_preview']).toContain('Do you want to make this edit');
    expect(json.rules.find((r) => r['id'] === 'screen-weak-idle')).toMatchObject({ matched: true, strength: 'weak' });
  });

  it('applies --title and --progress over the file', async () => {
    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/idle_bottom_error.txt`, '--pack', `${SHOWCASE}/showcase.toml`, '--title', '⠋ busy', '--json']);

    expect((JSON.parse(result.stdout) as { rule_id: string }).rule_id).toBe('title-spinner');
  });

  it('finds the pack by --agent in the registry and renders the human form', async () => {
    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/blocked_dialog.txt`, '--agent', 'showcase'], { AGENTWRAP_PACKS: join(ROOT, SHOWCASE) });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('state: blocked (rule dialog, strong, priority 900)');
    expect(result.stdout).toContain('✗ password  blocked · priority 880 · strong · cursor_line');
    expect(result.stdout).toContain('warning: this pack is marked unverified');
  });

  it('infers the agent from a fixtures/<agent>/ path', async () => {
    const result = await run(['status', 'explain', '--file', 'fixtures/demo/working_thinking_80x24.txt', '--json']);

    expect((JSON.parse(result.stdout) as { agent: string; state: string }).state).toBe('working');
  });

  it('the session form says clearly when no such session is running', async () => {
    const result = await run(['status', 'explain', 'some-session'], { AGENT_STATUS_DIR: join(home, 'status') });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no live agentwrap session matches "some-session"');
  });

  it('an unknown agent is an error naming the known ones', async () => {
    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/blocked_dialog.txt`, '--agent', 'nobody']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no pack for agent "nobody" \(known agents: .*demo/);
  });
});

describe('version warning', () => {
  it('notes an installed agent newer than validated_versions, without a warning', async () => {
    const bin = mkdtempSync(join(home, 'bin-'));
    const pkg = join(bin, 'node_modules', 'showcase');
    spawnSync('mkdir', ['-p', pkg]);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'showcase', version: '3.0.0' }));
    writeFileSync(join(pkg, 'cli.js'), '#!/bin/sh\n', { mode: 0o755 });
    spawnSync('ln', ['-s', join(pkg, 'cli.js'), join(bin, 'showcase')]);

    const result = await run(['status', 'explain', '--file', `${SHOWCASE}/blocked_dialog.txt`, '--pack', `${SHOWCASE}/showcase.toml`, '--json'], {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    });
    const json = JSON.parse(result.stdout) as { agent_version: { version: string; status: string }; notes: string[]; warnings: string[]; state: string };

    expect(json.agent_version).toMatchObject({ version: '3.0.0', status: 'newer' });
    expect(json.notes).toContainEqual(expect.stringContaining('showcase 3.0.0 is newer than the releases its pack was checked on (">=1.0.0, <2.0.0")'));
    expect(json.warnings.filter((w) => w.includes('3.0.0'))).toEqual([]);
    expect(json.state).toBe('blocked');
  });
});
