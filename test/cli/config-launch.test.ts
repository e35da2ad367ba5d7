/**
 * The config file at launch, as a user meets it: a wrapped command in a real terminal (node-pty
 * stands in for the user's) with a config in a fresh XDG_CONFIG_HOME. `record_dir` records the
 * session into a 0700 directory and keeps only the newest `record_keep`; `--no-record` skips it;
 * a broken config is said in one line and the command runs anyway.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { CLI, openOuterTerminal } from '../helpers/pty-outer.js';

let dir: string;
let configDir: string;

beforeAll(() => {
  ensureBuilt();
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-config-launch-'));
  configDir = join(dir, 'config', 'agentwrap');
  mkdirSync(configDir, { recursive: true });
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function runWrapped(flags: string): Promise<{ exitCode: number; output: string }> {
  const terminal = openOuterTerminal(`${process.execPath} ${CLI} run ${flags} -- sh -c 'echo hello-from-agent'`, {
    env: { XDG_CONFIG_HOME: join(dir, 'config'), HOME: join(dir, 'home'), AGENT_STATUS_DIR: join(dir, 'state') },
  });
  const { exitCode } = await terminal.exited;
  return { exitCode, output: terminal.output() };
}

describe('config.toml at launch', () => {
  it('record_dir records every session into a private directory, keeping the newest record_keep', async () => {
    const recordings = join(dir, 'recordings');
    writeFileSync(join(configDir, 'config.toml'), `record_dir = "${recordings}"\nrecord_keep = 2\n`);
    mkdirSync(recordings, { mode: 0o700 });
    // Two older automatic recordings and a file agentwrap did not name (never touched).
    for (const [name, ageS] of [['sh-20260101T000000Z-1.cast', 300], ['sh-20260101T000001Z-2.cast', 200], ['notes.cast', 900]] as const) {
      writeFileSync(join(recordings, name), 'old\n');
      const when = Date.now() / 1000 - ageS;
      utimesSync(join(recordings, name), when, when);
    }

    const { exitCode, output } = await runWrapped('');

    expect(exitCode).toBe(0);
    expect(output).toContain('hello-from-agent');
    const names = readdirSync(recordings).sort();
    expect(names).toHaveLength(3);
    expect(names).toContain('notes.cast');
    expect(names).toContain('sh-20260101T000001Z-2.cast');
    const fresh = names.find((n) => /^sh-\d{8}T\d{6}Z-\d+-[0-9a-f]{12}\.cast$/.test(n) && !n.startsWith('sh-2026010'));
    expect(fresh).toBeDefined();
    expect(readFileSync(join(recordings, fresh ?? ''), 'utf8')).toContain('hello-from-agent');
  });

  it('creates record_dir 0700; --no-record skips it for one run', async () => {
    const recordings = join(dir, 'new', 'recordings');
    writeFileSync(join(configDir, 'config.toml'), `record_dir = "${recordings}"\n`);

    await runWrapped('--no-record');
    const skipped = readdirSync(join(dir)).includes('new');
    await runWrapped('');

    expect(skipped).toBe(false);
    expect(statSync(recordings).mode & 0o777).toBe(0o700);
    expect(readdirSync(recordings)).toHaveLength(1);
  });

  it('a broken config is one line naming FILE:LINE, and the command still runs', async () => {
    writeFileSync(join(configDir, 'config.toml'), 'notify = true\nrecord_dri = "/tmp/x"\n');

    const { exitCode, output } = await runWrapped('');

    expect(exitCode).toBe(0);
    expect(output).toContain(`agentwrap: ${join(configDir, 'config.toml')}:2: unknown key "record_dri" (did you mean "record_dir"?) (config ignored; built-in defaults in use)`);
    expect(output).toContain('hello-from-agent');
  });

  it('state_dir is where every command reads, unless $AGENT_STATUS_DIR says otherwise', () => {
    const stateDir = join(dir, 'from-config');
    writeFileSync(join(configDir, 'config.toml'), `state_dir = "${stateDir}"\n`);
    const env = { PATH: process.env['PATH'] ?? '', HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config') };

    const fromConfig = spawnSync(process.execPath, [CLI, 'status'], { encoding: 'utf8', env });
    const fromEnv = spawnSync(process.execPath, [CLI, 'status'], { encoding: 'utf8', env: { ...env, AGENT_STATUS_DIR: join(dir, 'from-env') } });

    expect(fromConfig.stdout).toBe(`no live agent sessions (${stateDir})\n`);
    expect(fromEnv.stdout).toBe(`no live agent sessions (${join(dir, 'from-env')})\n`);
  });
});
