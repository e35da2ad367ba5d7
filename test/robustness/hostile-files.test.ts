/**
 * Files at well-known paths that someone else (or a broken dotfile setup) put there, through
 * the real CLI: a FIFO or a huge file as config.toml or a pack, a record dated years ahead, and
 * the privacy of what agentwrap writes from screen text. Each command ends within 20 s and
 * 500 MB and says what it refused (limits: core/input-bounds.ts).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSessionRecord } from '../../src/core/records/session-record.js';
import { ensureBuilt, ROOT } from '../helpers/cli.js';
import { boundsOf, runCliBounded } from './bounded-run.js';

const WITHIN_BOUNDS = { killedFor: undefined, withinMemory: true, rawControl: false };

let base: string;
let dir: string;
let configDir: string;
let env: Record<string, string>;

beforeAll(() => {
  ensureBuilt();
  base = mkdtempSync(join(tmpdir(), 'aw-hostile-files-'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

beforeEach(() => {
  dir = mkdtempSync(join(base, 'case-'));
  configDir = join(dir, 'config', 'agentwrap');
  mkdirSync(configDir, { recursive: true });
  env = { XDG_CONFIG_HOME: join(dir, 'config'), HOME: join(dir, 'home'), AGENT_STATUS_DIR: join(dir, 'state') };
});

describe('config.toml that is not a small regular file', () => {
  it.each([
    ['status', ['status']],
    ['the tmux status line', ['status', '--format', 'tmux']],
  ])('a FIFO does not hang %s: one line says so and defaults apply', async (_what, args) => {
    const config = join(configDir, 'config.toml');
    execFileSync('mkfifo', [config]);

    const withConfig = await runCliBounded(args, { env });

    expect(boundsOf(withConfig)).toEqual(WITHIN_BOUNDS);
    expect(withConfig.status).toBe(0);
    expect(withConfig.stderr).toBe(`agentwrap: ${config}: is a FIFO, not a regular file; not read (config ignored; built-in defaults in use)\n`);
  });

  it('a 600 MiB config is refused by its size', async () => {
    const config = join(configDir, 'config.toml');
    writeFileSync(config, 'notify = true\n');
    truncateSync(config, 600 * 1024 * 1024);

    const run = await runCliBounded(['status'], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.stderr).toContain(`agentwrap: ${config}: is ${600 * 1024 * 1024} bytes, more than the ${1024 * 1024} allowed; not read`);
  });
});

describe('the agents\' own config files and a screen file that are FIFOs', () => {
  it('a FIFO at ~/.codex/config.toml does not hang the launch: no notify of the user\'s is assumed', async () => {
    const codexHome = join(dir, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    execFileSync('mkfifo', [join(codexHome, 'config.toml')]);
    const { codexUserNotify } = await import('../../src/app/reporters/codex-hooks.js');

    const started = Date.now();
    expect(await codexUserNotify({ CODEX_HOME: codexHome })).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a FIFO given to claude --settings leaves hooks off with the reason, and does not hang', async () => {
    const settings = join(dir, 'settings.json');
    execFileSync('mkfifo', [settings]);
    const { planHooks } = await import('../../src/app/reporters/hooks.js');

    const plan = await planHooks({ agent: 'claude', args: ['--settings', settings], env: { HOME: join(dir, 'home') }, tmpRoot: dir });

    expect(plan.note).toBe(`no reporter hooks for claude: --settings ${settings}: is a FIFO, not a regular file; not read`);
    expect(plan.args).toEqual(['--settings', settings]);
  });

  it('a FIFO at Gemini\'s system defaults leaves its hooks off with the reason, and does not hang', async () => {
    const defaults = join(dir, 'system-defaults.json');
    execFileSync('mkfifo', [defaults]);
    const { planHooks } = await import('../../src/app/reporters/hooks.js');

    const plan = await planHooks({ agent: 'gemini', args: [], env: { HOME: join(dir, 'home'), GEMINI_CLI_SYSTEM_DEFAULTS_PATH: defaults }, tmpRoot: dir });

    expect(plan.installed).toBe(false);
    expect(plan.note).toBe(`no reporter hooks for gemini: ${defaults}: is a FIFO, not a regular file; not read`);
  });

  it('status explain --file on a FIFO ends at once and names it', async () => {
    const screen = join(dir, 'screen.txt');
    execFileSync('mkfifo', [screen]);

    const run = await runCliBounded(['status', 'explain', '--file', screen, '--agent', 'claude'], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`agentwrap: screen file ${screen}: is a FIFO, not a regular file; not read\n`);
  });
});

describe('a pack file that is a FIFO', () => {
  it('is skipped with its reason; the bundled packs stay live and the command ends', async () => {
    const packs = join(configDir, 'packs');
    mkdirSync(packs);
    execFileSync('mkfifo', [join(packs, 'claude.toml')]);

    const run = await runCliBounded(['packs', 'lint', join(packs, 'claude.toml')], { env });
    const list = await runCliBounded(['packs', 'list', '--json'], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(boundsOf(list)).toEqual(WITHIN_BOUNDS);
    expect(run.stdout).toBe(`${join(packs, 'claude.toml')}: pack file is a FIFO, not a regular file; not read\n1 file checked, 1 error\n`);
    const listed = (JSON.parse(list.stdout) as { packs: { agent: string | null; source: string; status: string; problems: string[] }[] }).packs;
    expect(listed).toContainEqual(expect.objectContaining({ agent: 'claude', source: 'bundled', status: 'live' }));
    expect(listed.flatMap((pack) => pack.problems)).toContain(`${join(packs, 'claude.toml')}: pack file is a FIFO, not a regular file; not read`);
  });
});

describe('a record dated years ahead', () => {
  it('expires a lease after its last write (the file time), not at its claimed time', async () => {
    const stateDir = join(dir, 'container-state');
    mkdirSync(join(stateDir, 'sessions'), { recursive: true, mode: 0o700 });
    const yearAhead = Date.now() + 365 * 24 * 3600 * 1000;
    const record = createSessionRecord({
      sourceCli: 'claude',
      sessionId: 'future',
      pid: 999_999,
      wrapperPid: 999_999,
      cwd: '/srv',
      startedAtMs: yearAhead,
      updatedAtMs: yearAhead,
      ttlMs: 30_000,
      state: 'working',
      stateSinceMs: yearAhead,
      seen: true,
      stuck: false,
      winner: 'pack',
      ruleId: 'spinner',
      control: join(stateDir, 'sockets', 'claude-future.sock'),
    });
    const path = join(stateDir, 'sessions', 'claude-future.json');
    writeFileSync(path, JSON.stringify(record), { mode: 0o600 });
    // Written two minutes ago (the writer crashed then): four leases have passed since.
    const writtenS = Date.now() / 1000 - 120;
    utimesSync(path, writtenS, writtenS);
    const fresh = join(stateDir, 'sessions', 'claude-fresh.json');
    writeFileSync(fresh, JSON.stringify({ ...record, session_id: 'fresh' }), { mode: 0o600 });

    const run = await runCliBounded(['status', '--json', '--state-dir', stateDir], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    const keys = (JSON.parse(run.stdout) as { sessions: { key: string }[] }).sessions.map((session) => session.key);
    // The one written just now is live: a claim ahead of now counts as now, not as expired.
    expect(keys).toEqual(['claude-fresh']);
  });
});

describe('files holding screen text', () => {
  const castName = 'claude/approve-80x24';

  function labeledRecording(into: string): string {
    mkdirSync(into, { recursive: true });
    for (const ext of ['.cast', '.labels.jsonl']) copyFileSync(join(ROOT, 'recordings', `${castName}${ext}`), join(into, `rec${ext}`));
    return join(into, 'rec.cast');
  }

  it('eval --report is written 0600, replacing an older world-readable page', async () => {
    const cast = labeledRecording(join(dir, 'recs'));
    const report = join(dir, 'report.html');
    writeFileSync(report, 'old', { mode: 0o644 });

    const run = await runCliBounded(['eval', cast, '--report', report], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(0);
    expect(statSync(report).mode & 0o777).toBe(0o600);
    expect(statSync(report).size).toBeGreaterThan(1000);
  });

  it('replay --capture-at creates its folder 0700 and the capture 0600', async () => {
    const cast = labeledRecording(join(dir, 'recs'));
    const out = join(dir, 'captures', 'new');

    const run = await runCliBounded(['replay', cast, '--capture-at', '1', '--out', out], { env });

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(0);
    expect(statSync(join(dir, 'captures')).mode & 0o777).toBe(0o700);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    const files = readdirSync(out);
    expect(files.length).toBe(2);
    for (const file of files) expect(statSync(join(out, file)).mode & 0o777).toBe(0o600);
  });
});
