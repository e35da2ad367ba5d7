/**
 * `agentwrap status`, `ack` and `events` against a temporary AGENT_STATUS_DIR: one-shot commands
 * in-process, `status --watch` and `events` (which run until a signal) as the built CLI.
 * Sessions are simulated by records written here and, for ack and events, by control servers
 * with fake handlers started in this process.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startControlServer, type ControlHandlers, type ControlServer, type StateChangeEvent } from '../../../src/app/control/socket.js';
import { createSessionRecord, type SessionRecord, type SessionRecordInput } from '../../../src/core/records/session-record.js';
import type { StatusJson } from '../../../src/cli/render/status.js';
import { runCliInProcess, type CliResult } from '../../helpers/cli-in-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Rebuilds dist/ when a source this test exercises is newer than its output. */
function ensureBuilt(): void {
  const sources = ['cli/main', 'cli/dispatch', 'cli/render/status', 'cli/commands/status/status', 'cli/commands/status/list', 'cli/commands/ack', 'cli/commands/events', 'app/sessions/store', 'app/sessions/reading', 'app/control/socket', 'core/records/session-record', 'adapters/state-dir'];
  const stale = sources.some((m) => {
    const out = join(ROOT, 'dist', 'src', `${m}.js`);
    return !existsSync(out) || statSync(out).mtimeMs < statSync(join(ROOT, 'src', `${m}.ts`)).mtimeMs;
  });
  // Another engineer's file may not typecheck yet; emitting anyway still builds these.
  if (stale) spawnSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmitOnError', 'false'], { cwd: ROOT, stdio: 'ignore' });
}

let root: string;
let sessionsDir: string;
let servers: ControlServer[];
let children: ChildProcessWithoutNullStreams[];
const NOW = Date.now();

beforeAll(() => ensureBuilt(), 60_000);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'aw-cli-status-'));
  sessionsDir = join(root, 'sessions');
  mkdirSync(sessionsDir, { mode: 0o700 });
  servers = [];
  children = [];
});

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const server of servers) await server.close();
  rmSync(root, { recursive: true, force: true });
});

function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999_999;
}

function agentwrapRecord(key: string, overrides: Partial<SessionRecordInput> = {}): SessionRecord {
  return createSessionRecord({
    sourceCli: 'claude',
    sessionId: key.replace(/^claude-/, ''),
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/home/user/repo',
    startedAtMs: NOW - 120_000,
    // Written now, not when the file loaded: on a loaded machine a later test runs more than
    // a record's TTL (15 s) after that, and its records would read as expired.
    updatedAtMs: Date.now(),
    state: 'working',
    stateSinceMs: NOW - 65_000,
    seen: true,
    stuck: false,
    winner: 'pack',
    ruleId: 'spinner',
    control: join(root, 'sockets', `${key}.sock`),
    ...overrides,
  });
}

/** Writes a record the way writers must (temp file, then rename), so readers never see half of one. */
function put(name: string, value: unknown): void {
  const temp = join(sessionsDir, `.${name}.tmp`);
  writeFileSync(temp, typeof value === 'string' ? value : JSON.stringify(value), { mode: 0o600 });
  renameSync(temp, join(sessionsDir, name));
}

/** Two agentwrap sessions, another tool's record, and three files that must not show. */
function populate(): void {
  put('claude-aaa.json', { ...agentwrapRecord('claude-aaa', { state: 'blocked', ruleId: 'permission-dialog' }), title: 'Approve?\u001b]0;pwned\u0007 \u001b[31mnow\u202e' });
  put('claude-bbb.json', agentwrapRecord('claude-bbb', { state: 'working' }));
  put('grok-g1.json', { schema: 1, source_cli: 'grok', session_id: 'g1', pid: process.pid, cwd: '/srv/x', model: 'grok-4.5', effort: 'high', written_by: 'llm-armory', updated_at: Date.now(), ttl_ms: 60_000 });
  put('corrupt.json', '{"schema": 1, "source_cli": ');
  put('claude-expired.json', agentwrapRecord('claude-expired', { updatedAtMs: NOW - 600_000, state: 'done' }));
  put('claude-dead.json', agentwrapRecord('claude-dead', { wrapperPid: deadPid(), state: 'done' }));
}

/** One command, in-process (helpers/cli-in-process.ts): its output and exit code are what is checked. */
function cli(args: string[]): Promise<CliResult> {
  return runCliInProcess(args, { env: { ...process.env, AGENT_STATUS_DIR: root, HOME: '/home/user' } });
}

function spawnCli(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, AGENT_STATUS_DIR: root, HOME: '/home/user' } });
  children.push(child);
  return child;
}

async function until(condition: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

describe('agentwrap status', () => {
  it('lists every live session from every writer, skips corrupt, expired and dead ones, and rolls up', async () => {
    populate();

    const { code, stdout, stderr } = await cli(['status']);

    const lines = stdout.trimEnd().split('\n');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(lines[0]).toMatch(/^STATE +FOR +AGENT +SESSION +CWD +TITLE/);
    expect(lines[1]).toMatch(/^blocked +1m +claude +claude-aaa +~\/repo +Approve\? now$/);
    expect(lines[2]).toMatch(/^working +1m +claude +claude-bbb +~\/repo$/);
    expect(lines[3]).toMatch(/^- +- +grok +grok-g1 +\/srv\/x +model grok-4\.5, effort high, by llm-armory$/);
    expect(lines[4]).toBe('rollup: blocked (1 blocked, 1 working, 1 from other tools)');
    expect(lines).toHaveLength(5);
    expect(stdout).not.toMatch(/\u001b|\u202e|pwned/);
  });

  it('--json gives the documented shape', async () => {
    populate();

    const { code, stdout } = await cli(['status', '--json']);
    const json = JSON.parse(stdout) as StatusJson;

    expect(code).toBe(0);
    expect(json).toMatchObject({ version: 1, root, rollup: 'blocked', counts: { blocked: 1, done: 0, working: 1, idle: 0, unknown: 0 }, warnings: [] });
    expect(json.sessions.map((s) => [s.key, s.agentwrap, s.state])).toEqual([
      ['claude-aaa', true, 'blocked'],
      ['claude-bbb', true, 'working'],
      ['grok-g1', false, null],
    ]);
    expect(json.sessions[0]?.state_age_ms).toBeGreaterThanOrEqual(65_000);
    expect(json.sessions[0]?.record).toMatchObject({ rule_id: 'permission-dialog', title: 'Approve? now', written_by: 'agentwrap' });
    expect(json.sessions[2]?.record).toMatchObject({ model: 'grok-4.5', written_by: 'llm-armory' });
  });

  it('--format tmux prints counts with tmux colour codes, most urgent first', async () => {
    populate();

    const { stdout } = await cli(['status', '--format', 'tmux']);

    expect(stdout).toBe('#[fg=colour231,bg=colour160,bold] 1 blocked #[default] #[fg=colour16,bg=colour220] 1 working #[default]\n');
  });

  it('says so when there is nothing, and a missing directory is not an error', async () => {
    rmSync(root, { recursive: true });

    const text = await cli(['status']);
    const json = JSON.parse((await cli(['status', '--json'])).stdout) as StatusJson;
    const tmux = await cli(['status', '--format=tmux']);

    expect([text.code, text.stdout]).toEqual([0, `no live agent sessions (${root})\n`]);
    expect([json.rollup, json.sessions]).toEqual([null, []]);
    expect(tmux.stdout).toBe('\n');
  });

  it('warns about a symlinked state directory instead of reading through it', async () => {
    const link = `${root}-link`;
    symlinkSync(root, link);
    populate();
    try {
      const { code, stdout, stderr } = await runCliInProcess(['status'], { env: { ...process.env, AGENT_STATUS_DIR: link } });

      expect(code).toBe(0);
      expect(stderr).toContain(`refusing ${link}: it is a symbolic link`);
      expect(stdout).toMatch(/^no live agent sessions/);
    } finally {
      rmSync(link);
    }
  });

  it('rejects unknown options with a usage error', async () => {
    const { code, stderr } = await cli(['status', '--bogus']);

    expect(code).toBe(2);
    // agentwrap's own line (src/cli/flags.ts), naming the option: never node:util's parser text.
    expect(stderr).toBe('agentwrap: status: unknown option --bogus (see agentwrap status --help)\n');
  });

  it('--watch redraws in place when a record changes and exits 0 on Ctrl-C, restoring the cursor', async () => {
    populate();
    const child = spawnCli(['status', '--watch']);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => out.includes('claude-bbb'), 'the first frame');

    put('claude-ccc.json', agentwrapRecord('claude-ccc', { state: 'done' }));
    await until(() => out.includes('claude-ccc'), 'a redraw with the new session');
    const exited = exitOf(child);
    child.kill('SIGINT');

    expect(await exited).toBe(0);
    const clears = out.split('\u001b[2J').length - 1;
    expect(clears).toBe(1);
    expect(out.split('\u001b[H').length - 1).toBeGreaterThanOrEqual(2);
    expect(out).toContain('\u001b[K\n');
    expect(out.startsWith('\u001b[?25l')).toBe(true);
    expect(out.endsWith('\u001b[?25h')).toBe(true);
  });
});

// ── ack and events against control servers with fake handlers ──────────────────────────────

function fakeSession(key: string) {
  const listeners = new Set<(e: StateChangeEvent) => void>();
  const acks: number[] = [];
  const handlers: ControlHandlers = {
    explain: () => null,
    capture: () => null,
    ack: () => {
      acks.push(Date.now());
      return { state: 'idle' };
    },
    report: () => null,
    subscribe: (emit) => {
      listeners.add(emit);
      return () => listeners.delete(emit);
    },
  };
  const emit = (from: StateChangeEvent['from'], to: StateChangeEvent['to']): void =>
    listeners.forEach((l) => l({ t: Date.now(), session: key, agent: 'claude', from, to, winner: 'pack', rule_id: `rule-${to}` }));
  return { handlers, acks, emit, listenerCount: () => listeners.size };
}

async function liveSession(key: string, state: SessionRecord['state']) {
  const fake = fakeSession(key);
  const record = agentwrapRecord(key, { state });
  mkdirSync(dirname(record.control), { recursive: true, mode: 0o700 });
  servers.push(await startControlServer(record.control, fake.handlers));
  put(`${key}.json`, record);
  // As a real session does: the record is published first, then subscribers hear of the change
  // (a reader that subscribed late rebuilds a missed transition from the record).
  const emit = (from: StateChangeEvent['from'], to: StateChangeEvent['to']): void => {
    put(`${key}.json`, agentwrapRecord(key, { state: to, winner: 'pack', ruleId: `rule-${to}` }));
    fake.emit(from, to);
  };
  return { ...fake, emit };
}

describe('agentwrap ack', () => {
  it('sends ack over the session’s socket, found by a key prefix', async () => {
    const fake = await liveSession('claude-aaa', 'done');
    await liveSession('claude-bbb', 'working');

    const { code, stdout } = await cli(['ack', 'claude-a']);

    expect(code).toBe(0);
    expect(stdout).toBe('acknowledged claude-aaa\n');
    expect(fake.acks).toHaveLength(1);
  });

  it('names the candidates when the session is ambiguous or unknown', async () => {
    await liveSession('claude-aaa', 'done');
    await liveSession('claude-aab', 'done');

    const ambiguous = await cli(['ack', 'claude-aa']);
    const none = await cli(['ack', 'codex']);

    expect([ambiguous.code, none.code]).toEqual([1, 1]);
    expect(ambiguous.stderr).toContain('"claude-aa" matches more than one session: claude-aaa, claude-aab');
    expect(none.stderr).toContain('no live agentwrap session matches "codex" (live sessions: claude-aaa, claude-aab)');
  });

  it('fails clearly when the session’s socket does not answer', async () => {
    put('claude-zzz.json', agentwrapRecord('claude-zzz', { state: 'done' }));

    const { code, stderr } = await cli(['ack', 'claude-zzz']);

    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot ack claude-zzz: no agentwrap session is listening at .*claude-zzz\.sock/);
  });

  it('needs a session argument', async () => {
    expect((await cli(['ack'])).code).toBe(2);
  });
});

describe('agentwrap events', () => {
  it('prints one line per live session, then every transition, picks up new sessions, and exits 0 on Ctrl-C', async () => {
    const first = await liveSession('claude-aaa', 'working');
    const child = spawnCli(['events']);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const lines = (): Record<string, unknown>[] => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

    await until(() => lines().length === 1 && first.listenerCount() === 1, 'the snapshot line and the subscription');
    first.emit('working', 'blocked');
    await until(() => lines().length === 2, 'the transition');
    const second = await liveSession('claude-bbb', 'idle');
    await until(() => lines().length === 3 && second.listenerCount() === 1, 'the new session');
    second.emit('idle', 'working');
    await until(() => lines().length === 4, 'the new session’s transition');
    const exited = exitOf(child);
    child.kill('SIGINT');

    expect(await exited).toBe(0);
    expect(lines().map((l) => [l['session'], l['from'], l['to']])).toEqual([
      ['claude-aaa', null, 'working'],
      ['claude-aaa', 'working', 'blocked'],
      ['claude-bbb', null, 'idle'],
      ['claude-bbb', 'idle', 'working'],
    ]);
    expect(Object.keys(lines()[1] ?? {})).toEqual(['t', 'session', 'agent', 'from', 'to', 'winner', 'rule_id', 'reason']);
    expect(lines()[1]).toMatchObject({ agent: 'claude', winner: 'pack', rule_id: 'rule-blocked' });
    expect(readdirSync(sessionsDir).sort()).toEqual(['claude-aaa.json', 'claude-bbb.json']);
  });

  it('trusts a transition heard while subscribing over a record that is still older', async () => {
    // A live session sends its event before its queued record write lands (live/publisher.ts):
    // here the change comes the moment `events` subscribes, with the record still saying working.
    // Seen under load through `events --host`: the stale record was reported as blocked → working.
    const session = await liveSession('claude-aaa', 'working');
    const subscribe = session.handlers.subscribe;
    session.handlers.subscribe = (emit) => {
      const unsubscribe = subscribe(emit);
      emit({ t: Date.now(), session: 'claude-aaa', agent: 'claude', from: 'working', to: 'blocked', winner: 'pack', rule_id: 'rule-blocked' });
      return unsubscribe;
    };
    const child = spawnCli(['events']);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const lines = (): Record<string, unknown>[] => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

    await until(() => lines().length >= 2 && session.listenerCount() === 1, 'the snapshot line and the transition');
    session.emit('blocked', 'idle');
    await until(() => lines().some((l) => l['to'] === 'idle'), 'the next transition');
    const exited = exitOf(child);
    child.kill('SIGINT');
    await exited;

    expect(lines().map((l) => [l['from'], l['to']])).toEqual([
      [null, 'working'],
      ['working', 'blocked'],
      ['blocked', 'idle'],
    ]);
  });
});
