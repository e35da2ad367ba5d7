/**
 * Status across machines and containers, for real: `status --host`, `events --host` and the
 * dashboard over a private sshd on 127.0.0.1 (test/helpers/sshd.ts), whose "remote" agentwrap
 * is this checkout reading its own state directory; and `status --state-dir` reading two
 * container-style state directories into one list.
 */
import { execFile, execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readChildPids, readProcStat } from '../../../src/adapters/pty/index.js';
import type { ControlHandlers } from '../../../src/app/control/protocol.js';
import { startControlServer, type ControlServer, type StateChangeEvent } from '../../../src/app/control/socket.js';
import { EVENTS_UNTIL_EOF_ENV } from '../../../src/app/sessions/remote-events.js';
import { createSessionRecord, type SessionRecordInput } from '../../../src/core/records/session-record.js';
import type { StatusJson } from '../../../src/cli/render/status.js';
import { CLI, ensureBuilt } from '../../helpers/cli.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../../helpers/sshd.js';

const run = promisify(execFile);
const NOW = Date.now();

function record(root: string, key: string, overrides: Partial<SessionRecordInput> = {}): void {
  const value = createSessionRecord({
    sourceCli: 'claude',
    sessionId: key.replace(/^claude-/, ''),
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/srv/repo',
    startedAtMs: NOW - 60_000,
    updatedAtMs: Date.now(),
    ttlMs: 600_000,
    state: 'working',
    stateSinceMs: NOW - 30_000,
    seen: true,
    stuck: false,
    winner: 'pack',
    ruleId: 'spinner',
    control: join(root, 'sockets', `${key}.sock`),
    ...overrides,
  });
  mkdirSync(join(root, 'sessions'), { recursive: true, mode: 0o700 });
  const temp = join(root, 'sessions', `.${key}.tmp`);
  writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
  renameSync(temp, join(root, 'sessions', `${key}.json`));
}

function tempRoot(name: string): string {
  return mkdtempSync(join(tmpdir(), `aw-remote-${name}-`));
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The far side's `agentwrap events` processes for one remote state directory (Linux /proc). */
function farSideFollowers(stateDir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        return environ.includes(`${EVENTS_UNTIL_EOF_ENV}=1`) && environ.includes(`AGENT_STATUS_DIR=${stateDir}`);
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** Still running: not gone, and not a zombie its parent has yet to reap. */
function isRunning(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

beforeAll(() => ensureBuilt());

describe('status --state-dir (agents in containers)', () => {
  it('reads two state directories into one list, by lease, with sockets under each directory', async () => {
    const a = tempRoot('container-a');
    const b = tempRoot('container-b');
    const home = tempRoot('home');
    cleanups.push(() => [a, b, home].forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    // Written inside a container: its pids (here, one that is certainly not alive on this
    // machine) and its own paths for the socket.
    record(a, 'claude-in-a', { state: 'blocked', wrapperPid: 2_147_483_000, control: '/state/sockets/claude-in-a.sock' });
    record(b, 'claude-in-b', { state: 'idle', wrapperPid: 2_147_483_001, control: '/state/sockets/claude-in-b.sock' });
    record(b, 'claude-stale', { state: 'done', updatedAtMs: NOW - 700_000 });
    const env = { ...process.env, AGENT_STATUS_DIR: home };

    const { code, stdout } = await cli(['status', '--json', '--state-dir', a, '--state-dir', b], env);
    expect(code).toBe(0);
    const status = JSON.parse(stdout) as StatusJson;
    expect(status.sessions.map((s) => [s.key, s.state])).toEqual([
      ['claude-in-a', 'blocked'],
      ['claude-in-b', 'idle'],
    ]);
    expect(status.roots).toEqual([a, b]);
    expect(status.sessions.map((s) => (s.record as { control?: string }).control)).toEqual([join(a, 'sockets', 'claude-in-a.sock'), join(b, 'sockets', 'claude-in-b.sock')]);

    // Without --state-dir only the default root is read (and it is empty).
    const plain = JSON.parse((await cli(['status', '--json'], env)).stdout) as StatusJson;
    expect(plain.sessions).toEqual([]);
    expect(plain.roots).toBeUndefined();
  });
});

const unavailable = sshdUnavailable();

describe.skipIf(unavailable !== undefined)(`--host over a private sshd on 127.0.0.1${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`, () => {
  let sshd: TestSshd;
  let sshDir: string;
  let remoteRoot: string;
  let localRoot: string;
  let env: NodeJS.ProcessEnv;
  const servers: ControlServer[] = [];
  const children: ChildProcessWithoutNullStreams[] = [];

  beforeAll(async () => {
    sshDir = tempRoot('ssh');
    remoteRoot = tempRoot('box-state');
    localRoot = tempRoot('local-state');
    sshd = await startSshd(sshDir, remoteRoot);
    env = {
      ...process.env,
      AGENT_STATUS_DIR: localRoot,
      AGENTWRAP_SSH_COMMAND: sshd.sshCommand,
      AGENTWRAP_REMOTE_COMMAND: `${process.execPath} ${CLI}`,
    };
  }, 60_000);

  afterAll(async () => {
    // Stopped as a user stops it (SIGTERM: it ends its ssh followers), SIGKILL only if it hangs.
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const closed = new Promise((resolve) => child.once('close', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await closed;
        clearTimeout(timer);
      }),
    );
    for (const server of servers) await server.close();
    sshd?.stop();
    for (const dir of [sshDir, remoteRoot, localRoot]) rmSync(dir, { recursive: true, force: true });
  });

  /** A remote session `key` with a live control socket under the box's state directory, recorded as `state`. */
  async function startRemoteSession(key: string, state: SessionRecordInput['state'], subscribe: ControlHandlers['subscribe']): Promise<void> {
    const socket = join(remoteRoot, 'sockets', `${key}.sock`);
    mkdirSync(join(remoteRoot, 'sockets'), { recursive: true, mode: 0o700 });
    servers.push(await startControlServer(socket, { explain: () => ({}), capture: () => ({}), ack: () => ({}), report: () => ({}), subscribe }));
    record(remoteRoot, key, { state, control: socket });
  }

  it('status --host merges the remote sessions, each marked with its host, and shows a dead host as unreachable', async () => {
    record(localRoot, 'claude-here', { state: 'idle' });
    const startedAt = Date.now();
    record(remoteRoot, 'claude-there', { state: 'blocked', stateSinceMs: startedAt - 42_000, title: 'Approve edit?' });

    const { code, stdout } = await cli(['status', '--json', '--host', 'box', '--host', 'dead'], env);
    expect(code).toBe(0);
    const status = JSON.parse(stdout) as StatusJson;
    expect(status.sessions.map((s) => [s.key, s.state, s.host])).toEqual([
      ['claude-there', 'blocked', 'box'],
      ['claude-here', 'idle', undefined],
    ]);
    const there = status.sessions[0];
    // Age carried over from the remote side's own clock reading: 42 s plus at most the time since.
    expect(there?.state_age_ms).toBeGreaterThanOrEqual(42_000);
    expect(there?.state_age_ms).toBeLessThanOrEqual(42_000 + (Date.now() - startedAt));
    expect(status.rollup).toBe('blocked');
    expect(status.hosts?.map((h) => [h.host, h.reachable])).toEqual([
      ['box', true],
      ['dead', false],
    ]);
    expect(status.hosts?.[1]?.error).toMatch(/refused|port/i);

    const text = await cli(['status', '--host', 'box', '--host', 'dead'], env);
    expect(text.stdout).toMatch(/^blocked .*box:claude-there .*Approve edit\?$/m);
    expect(text.stdout).toMatch(/^host dead: unreachable \(.+\)$/m);
  });

  it('answer --host and send --host reach the remote session through its socket there, noted as from that host', async () => {
    const asked: Record<string, unknown>[] = [];
    const socket = join(remoteRoot, 'sockets', 'claude-ask.sock');
    mkdirSync(join(remoteRoot, 'sockets'), { recursive: true, mode: 0o700 });
    const handlers: ControlHandlers = {
      ...{ explain: () => ({}), capture: () => ({}), ack: () => ({}), report: () => ({}), subscribe: () => () => undefined },
      answer: (params) => (asked.push({ method: 'answer', ...params }), { sent: true, option: params['option'], label: 'Yes' }),
      send: (params) => (asked.push({ method: 'send', ...params }), { sent: true, characters: String(params['text']).length }),
    };
    servers.push(await startControlServer(socket, handlers));
    const dialog = { question: 'Do you want to proceed?', options: ['Yes', 'No'], digest: '00112233aabbccdd' };
    record(remoteRoot, 'claude-ask', { state: 'blocked', control: socket, dialog });

    const answered = await cli(['answer', '--host', 'box', 'claude-ask', 'no'], env);
    const sent = await cli(['send', '--host', 'box', '--force', 'claude-ask', "don't", 'rm -rf ~; $(id)'], env);

    expect(answered.stdout).toBe('answered claude-ask: 2. Yes\n');
    expect(sent.code, sent.stderr).toBe(0);
    expect(asked.map((a) => [a['method'], a['option'] ?? a['text'], a['digest'] ?? a['force'], a['via']])).toEqual([
      ['answer', 2, dialog.digest, 'host'],
      ['send', "don't rm -rf ~; $(id)", true, 'host'],
    ]);
    expect(String(asked[0]?.['from'])).toMatch(/^\S+ \(127\.0\.0\.1\)$/);
    // The other tests list the box's sessions: this one leaves with its test.
    rmSync(join(remoteRoot, 'sessions', 'claude-ask.json'));
  });

  it('events --host streams the remote transitions with their host, and reports a dead host once', async () => {
    const emitters = new Set<(event: StateChangeEvent) => void>();
    await startRemoteSession('claude-live', 'working', (emit) => {
      emitters.add(emit);
      return () => emitters.delete(emit);
    });

    const child = spawn(process.execPath, [CLI, 'events', '--host', 'box', '--host', 'dead'], { env });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => emitters.size > 0 && out.includes('"session":"claude-live"'), 'the remote snapshot line and its subscription');
    for (const emit of emitters) emit({ t: Date.now(), session: 'claude-live', agent: 'claude', from: 'working', to: 'blocked', winner: 'pack', rule_id: 'permission-dialog' });
    await until(() => out.includes('"from":"working","to":"blocked"') && out.includes('"host":"dead"'), 'the remote transition and the dead host');

    const lines = out.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const live = lines.filter((line) => line['session'] === 'claude-live');
    expect(live.map((line) => [line['from'], line['to'], line['host']])).toEqual([
      [null, 'working', 'box'],
      ['working', 'blocked', 'box'],
    ]);
    const dead = lines.filter((line) => line['host'] === 'dead');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ reachable: false });
    expect(String(dead[0]?.['error'])).toMatch(/refused|port/i);
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)('events --host stopped by %s on a quiet host ends the far side\'s events and its ssh, with no event to write', async (signal) => {
    const key = `claude-quiet-${signal.toLowerCase()}`;
    await startRemoteSession(key, 'idle', () => () => undefined);
    const before = new Set(farSideFollowers(remoteRoot));
    const child = spawn(process.execPath, [CLI, 'events', '--host', 'box'], { env });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const newFollowers = (): number[] => farSideFollowers(remoteRoot).filter((pid) => !before.has(pid));
    await until(() => out.includes(`"session":"${key}"`) && newFollowers().length > 0, 'the far side following');
    const farSide = newFollowers();
    const ssh = readChildPids(child.pid ?? -1);
    expect(farSide).toHaveLength(1);
    expect(ssh).toHaveLength(1);

    child.kill(signal);
    // Nothing is emitted: the far side has no write to fail, only its stdin to see end.
    const running = (): number[] => [...farSide, ...ssh].filter(isRunning);
    await until(() => running().length === 0, 'the far side and its ssh to end').catch((error: unknown) => {
      throw new Error(`${String(error)}: still running ${JSON.stringify(running().map((pid) => [pid, readProcStat(pid)?.comm]))}`);
    });

    expect(running()).toEqual([]);
  });

  it.skipIf(spawnSync('tmux', ['-V']).status !== 0)('the dashboard lists remote sessions with their host and an unreachable host as such (tmux)', async () => {
    record(remoteRoot, 'claude-there', { state: 'blocked', title: 'Approve edit?' });
    record(localRoot, 'claude-here', { state: 'idle' });
    const socketName = `dashboard-test-remote-${process.pid}`;
    const tmuxEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'TMUX' && name !== 'TMUX_PANE'));
    const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socketName, '-f', '/dev/null', ...args], { encoding: 'utf8', env: tmuxEnv }).trimEnd();
    cleanups.push(() => spawnSync('tmux', ['-L', socketName, 'kill-server']));
    const pane = tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-x', '150', '-y', '30', `exec ${process.execPath} ${CLI} status --watch --host box --host dead`);
    let screen = '';
    await until(() => {
      screen = tmux('capture-pane', '-p', '-t', pane);
      return /^› blocked .* box +claude +claude-there/m.test(screen) && /^! dead: unreachable/m.test(screen) && /idle .* local +claude +claude-here/m.test(screen);
    }, 'the dashboard with the remote session, the local one and the dead host').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${screen}`);
    });
    expect(screen).toMatch(/no preview: claude-there runs on box/);
    expect(screen).toMatch(/1 host unreachable/);
  });
});
