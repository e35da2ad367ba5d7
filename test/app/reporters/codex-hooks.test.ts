import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CODEX_HOOK_EVENTS, codexHookHash } from '../../../src/app/reporters/codex-hooks.js';
import { spoolHookLine } from '../../../src/app/reporters/hook-spool.js';
import { planHooks, type HookPlan } from '../../../src/app/reporters/hooks.js';
import { startReportSink } from '../../helpers/report-sink.js';

const REPORT = ['/usr/bin/node', '/opt/agent wrap/main.js'];
const NOTIFY = 'notify=["/usr/bin/node","/opt/agent wrap/main.js","report","notify","--agent","codex","--source","codex-notify","--json"]';
let tmp: string;
let plans: HookPlan[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'aw-codex-hooks-'));
  plans = [];
});

afterEach(() => {
  for (const plan of plans) plan.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

async function plan(args: readonly string[], env: NodeJS.ProcessEnv = { CODEX_HOME: join(tmp, 'codex-home') }): Promise<HookPlan> {
  const result = await planHooks({ agent: 'codex', args, env, reportCommand: REPORT, tmpRoot: tmp });
  plans.push(result);
  return result;
}

type Hook = { type: 'command'; command: string; timeout: number; async: boolean };
type Parsed = { hooks: Record<string, { hooks: Hook[] }[]> & { state: Record<string, { trusted_hash: string }> } };

/** Every `-c key=value` agentwrap added, read as Codex reads them: TOML, one layer. */
function overridesOf(args: readonly string[]): Parsed {
  const layer: Parsed = { hooks: { state: {} } } as Parsed;
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '-c' || !(args[i + 1] ?? '').startsWith('hooks.')) continue;
    const parsed = parse(args[i + 1] ?? '') as unknown as Parsed;
    Object.assign(layer.hooks, parsed.hooks);
  }
  return layer;
}

/** Every file under a directory with its bytes. */
function snapshotOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) files[name] = readFileSync(path, 'utf8');
  }
  return files;
}

describe('codex: hooks and notify on the command line, for this run only', () => {
  it('adds -c notify, one async spool hook per event, and their trust, before the user\'s arguments', async () => {
    const result = await plan(['--no-daemon']);

    expect(result).toMatchObject({ installed: true, env: {} });
    expect(result.args.slice(0, 2)).toEqual(['-c', NOTIFY]);
    expect(result.args.at(-1)).toBe('--no-daemon');
    expect(result.events).toEqual(['notify (agent-turn-complete)', 'SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'PostToolUse', 'Stop']);
    const { hooks } = overridesOf(result.args);
    const spoolDir = join(readdirSync(tmp).map((name) => join(tmp, name)).find((path) => path.includes('agentwrap-hooks-')) ?? '', 'reports');
    for (const [event, label] of Object.entries(CODEX_HOOK_EVENTS)) {
      const hook = hooks[event]?.[0]?.hooks[0];
      expect(hook).toEqual({ type: 'command', command: spoolHookLine(spoolDir, event), timeout: 5, async: true });
      // Trusted by exactly the key and hash Codex computes for a hook declared by -c.
      expect(hooks.state[`/<session-flags>/config.toml:${label}:0:0`]).toEqual({ trusted_hash: codexHookHash(label, hook as Hook) });
    }
    expect(Object.keys(hooks.state)).toHaveLength(Object.keys(CODEX_HOOK_EVENTS).length);
  });

  it('hashes a hook as Codex 0.171.0 does (the currentHash its hooks/list reported for this definition)', () => {
    // `codex app-server -c 'hooks.Stop=[{hooks=[{type="command",command="echo hi",timeout=5,async=true}]}]'`, hooks/list.
    expect(codexHookHash('stop', { type: 'command', command: 'echo hi', timeout: 5, async: true })).toBe(
      'sha256:c46b26f19a9c848b24c12208ebfbd22e7d1de2571c9eb3c224a5d582e58cebf1',
    );
  });

  it('writes nothing into the user\'s Codex home, and leaves no file behind after the run', async () => {
    const home = join(tmp, 'codex-home');
    mkdirSync(home);
    writeFileSync(join(home, 'config.toml'), 'model = "o3"\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "say done"\n');
    writeFileSync(join(home, 'hooks.json'), '{"hooks":{}}\n');
    const before = snapshotOf(home);

    const result = await plan([]);
    result.dispose();

    expect(snapshotOf(home)).toEqual(before);
    expect(readdirSync(tmp)).toEqual(['codex-home']);
  });

  it('keeps the user\'s own notify program and still adds its hooks', async () => {
    mkdirSync(join(tmp, 'codex-home'));
    writeFileSync(join(tmp, 'codex-home', 'config.toml'), 'notify = ["notify-send", "codex"]\nmodel = "o3"\n');

    const result = await plan([]);

    expect(result.installed).toBe(true);
    expect(result.args.some((arg) => arg.startsWith('notify='))).toBe(false);
    expect(Object.keys(overridesOf(result.args).hooks)).toContain('PermissionRequest');
    expect(result.note).toMatch(/your own notify/);
  });

  it('adds its notify beside a config.toml that sets none (a notify in a table is not the top-level one)', async () => {
    mkdirSync(join(tmp, 'codex-home'));
    writeFileSync(join(tmp, 'codex-home', 'config.toml'), 'model = "o3"\n[tui]\nnotifications = true\n[profiles.quiet]\nnotify = ["true"]\n');

    expect((await plan([])).args.slice(0, 2)).toEqual(['-c', NOTIFY]);
  });

  it('keeps a quoted top-level "notify" key and a -c notify of the user\'s', async () => {
    mkdirSync(join(tmp, 'codex-home'));
    writeFileSync(join(tmp, 'codex-home', 'config.toml'), '  "notify" = ["say"]\n');

    expect((await plan([])).args.some((arg) => arg.startsWith('notify='))).toBe(false);
    expect((await plan(['-c', 'notify=["x"]'])).args.filter((arg) => arg.startsWith('notify='))).toEqual(['notify=["x"]']);
  });

  it('adds no hooks beside a -c hooks… of the user\'s (trust is keyed by position in that layer), only its notify', async () => {
    const result = await plan(['--config', 'hooks.Stop=[]']);

    expect(result.args).toEqual(['-c', NOTIFY, '--config', 'hooks.Stop=[]']);
    expect(result.note).toMatch(/hooks/);
  });

  it('adds nothing for subcommands without turns', async () => {
    expect((await plan(['login'])).installed).toBe(false);
    expect((await plan(['mcp', 'list'])).args).toEqual(['mcp', 'list']);
  });

  it('delivers what the hooks spooled to the session socket as codex-hooks reports', async () => {
    const sink = await startReportSink(tmp);
    try {
      const result = await plan([]);
      const { hooks } = overridesOf(result.args);
      const runHook = (event: string, payload: string): void => {
        spawnSync('/bin/sh', ['-c', hooks[event]?.[0]?.hooks[0]?.command ?? 'false'], { input: payload, encoding: 'utf8', timeout: 20_000 });
      };
      result.start({ controlPath: sink.controlPath, warn: () => undefined });
      runHook('PermissionRequest', JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 's-1', tool_input: { command: 'rm -rf /' } }));
      await expect.poll(() => sink.reports.length, { timeout: 5000, interval: 20 }).toBe(1);

      expect(sink.reports[0]).toMatchObject({ event: 'PermissionRequest', agent: 'codex', source: 'codex-hooks', payload: { hook_event_name: 'PermissionRequest', session_id: 's-1' } });
      expect(JSON.stringify(sink.reports[0])).not.toContain('rm -rf');
    } finally {
      await sink.close();
    }
  });
});
