import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startControlServer } from '../../../src/app/control/socket.js';
import { CLAUDE_HOOK_EVENTS, claudeHookLine, mergeClaudeSettings, planHooks, shellQuote, type HookPlan } from '../../../src/app/reporters/hooks.js';

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

async function plan(agent: string, args: readonly string[], env: NodeJS.ProcessEnv = { CODEX_HOME: join(tmp, 'codex-home') }): Promise<HookPlan> {
  const result = await planHooks({ agent, args, env, reportCommand: REPORT, tmpRoot: tmp });
  plans.push(result);
  return result;
}

type Settings = { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; async?: boolean }[] }[]> };

function settingsOf(result: HookPlan): Settings {
  expect(result.args[0]).toBe('--settings');
  return JSON.parse(readFileSync(result.args[1] ?? '', 'utf8')) as Settings;
}

describe('claude: a --settings file of async hooks for this run only', () => {
  it('adds --settings <file> before the user\'s arguments, with one async spool hook per event', async () => {
    const result = await plan('claude', ['--model', 'opus', 'fix the bug']);

    const settings = settingsOf(result);
    expect(result).toMatchObject({ installed: true, env: {}, events: CLAUDE_HOOK_EVENTS });
    expect(result.args.slice(2)).toEqual(['--model', 'opus', 'fix the bug']);
    expect(Object.keys(settings.hooks)).toEqual([...CLAUDE_HOOK_EVENTS]);
    const hook = settings.hooks['PermissionRequest']?.[0]?.hooks[0];
    expect(hook).toMatchObject({ type: 'command', async: true });
    expect(hook?.command).toBe(claudeHookLine(join(dirname(result.args[1] ?? ''), 'reports'), 'PermissionRequest'));
  });

  it('a hook writes its payload into the spool whole, prints nothing and exits 0, spool or not', () => {
    const spool = join(tmp, 'spool dir');
    mkdirSync(spool);

    const hook = spawnSync('/bin/sh', ['-c', claudeHookLine(spool, 'Stop')], { input: '{"hook_event_name":"Stop"}', encoding: 'utf8', timeout: 20_000 });
    const gone = spawnSync('/bin/sh', ['-c', claudeHookLine(join(tmp, 'disposed'), 'Stop')], { input: '{}', encoding: 'utf8', timeout: 20_000 });

    expect([hook.status, hook.stdout, hook.stderr]).toEqual([0, '', '']);
    expect(readdirSync(spool)).toEqual([`${hook.pid}.Stop.json`]);
    expect(readFileSync(join(spool, `${hook.pid}.Stop.json`), 'utf8')).toBe('{"hook_event_name":"Stop"}');
    expect([gone.status, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });

  it('delivers what the hooks spooled to the session socket, oldest first, as claude-hooks reports', async () => {
    const controlPath = join(tmp, 'control', 'c.sock');
    mkdirSync(join(tmp, 'control'), { mode: 0o700 });
    const reports: Record<string, unknown>[] = [];
    const server = await startControlServer(controlPath, {
      explain: () => ({}), capture: () => ({}), ack: () => ({}), subscribe: () => () => undefined,
      report: (params) => {
        reports.push(params);
        return { accepted: true };
      },
    });
    try {
      const result = await plan('claude', []);
      const spool = join(dirname(result.args[1] ?? ''), 'reports');
      const runHook = (event: string, payload: string): void => {
        spawnSync('/bin/sh', ['-c', claudeHookLine(spool, event)], { input: payload, encoding: 'utf8', timeout: 20_000 });
      };
      // One report spooled before the session listens (Claude's SessionStart comes early), two after.
      runHook('SessionStart', JSON.stringify({ session_id: 'abc-1', prompt: 'never sent' }));
      const warnings: string[] = [];
      result.start({ controlPath, warn: (message) => warnings.push(message) });
      await expect.poll(() => reports.length, { timeout: 5000, interval: 20 }).toBe(1);
      runHook('UserPromptSubmit', 'not json');
      runHook('PermissionRequest', JSON.stringify({ session_id: 'abc-1', tool_name: 'Bash' }));
      await expect.poll(() => reports.length, { timeout: 5000, interval: 20 }).toBe(3);

      expect(reports.map((r) => [r['event'], r['agent'], r['source']])).toEqual([
        ['SessionStart', 'claude', 'claude-hooks'],
        ['UserPromptSubmit', 'claude', 'claude-hooks'],
        ['PermissionRequest', 'claude', 'claude-hooks'],
      ]);
      expect(reports[0]?.['payload']).toEqual({ session_id: 'abc-1' });
      expect(reports[1]?.['payload']).toBeUndefined();
      const seqs = reports.map((r) => Number(r['seq']));
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(Math.abs(Number(reports[2]?.['sentAtMs']) - Date.now())).toBeLessThan(5000);
      expect(readdirSync(spool)).toEqual([]);
      expect(warnings).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('writes the file privately (0600 in a 0700 directory) and removes it on dispose', async () => {
    const result = await plan('claude', []);
    const file = result.args[1] ?? '';

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    result.dispose();
    expect(existsSync(file)).toBe(false);
  });

  it('merges a user --settings file: their hooks first, then ours, and their other settings kept', async () => {
    const user = join(tmp, 'user-settings.json');
    writeFileSync(user, JSON.stringify({ model: 'sonnet', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }));

    const result = await plan('claude', ['-c', '--settings', user]);

    const settings = settingsOf(result) as Settings & { model?: string };
    expect(result.args.slice(2)).toEqual(['-c']);
    expect(settings.model).toBe('sonnet');
    expect(settings.hooks['Stop']?.map((group) => group.hooks[0]?.command)).toEqual(['say done', expect.stringContaining('.Stop.json')]);
    expect(result.note).toMatch(/merged/);
  });

  it('merges inline --settings=JSON too', async () => {
    const result = await plan('claude', ['--settings={"hooks":{"Notification":[{"hooks":[{"type":"command","command":"notify-send hi"}]}]}}']);

    expect(settingsOf(result).hooks['Notification']).toHaveLength(2);
  });

  it('installs nothing for subcommands, --help and --version, or unparsable --settings', async () => {
    const results = [await plan('claude', ['mcp', 'list']), await plan('claude', ['--version']), await plan('claude', ['--settings', '{not json'])];

    expect(results.map((r) => r.installed)).toEqual([false, false, false]);
    expect(results[0]?.args).toEqual(['mcp', 'list']);
    expect(results[2]?.note).toMatch(/no reporter hooks for claude/);
  });

  it('mergeClaudeSettings leaves a user hooks block that is not an object out of the merge', async () => {
    expect(mergeClaudeSettings({ hooks: 'bogus' }, { Stop: [1] })).toEqual({ hooks: { Stop: [1] } });
  });
});

describe('opencode: nothing added; the server the user starts is followed', () => {
  /** Every file under a directory (relative paths). */
  function filesUnder(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
  }

  it('hands OpenCode nothing at all by default, and writes no file', async () => {
    // A server of agentwrap's (--port) holds OpenCode's first screen until its worker loads; a
    // plugin makes it install @opencode-ai/plugin into ~/.config/opencode first (docs/reporter.md).
    const home = join(tmp, 'home');
    for (const args of [[], ['--model', 'mock/m', 'my-project'], ['--agent', 'run']]) {
      const result = await plan('opencode', args, { HOME: home, OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: ['their-plugin'] }) });
      expect(result.installed, args.join(' ')).toBe(false);
      expect(result.args).toEqual(args);
      expect(result.env).toEqual({});
      expect(result.note).toBeUndefined();
      // Said in status explain for the whole session instead.
      expect(result.absence).toMatch(/starts no OpenCode server.*--port N/);
    }
    expect(filesUnder(tmp)).toEqual([]);
  });

  it("follows the server the user asked for, with their password, and adds nothing to OpenCode", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"server.connected","properties":{}}\n\n');
    });
    const port = await new Promise<number>((resolvePromise) => server.listen(0, '127.0.0.1', () => resolvePromise((server.address() as AddressInfo).port)));
    const args = ['--hostname', '0.0.0.0', `--port=${port}`, 'my-project'];
    const result = await plan('opencode', args, { OPENCODE_SERVER_PASSWORD: 'theirs' });
    try {
      expect(result.installed).toBe(true);
      expect(result.args).toEqual(args);
      expect(result.env).toEqual({});
      expect(result.absence).toBeUndefined();
      expect(result.events).toEqual(expect.arrayContaining(['permission.asked', 'session.status', 'session.idle', 'server.heartbeat']));
      result.start({ controlPath: join(tmp, 'no-session.sock'), warn: () => undefined });
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((resolvePromise) => setTimeout(resolvePromise, 50));
      expect(seen[0]).toBe(`/event Basic ${Buffer.from('opencode:theirs').toString('base64')}`);
    } finally {
      result.dispose();
      server.closeAllConnections();
      await new Promise((resolvePromise) => server.close(resolvePromise));
    }
  });

  it('follows nothing for subcommands, --mini, a random port or a server elsewhere', async () => {
    for (const args of [['run', 'hi'], ['serve', '--port', '4096'], ['--log-level', 'DEBUG', 'models'], ['--mini', '--port', '4096'], ['--port', '0'], ['--port', '4096', '--hostname', '10.1.2.3']]) {
      const result = await plan('opencode', args);
      expect(result.installed, args.join(' ')).toBe(false);
      expect(result.args).toEqual(args);
      expect(result.env).toEqual({});
    }
    expect((await plan('opencode', ['--port', '0'])).note).toMatch(/no fixed --port/);
    expect((await plan('opencode', ['--port', '4096', '--hostname', '10.1.2.3'])).note).toMatch(/listens on 10\.1\.2\.3/);
    expect((await plan('opencode', ['run', '--port', '4096'])).note).toBeUndefined();
  });
});

describe('a pack named for another program', () => {
  it('adds no hook flags when the program run is not the agent itself (run --pack claude -- sh)', async () => {
    const result = await planHooks({ agent: 'claude', command: '/bin/sh', args: ['-c', 'echo hi'], env: {}, reportCommand: REPORT, tmpRoot: tmp });
    plans.push(result);

    expect(result).toMatchObject({ installed: false, args: ['-c', 'echo hi'] });
    expect(result.note).toMatch(/sh is not claude's own command/);
  });

  it('still hooks the agent run by its path', async () => {
    const result = await planHooks({ agent: 'claude', command: '/opt/tools/bin/claude', args: [], env: {}, reportCommand: REPORT, tmpRoot: tmp });
    plans.push(result);

    expect(result.installed).toBe(true);
  });
});

describe('other agents', () => {
  it('get nothing (screens and /proc only)', async () => {
    expect((await plan('/usr/local/bin/amp', [])).installed).toBe(false);
    expect((await plan('copilot', [])).installed).toBe(false);
  });

  it('shellQuote leaves plain words alone and single-quotes the rest', async () => {
    expect(shellQuote('report')).toBe('report');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
