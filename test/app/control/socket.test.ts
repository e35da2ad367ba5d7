import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ControlError,
  controlSocketCandidates,
  ControlSocketError,
  prepareControlSocketPath,
  requestControl,
  startControlServer,
  subscribeControl,
  UNIX_SOCKET_PATH_MAX_BYTES,
  type ControlHandlers,
  type ControlServer,
  type StateChangeEvent,
} from '../../../src/app/control/socket.js';
import { currentUid, StateDirError } from '../../../src/adapters/state-dir.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const uid = currentUid();

let base: string;
let servers: ControlServer[];

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'aw-ctl-'));
  servers = [];
});

afterEach(async () => {
  for (const server of servers) await server.close();
  rmSync(base, { recursive: true, force: true });
});

function event(to: StateChangeEvent['to'], from: StateChangeEvent['from'] = null): StateChangeEvent {
  return { t: 1_784_200_000_000, session: 'claude-abc', agent: 'claude', from, to, winner: 'pack', rule_id: 'r' };
}

/** Handlers that record what they were asked and let the test emit state changes. */
function fakeHandlers() {
  const listeners = new Set<(e: StateChangeEvent) => void>();
  const calls: string[] = [];
  const handlers: ControlHandlers = {
    explain: (params) => {
      calls.push('explain');
      return { winner: 'pack', ticks: params['ticks'] ?? 1 };
    },
    capture: () => ({ viewport: ['line 1'] }),
    ack: () => {
      calls.push('ack');
      return { state: 'idle' };
    },
    report: () => {
      throw new Error('reports are not enabled');
    },
    subscribe: (emit) => {
      listeners.add(emit);
      return () => listeners.delete(emit);
    },
    info: () => ({ key: 'claude-abc' }),
  };
  return { handlers, calls, emit: (e: StateChangeEvent) => listeners.forEach((l) => l(e)), listenerCount: () => listeners.size };
}

async function start(path: string, handlers: ControlHandlers): Promise<ControlServer> {
  const server = await startControlServer(path, handlers);
  servers.push(server);
  return server;
}

function socketPath(): string {
  const dir = join(base, 'sockets');
  mkdirSync(dir, { mode: 0o700, recursive: true });
  return join(dir, 's.sock');
}

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('control socket requests', () => {
  it('answers explain, ack and ping over one round trip each, and the socket is 0600', async () => {
    const fake = fakeHandlers();
    const path = socketPath();
    await start(path, fake.handlers);

    const explained = await requestControl(path, { method: 'explain', params: { ticks: 5 } }, 2_000);
    const acked = await requestControl(path, { method: 'ack' }, 2_000);
    const ping = await requestControl(path, { method: 'ping' }, 2_000);

    expect(explained).toEqual({ winner: 'pack', ticks: 5 });
    expect(acked).toEqual({ state: 'idle' });
    expect(ping).toMatchObject({ protocol: 1, pid: process.pid, key: 'claude-abc' });
    expect(fake.calls).toEqual(['explain', 'ack']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('turns a throwing handler into an error reply and keeps serving', async () => {
    const path = socketPath();
    await start(path, fakeHandlers().handlers);

    await expect(requestControl(path, { method: 'report', params: { event: 'stop' } }, 2_000)).rejects.toMatchObject({
      code: 'failed',
      message: 'reports are not enabled',
    });
    await expect(requestControl(path, { method: 'capture' }, 2_000)).resolves.toEqual({ viewport: ['line 1'] });
  });

  it('answers unknown methods and garbage lines with errors, not a crash', async () => {
    const path = socketPath();
    await start(path, fakeHandlers().handlers);

    const replies = await new Promise<string>((resolvePromise) => {
      const socket = connect(path, () => socket.write('not json\n{"id":7,"method":"reboot"}\n'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.split('\n').length > 2) {
          socket.destroy();
          resolvePromise(text);
        }
      });
    });

    const [first, second] = replies.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; error: { code: string } });
    expect([first?.error.code, second?.id, second?.error.code]).toEqual(['bad-request', 7, 'unknown-method']);
  });

  it('reports an absent session as unreachable', async () => {
    await expect(requestControl(join(base, 'nobody.sock'), { method: 'ack' }, 1_000)).rejects.toMatchObject({ code: 'unreachable' });
  });

  it('times out on a listener that never answers', async () => {
    const path = socketPath();
    const mute = createServer(() => undefined);
    await new Promise<void>((r) => mute.listen(path, r));
    try {
      const error = await requestControl(path, { method: 'ack' }, 200).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ControlError);
      expect((error as ControlError).code).toBe('timeout');
    } finally {
      mute.close();
    }
  });
});

describe('control socket subscribe', () => {
  it('streams state changes until the client disconnects, then unsubscribes', async () => {
    const fake = fakeHandlers();
    const path = socketPath();
    const server = await start(path, fake.handlers);
    const received: StateChangeEvent[] = [];

    const subscription = await subscribeControl(path, (e) => received.push(e), 2_000);
    fake.emit(event('blocked', 'working'));
    fake.emit(event('idle', 'blocked'));
    await until(() => received.length === 2);
    subscription.close();
    await subscription.closed;
    await until(() => fake.listenerCount() === 0 && server.connectionCount() === 0);

    expect(received.map((e) => [e.from, e.to])).toEqual([
      ['working', 'blocked'],
      ['blocked', 'idle'],
    ]);
  });

  it('ends the stream when the session closes its server', async () => {
    const fake = fakeHandlers();
    const path = socketPath();
    const server = await start(path, fake.handlers);
    const subscription = await subscribeControl(path, () => undefined, 2_000);

    await server.close();
    servers = [];

    await expect(subscription.closed).resolves.toBeUndefined();
    expect(existsSync(path)).toBe(false);
  });
});

describe('control socket path safety', () => {
  it('replaces a stale socket left by a crashed session', async () => {
    const path = socketPath();
    // A socket file with no listener: bound by a child process that is then killed.
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(lstatSync(path).isSocket()).toBe(true);
    await expect(requestControl(path, { method: 'ping' }, 1_000)).rejects.toMatchObject({ code: 'unreachable' });

    await start(path, fakeHandlers().handlers);

    await expect(requestControl(path, { method: 'ping' }, 1_000)).resolves.toMatchObject({ protocol: 1 });
  }, 10_000);

  it('refuses a regular file at the socket path', async () => {
    const path = socketPath();
    writeFileSync(path, 'precious');

    await expect(startControlServer(path, fakeHandlers().handlers)).rejects.toThrow(ControlSocketError);
    await expect(startControlServer(path, fakeHandlers().handlers)).rejects.toThrow(/not a socket/);
    expect(lstatSync(path).isFile()).toBe(true);
  });

  it('refuses a symlink at the socket path', async () => {
    const path = socketPath();
    symlinkSync(join(base, 'target'), path);

    await expect(startControlServer(path, fakeHandlers().handlers)).rejects.toThrow(/symbolic link/);
  });

  it('refuses to take over a socket another process listens on', async () => {
    const path = socketPath();
    await start(path, fakeHandlers().handlers);

    await expect(startControlServer(path, fakeHandlers().handlers)).rejects.toThrow(/another process is listening/);
    await expect(requestControl(path, { method: 'ping' }, 1_000)).resolves.toMatchObject({ protocol: 1 });
  });

  it('refuses a socket directory others can enter', async () => {
    const dir = join(base, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o755);

    await expect(startControlServer(join(dir, 's.sock'), fakeHandlers().handlers)).rejects.toThrow(StateDirError);
  });
});

describe('control socket path choice', () => {
  it('uses <root>/sockets/<key>.sock when it fits, created 0700', () => {
    const root = join(base, 'agent-status');

    const path = prepareControlSocketPath({ root, key: 'claude-abc', env: {}, uid });

    expect(path).toBe(join(root, 'sockets', 'claude-abc.sock'));
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
  });

  it('falls back to a short hashed name when the key makes the path too long', () => {
    const root = join(base, 'agent-status');
    const key = `claude-${'x'.repeat(110)}`;

    const path = prepareControlSocketPath({ root, key, env: {}, uid });

    expect(dirname(path)).toBe(join(root, 'sockets'));
    expect(Buffer.byteLength(path)).toBeLessThanOrEqual(UNIX_SOCKET_PATH_MAX_BYTES);
  });

  it('falls back to $XDG_RUNTIME_DIR/agentwrap when the root itself is too long, and serves there', async () => {
    const root = join(base, 'r'.repeat(120), 'agent-status');
    const runtime = join(base, 'run');
    mkdirSync(runtime, { mode: 0o700 });

    const path = prepareControlSocketPath({ root, key: 'claude-abc', env: { XDG_RUNTIME_DIR: runtime }, uid });
    await start(path, fakeHandlers().handlers);

    expect(dirname(path)).toBe(join(runtime, 'agentwrap'));
    await expect(requestControl(path, { method: 'ping' }, 1_000)).resolves.toMatchObject({ key: 'claude-abc' });
  });

  it('lists /tmp/agentwrap-<uid> as the last resort and never a path over the limit', () => {
    const candidates = controlSocketCandidates({ root: join('/', 'x'.repeat(200)), key: 'k', env: {}, uid: 1000 });

    expect(candidates).toEqual([expect.stringMatching(/^\/tmp\/agentwrap-1000\/[0-9a-f]{8}\.sock$/)]);
  });

  it('refuses a symlinked state root instead of falling back elsewhere', () => {
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'agent-status'));

    expect(() => prepareControlSocketPath({ root: join(base, 'agent-status'), key: 'k', env: {}, uid })).toThrow(/symbolic link/);
  });
});

// ── other users ─────────────────────────────────────────────────────────────────────────────

const USERS = ['awh5a', 'awh5b'] as const;
const CAN_SWITCH_USERS = uid === 0 && existsSync('/usr/sbin/useradd') && existsSync('/usr/sbin/runuser');

/** The server runs from the built JS as another user; rebuild when the sources are newer. */
function ensureBuilt(): void {
  const pairs = ['app/control/socket', 'adapters/state-dir', 'core/records/session-record'].map((m) => [join(ROOT, 'src', `${m}.ts`), join(ROOT, 'dist', 'src', `${m}.js`)] as const);
  if (pairs.every(([src, out]) => existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs)) return;
  // Another engineer's file may not typecheck yet; emitting anyway still builds ours.
  spawnSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmitOnError', 'false'], { cwd: ROOT, stdio: 'ignore' });
}

function idOf(user: string, flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, user]).toString().trim());
}

/** Tries to connect as `user`; prints "connected" or the errno code. */
function connectAs(user: string, path: string): string {
  const script = `const s = require('net').connect(${JSON.stringify(path)});
s.on('connect', () => { console.log('connected'); s.destroy(); });
s.on('error', (e) => console.log(e.code));`;
  return execFileSync('runuser', ['-u', user, '--', process.execPath, '-e', script], { timeout: 10_000 }).toString().trim();
}

describe.skipIf(!CAN_SWITCH_USERS)('only the same user may connect (two non-root users)', () => {
  const created: string[] = [];
  let server: ChildProcess | undefined;

  beforeAll(() => {
    for (const user of USERS) {
      if (spawnSync('id', ['-u', user]).status !== 0) {
        execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
        created.push(user);
      }
    }
    ensureBuilt();
  }, 60_000);

  afterAll(() => {
    server?.kill();
    for (const user of created) spawnSync('userdel', [user]);
  });

  it('refuses another user through the 0700 directory and, with the directory opened up, the 0600 socket', async () => {
    const [owner, other] = USERS;
    const dir = mkdtempSync(join(tmpdir(), 'aw-ctl-users-'));
    const socketsDir = join(dir, 'sockets');
    mkdirSync(socketsDir, { mode: 0o700 });
    for (const path of [dir, socketsDir]) chownSync(path, idOf(owner, '-u'), idOf(owner, '-g'));
    const path = join(socketsDir, 's.sock');
    const moduleUrl = `file://${join(ROOT, 'dist', 'src', 'app', 'control', 'socket.js')}`;
    const serve = `const { startControlServer } = await import(${JSON.stringify(moduleUrl)});
const none = () => null;
await startControlServer(${JSON.stringify(path)}, { explain: none, capture: none, ack: none, report: none, subscribe: () => () => {} });
process.stdout.write('ready\\n');`;
    server = spawn('runuser', ['-u', owner, '--', process.execPath, '--input-type=module', '-e', serve], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolvePromise, reject) => {
      server?.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolvePromise());
      server?.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });

    try {
      const ownerResult = connectAs(owner, path);
      const otherThroughDir = connectAs(other, path);
      chmodSync(dir, 0o755);
      chmodSync(socketsDir, 0o755);
      const otherThroughSocketMode = connectAs(other, path);
      // The control case: with the socket opened up too, the same probe does connect.
      chmodSync(path, 0o666);
      const otherWideOpen = connectAs(other, path);

      expect(statSync(socketsDir).uid).toBe(idOf(owner, '-u'));
      expect([ownerResult, otherThroughDir, otherThroughSocketMode, otherWideOpen]).toEqual(['connected', 'EACCES', 'EACCES', 'connected']);
    } finally {
      // userdel refuses a user with a running process: wait for the server to be gone.
      const exited = new Promise((resolvePromise) => server?.once('exit', resolvePromise));
      server.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
