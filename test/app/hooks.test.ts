import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_HOOK_EVENTS, mergeClaudeSettings, planHooks, shellQuote, type HookPlan } from '../../src/app/hooks.js';

const REPORT = ['/usr/bin/node', '/opt/agent wrap/main.js'];
let tmp: string;
let plans: HookPlan[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'aw-hooks-'));
  plans = [];
});

afterEach(() => {
  for (const plan of plans) plan.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

function plan(agent: string, args: readonly string[], env: NodeJS.ProcessEnv = { CODEX_HOME: join(tmp, 'codex-home') }): HookPlan {
  const result = planHooks({ agent, args, env, reportCommand: REPORT, tmpRoot: tmp });
  plans.push(result);
  return result;
}

type Settings = { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; async?: boolean }[] }[]> };

function settingsOf(result: HookPlan): Settings {
  expect(result.args[0]).toBe('--settings');
  return JSON.parse(readFileSync(result.args[1] ?? '', 'utf8')) as Settings;
}

describe('claude: a --settings file of async hooks for this run only', () => {
  it('adds --settings <file> before the user\'s arguments, with one async report hook per event', () => {
    const result = plan('claude', ['--model', 'opus', 'fix the bug']);

    const settings = settingsOf(result);
    expect(result).toMatchObject({ installed: true, env: {}, events: CLAUDE_HOOK_EVENTS });
    expect(result.args.slice(2)).toEqual(['--model', 'opus', 'fix the bug']);
    expect(Object.keys(settings.hooks)).toEqual([...CLAUDE_HOOK_EVENTS]);
    const hook = settings.hooks['PermissionRequest']?.[0]?.hooks[0];
    expect(hook).toMatchObject({ type: 'command', async: true });
    expect(hook?.command).toBe("/usr/bin/node '/opt/agent wrap/main.js' report PermissionRequest --agent claude --source claude-hooks --json -");
  });

  it('writes the file privately (0600 in a 0700 directory) and removes it on dispose', () => {
    const result = plan('claude', []);
    const file = result.args[1] ?? '';

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    result.dispose();
    expect(existsSync(file)).toBe(false);
  });

  it('merges a user --settings file: their hooks first, then ours, and their other settings kept', () => {
    const user = join(tmp, 'user-settings.json');
    writeFileSync(user, JSON.stringify({ model: 'sonnet', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }));

    const result = plan('claude', ['-c', '--settings', user]);

    const settings = settingsOf(result) as Settings & { model?: string };
    expect(result.args.slice(2)).toEqual(['-c']);
    expect(settings.model).toBe('sonnet');
    expect(settings.hooks['Stop']?.map((group) => group.hooks[0]?.command)).toEqual(['say done', expect.stringContaining('report Stop')]);
    expect(result.note).toMatch(/merged/);
  });

  it('merges inline --settings=JSON too', () => {
    const result = plan('claude', ['--settings={"hooks":{"Notification":[{"hooks":[{"type":"command","command":"notify-send hi"}]}]}}']);

    expect(settingsOf(result).hooks['Notification']).toHaveLength(2);
  });

  it('installs nothing for subcommands, --help and --version, or unparsable --settings', () => {
    const results = [plan('claude', ['mcp', 'list']), plan('claude', ['--version']), plan('claude', ['--settings', '{not json'])];

    expect(results.map((r) => r.installed)).toEqual([false, false, false]);
    expect(results[0]?.args).toEqual(['mcp', 'list']);
    expect(results[2]?.note).toMatch(/no reporter hooks for claude/);
  });

  it('mergeClaudeSettings leaves a user hooks block that is not an object out of the merge', () => {
    expect(mergeClaudeSettings({ hooks: 'bogus' }, { Stop: [1] })).toEqual({ hooks: { Stop: [1] } });
  });
});

describe('codex: a notify override for this run only', () => {
  it('prepends -c notify=[…] whose last word is --json (Codex appends the event JSON)', () => {
    const result = plan('codex', ['--no-daemon']);

    expect(result.installed).toBe(true);
    expect(result.args).toEqual([
      '-c',
      'notify=["/usr/bin/node","/opt/agent wrap/main.js","report","notify","--agent","codex","--source","codex-notify","--json"]',
      '--no-daemon',
    ]);
  });

  it('keeps the user\'s own notify program: nothing installed when config.toml sets one', () => {
    mkdirSync(join(tmp, 'codex-home'));
    writeFileSync(join(tmp, 'codex-home', 'config.toml'), 'notify = ["notify-send", "codex"]\nmodel = "o3"\n');

    const result = plan('codex', []);

    expect(result).toMatchObject({ installed: false, args: [] });
    expect(result.note).toMatch(/your own notify/);
  });

  it('keeps a notify given with -c on the command line, and skips subcommands', () => {
    expect(plan('codex', ['-c', 'notify=["x"]']).installed).toBe(false);
    expect(plan('codex', ['login']).installed).toBe(false);
  });
});

describe('opencode: a plugin through OPENCODE_CONFIG_CONTENT', () => {
  it('adds the plugin by file URL in OPENCODE_CONFIG_CONTENT and leaves the arguments alone', () => {
    const result = plan('opencode', ['run', 'hi']);

    const config = JSON.parse(result.env['OPENCODE_CONFIG_CONTENT'] ?? '{}') as { plugin: string[] };
    expect(result.args).toEqual(['run', 'hi']);
    expect(config.plugin).toHaveLength(1);
    const source = readFileSync(fileURLToPath(config.plugin[0] ?? ''), 'utf8');
    expect(source).toContain('"permission.asked"');
    expect(source).toContain(JSON.stringify(REPORT));
  });

  it('merges with the user\'s own OPENCODE_CONFIG_CONTENT, keeping their plugins first', () => {
    const result = plan('opencode', [], { OPENCODE_CONFIG_CONTENT: JSON.stringify({ theme: 'x', plugin: ['their-plugin'] }) });

    const config = JSON.parse(result.env['OPENCODE_CONFIG_CONTENT'] ?? '{}') as { theme: string; plugin: string[] };
    expect(config.theme).toBe('x');
    expect(config.plugin[0]).toBe('their-plugin');
    expect(config.plugin[1]).toMatch(/^file:\/\/.*agentwrap-reporter\.js$/);
  });
});

describe('other agents', () => {
  it('get nothing (screens and /proc only)', () => {
    expect(plan('gemini', []).installed).toBe(false);
    expect(plan('/usr/local/bin/amp', []).installed).toBe(false);
  });

  it('shellQuote leaves plain words alone and single-quotes the rest', () => {
    expect(shellQuote('report')).toBe('report');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
