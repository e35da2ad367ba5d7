import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GEMINI_HOOKS, QWEN_HOOKS, SETTINGS_HOOK_NAME, systemDefaultsPath } from '../../../src/app/reporters/settings-hooks.js';
import { spoolHookLine } from '../../../src/app/reporters/hook-spool.js';
import { planHooks, type HookPlan } from '../../../src/app/reporters/hooks.js';
import { startReportSink } from '../../helpers/report-sink.js';

let tmp: string;
let plans: HookPlan[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'aw-gemini-hooks-'));
  plans = [];
});

afterEach(() => {
  for (const plan of plans) plan.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

/** A machine without system settings of its own unless a test writes some. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { HOME: join(tmp, 'home'), GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(tmp, 'etc', 'settings.json'), ...extra };
}

async function plan(args: readonly string[], environment: NodeJS.ProcessEnv = env(), agent = 'gemini'): Promise<HookPlan> {
  const result = await planHooks({ agent, args, env: environment, reportCommand: ['/usr/bin/true'], tmpRoot: join(tmp, 'run') });
  plans.push(result);
  return result;
}

type Defaults = Record<string, unknown> & { hooks: Record<string, { hooks: { type: string; name: string; command: string; timeout: number; async?: boolean }[] }[]> };

function defaultsOf(result: HookPlan, variable = 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH'): { file: string; defaults: Defaults } {
  const file = result.env[variable] ?? '';
  return { file, defaults: JSON.parse(readFileSync(file, 'utf8')) as Defaults };
}

beforeEach(() => {
  mkdirSync(join(tmp, 'run'));
});

describe('gemini: a system-defaults file of its own, named in the environment, for this run only', () => {
  it('points GEMINI_CLI_SYSTEM_DEFAULTS_PATH at a private file with one named spool hook per event, arguments untouched', async () => {
    const result = await plan(['--model', 'x']);

    const { file, defaults } = defaultsOf(result);
    expect(result).toMatchObject({ installed: true, args: ['--model', 'x'], events: GEMINI_HOOKS.events });
    expect(Object.keys(result.env)).toEqual(['GEMINI_CLI_SYSTEM_DEFAULTS_PATH']);
    expect(Object.keys(defaults.hooks)).toEqual([...GEMINI_HOOKS.events]);
    for (const event of GEMINI_HOOKS.events) {
      expect(defaults.hooks[event]).toEqual([{ hooks: [{ type: 'command', name: SETTINGS_HOOK_NAME, command: spoolHookLine(join(dirname(file), 'reports'), event), timeout: 5000 }] }]);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('keeps the machine\'s own system defaults (their hooks first, their other settings) and leaves that file and ~/.gemini as they were', async () => {
    const machine = join(tmp, 'etc', 'system-defaults.json');
    mkdirSync(dirname(machine));
    const theirs = { ui: { theme: 'Dracula' }, hooks: { Notification: [{ hooks: [{ type: 'command', command: 'notify-send gemini' }] }], BeforeModel: [] } };
    writeFileSync(machine, JSON.stringify(theirs));
    mkdirSync(join(tmp, 'home', '.gemini'), { recursive: true });
    writeFileSync(join(tmp, 'home', '.gemini', 'settings.json'), '{"hooks":{}}');

    const result = await plan([]);
    const { defaults } = defaultsOf(result);
    result.dispose();

    expect(defaults.ui).toEqual({ theme: 'Dracula' });
    expect(defaults.hooks['BeforeModel']).toEqual([]);
    expect(defaults.hooks['Notification']?.map((group) => group.hooks[0]?.command.startsWith('notify-send'))).toEqual([true, false]);
    expect(readFileSync(machine, 'utf8')).toBe(JSON.stringify(theirs));
    expect(readFileSync(join(tmp, 'home', '.gemini', 'settings.json'), 'utf8')).toBe('{"hooks":{}}');
    expect(readdirSync(join(tmp, 'run'))).toEqual([]);
  });

  it('reads the system defaults where Gemini CLI does: its own variable first, then beside the system settings', () => {
    expect(systemDefaultsPath(GEMINI_HOOKS, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: '/opt/d.json', GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/x/s.json' })).toBe('/opt/d.json');
    expect(systemDefaultsPath(GEMINI_HOOKS, { GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/x/s.json' })).toBe('/x/system-defaults.json');
    expect(systemDefaultsPath(GEMINI_HOOKS, {}, 'linux')).toBe('/etc/gemini-cli/system-defaults.json');
    expect(systemDefaultsPath(GEMINI_HOOKS, {}, 'darwin')).toBe('/Library/Application Support/GeminiCli/system-defaults.json');
    expect(systemDefaultsPath(QWEN_HOOKS, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: '/opt/d.json' }, 'linux')).toBe('/etc/qwen-code/system-defaults.json');
    expect(systemDefaultsPath(QWEN_HOOKS, { QWEN_CODE_SYSTEM_SETTINGS_PATH: '/q/s.json' })).toBe('/q/system-defaults.json');
  });

  it('adds nothing for subcommands, and says why when the machine\'s system defaults cannot be read as JSON', async () => {
    expect((await plan(['mcp', 'list'])).installed).toBe(false);
    const broken = join(tmp, 'broken.json');
    writeFileSync(broken, '[1, 2]');

    const result = await plan([], env({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: broken }));

    expect(result).toMatchObject({ installed: false, env: {} });
    expect(result.note).toContain(broken);
  });

  it('delivers what the hooks spooled to the session socket as gemini-hooks reports', async () => {
    const sink = await startReportSink(tmp);
    try {
      const result = await plan([]);
      const { defaults } = defaultsOf(result);
      result.start({ controlPath: sink.controlPath, warn: () => undefined });
      const hook = spawnSync('/bin/sh', ['-c', defaults.hooks['Notification']?.[0]?.hooks[0]?.command ?? 'false'], {
        input: JSON.stringify({ hook_event_name: 'Notification', notification_type: 'ToolPermission', session_id: 'g-1', message: 'secret', details: { command: 'ls' } }),
        encoding: 'utf8',
        timeout: 20_000,
      });
      await expect.poll(() => sink.reports.length, { timeout: 5000, interval: 20 }).toBe(1);

      // Gemini CLI parses a hook's stdout as its decision: ours prints nothing and exits 0.
      expect([hook.status, hook.stdout, hook.stderr]).toEqual([0, '', '']);
      expect(sink.reports[0]).toMatchObject({ event: 'Notification', agent: 'gemini', source: 'gemini-hooks', payload: { notification_type: 'ToolPermission', session_id: 'g-1' } });
      expect(JSON.stringify(sink.reports[0])).not.toContain('secret');
    } finally {
      await sink.close();
    }
  });
});

describe('qwen: the same, through QWEN_CODE_SYSTEM_DEFAULTS_PATH, with Claude Code\'s events run in the background', () => {
  it('adds one async spool hook per event to a private copy of its system defaults, leaving ~/.qwen alone', async () => {
    mkdirSync(join(tmp, 'home', '.qwen'), { recursive: true });
    writeFileSync(join(tmp, 'home', '.qwen', 'settings.json'), '{"hooks":{"Stop":[]}}');
    const machine = join(tmp, 'qwen-etc', 'system-defaults.json');
    mkdirSync(dirname(machine));
    writeFileSync(machine, '{"model":{"name":"qwen3"}}');

    const result = await plan([], env({ QWEN_CODE_SYSTEM_SETTINGS_PATH: join(tmp, 'qwen-etc', 'settings.json') }), 'qwen');
    const { file, defaults } = defaultsOf(result, 'QWEN_CODE_SYSTEM_DEFAULTS_PATH');

    expect(result).toMatchObject({ installed: true, args: [], events: QWEN_HOOKS.events });
    expect(Object.keys(result.env)).toEqual(['QWEN_CODE_SYSTEM_DEFAULTS_PATH']);
    expect(defaults['model']).toEqual({ name: 'qwen3' });
    expect(Object.keys(defaults.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'Notification', 'Stop']);
    expect(defaults.hooks['PermissionRequest']).toEqual([
      { hooks: [{ type: 'command', name: SETTINGS_HOOK_NAME, command: spoolHookLine(join(dirname(file), 'reports'), 'PermissionRequest'), timeout: 5, async: true }] },
    ]);
    expect(readFileSync(join(tmp, 'home', '.qwen', 'settings.json'), 'utf8')).toBe('{"hooks":{"Stop":[]}}');
    expect(readFileSync(machine, 'utf8')).toBe('{"model":{"name":"qwen3"}}');
  });
});
