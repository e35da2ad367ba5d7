/**
 * Security of what agentwrap publishes: permissions of every file and directory it creates,
 * refusal of state roots that are symlinks, another user's, or writable by group or others
 * (the agent still runs), no prompt or screen text in any file it writes, and `status explain`
 * / `status capture` reaching a session only for its owner.
 *
 * The control socket's own refusal of another user (EACCES through the 0700 directory and
 * through the 0600 socket) is proven with two real users in test/app/control/socket.test.ts
 * ("refuses another user through the 0700 directory and, with the directory opened up, the
 * 0600 socket"); here the same guard is checked end to end through the CLI.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_AGENT_PATH } from '../../src/adapters/paths.js';
import { launchWrapped } from '../../src/app/launch/launch.js';
import { attachLiveSession, syntheticSessionId } from '../../src/app/live/live-session.js';
import { createVirtualTerminal } from '../../src/app/virtual-terminal.js';
import type { AgentState } from '../../src/core/types.js';
import { asSecondUser, CLI, ensureSecondUser, IS_ROOT, SECOND_USER, openRawTerminal, runCli, runCliAsync, sleep, stateRoots, waitForStatus } from './harness.js';

const { make: stateRoot } = stateRoots('aw-robust-sec-');

/** Every path under `dir` with its type and permission bits. */
function walk(dir: string): { path: string; kind: string; mode: number }[] {
  const out: { path: string; kind: string; mode: number }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    const kind = stats.isDirectory() ? 'dir' : stats.isSocket() ? 'socket' : stats.isFile() ? 'file' : 'other';
    out.push({ path, kind, mode: stats.mode & 0o777 });
    if (stats.isDirectory()) out.push(...walk(path));
  }
  return out;
}

describe('permissions of everything agentwrap creates', () => {
  it('creates the root, sessions/, providers/ and sockets/ 0700, the record and heartbeat 0600, the socket 0600', async () => {
    const { root, env } = stateRoot();
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; read line'], { env });
    await term.waitFor('ALIVE');
    await waitForStatus(env, (s) => s.sessions.length === 1);

    const entries = walk(root);
    expect(lstatSync(root).mode & 0o777).toBe(0o700);
    expect(entries.filter((e) => e.kind === 'dir').map((e) => [e.path.slice(root.length), e.mode])).toEqual([
      ['/providers', 0o700],
      ['/sessions', 0o700],
      ['/sockets', 0o700],
    ]);
    const files = entries.filter((e) => e.kind !== 'dir');
    expect(files.map((e) => e.kind).sort()).toEqual(['file', 'file', 'socket']);
    for (const file of files) expect([file.path, file.mode]).toEqual([file.path, 0o600]);
    term.pty.write('\r');
    expect((await term.exited).exitCode).toBe(0);
  });
});

describe('state roots agentwrap refuses', () => {
  const cases: readonly [string, (root: string, dir: string) => boolean, RegExp][] = [
    ['a symbolic link', (root, dir) => (mkdirSync(join(dir, 'real'), { mode: 0o700 }), symlinkSync(join(dir, 'real'), root), true), /it is a symbolic link/],
    ['writable by its group', (root) => (mkdirSync(root), chmodSync(root, 0o770), true), /writable by group or others \(mode 0770\)/],
    ['writable by others', (root) => (mkdirSync(root), chmodSync(root, 0o703), true), /writable by group or others \(mode 0703\)/],
    [
      "another user's",
      (root) => {
        const user = ensureSecondUser();
        if (user === undefined) return false;
        mkdirSync(root, { mode: 0o700 });
        chownSync(root, user.uid, user.gid);
        return true;
      },
      /owned by another user \(uid \d+, expected \d+\)/,
    ],
  ];

  it.for(cases)('refuses a root that is %s with one message naming it, creates nothing, and runs the agent', async ([_what, arrange, reason], { skip }) => {
    const { dir, root, env } = stateRoot();
    if (!arrange(root, dir)) skip(`needs a second user, and ${SECOND_USER} cannot be created here (not root, or useradd failed)`);
    const before = walk(dir).map((e) => e.path);
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; sleep 0.3; echo BYE'], { env });

    const exit = await term.exited;

    expect(exit.exitCode).toBe(0);
    const text = term.text();
    expect(text).toMatch(/ALIVE\r\nBYE\r\n/);
    const messages = text.split('\r\n').filter((line) => line.startsWith('agentwrap:'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(new RegExp(`^agentwrap: refusing ${root}: ${reason.source}; not publishing session state \\(the agent runs normally\\)$`));
    expect(walk(dir).map((e) => e.path)).toEqual(before);
    // Readers refuse it too, with the same reason.
    expect(runCli(['status'], env).stderr).toMatch(reason);
  });
});

describe('what the published files contain', () => {
  it('holds no prompt, no tool output and no screen text in any record or heartbeat, for a prompt the screen showed', async () => {
    const { dir, root } = stateRoot();
    const secret = `secret-${randomBytes(12).toString('hex')}`;
    const env = { ...process.env, AGENT_STATUS_DIR: root, HOME: dir, AGENTWRAP_DEMO_SPEED: '8' };
    const terminal = createVirtualTerminal({ cols: 100, rows: 30 });
    const launched = launchWrapped({ file: process.execPath, args: [DEMO_AGENT_PATH], env, terminal, forwardSignals: false });
    const states: AgentState[] = [];
    const live = attachLiveSession({
      launched, command: 'demo-agent', args: [], packAgent: 'demo', sessionId: syntheticSessionId(process.pid, Date.now()), env, cwd: dir,
      record: undefined, notify: false, onStateCommand: undefined, warn: () => undefined, onStateChange: (event) => states.push(event.to),
    });
    const waitForState = async (state: AgentState): Promise<void> => {
      for (let i = 0; i < 200 && !states.includes(state); i++) await sleep(100);
      expect(states).toContain(state);
    };
    const filesContaining = (): string[] =>
      walk(root)
        .filter((e) => e.kind === 'file')
        .filter((e) => readFileSync(e.path).includes(secret))
        .map((e) => e.path);
    try {
      await waitForState('idle');
      terminal.type(`explain ${secret} please\r`);
      await waitForState('working');
      const screenDuringWork = live.detector.snapshot().screen.rows.join('\n');
      const whileWorking = filesContaining();
      await waitForState('done');
      const screenWhenDone = live.detector.snapshot().screen.rows.join('\n');
      const whenDone = filesContaining();
      const files = walk(root).filter((e) => e.kind === 'file');
      const status = await runCliAsync(['status', '--json'], { AGENT_STATUS_DIR: root });

      // The secret really was on the screen (the demo echoes the prompt in its transcript)…
      expect(`${screenDuringWork}\n${screenWhenDone}`).toContain(secret);
      // …and in no file agentwrap wrote, nor in what `status` prints.
      // (A write in flight may show its `.NAME.PID.RANDOM.tmp` file too; those were scanned as well.)
      expect(files.map((e) => e.path.slice(root.length)).filter((p) => !p.endsWith('.tmp')).sort()).toEqual(['/providers/agentwrap.json', `/sessions/${live.key}.json`]);
      expect(whileWorking).toEqual([]);
      expect(whenDone).toEqual([]);
      expect(status.stdout).not.toContain(secret);
      expect(status.stdout).toContain(live.key);
    } finally {
      terminal.type('/exit\r');
      const timer = setTimeout(() => launched.kill('SIGTERM'), 5_000);
      await launched.exited;
      clearTimeout(timer);
      await live.closed;
    }
  });
});

describe('status explain and capture over the control socket', () => {
  it.skipIf(!IS_ROOT)('answer the owner, and refuse another user with a message naming what is refused', async ({ skip }) => {
    const user = ensureSecondUser();
    if (user === undefined) return skip(`no second user: useradd ${SECOND_USER} failed here`);
    const { dir, root, env } = stateRoot();
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; read line'], { env });
    await term.waitFor('ALIVE');
    const { sessions } = await waitForStatus(env, (s) => s.sessions.length === 1);
    const key = sessions[0]?.key ?? '';

    const owner = runCli(['status', 'explain', key, '--json'], env);
    expect(owner.status).toBe(0);
    expect((JSON.parse(owner.stdout) as { session: string }).session).toBe(key);
    const ownerCapture = runCli(['status', 'capture', key, '--out', join(dir, 'capture')], env);
    expect(ownerCapture.status, ownerCapture.stderr).toBe(0);

    // The other user: the root is 0700 and someone else's, so nothing is even listed.
    const asOther = (args: string[]) => {
      const [file = 'runuser', ...rest] = asSecondUser([process.execPath, CLI, ...args]);
      return runCliAs(file, rest, { ...env, HOME: '/tmp' });
    };
    for (const args of [['status', 'explain', key], ['status', 'capture', key, '--out', '/tmp']]) {
      const other = asOther(args);
      expect(other.status, other.stdout).not.toBe(0);
      expect(other.stderr).toMatch(new RegExp(`${root}: (cannot open it: permission denied \\(EACCES\\)|owned by another user)`));
      expect(other.stdout).not.toContain('"rules"');
    }
    // With every directory opened up for reading, the socket itself (0600, in the 0700
    // sockets/ directory) still keeps the other user out.
    chmodSync(dir, 0o755);
    chmodSync(root, 0o755);
    chmodSync(join(root, 'sessions'), 0o755);
    const explainAsOther = asOther(['status', 'explain', key]);
    expect(explainAsOther.status).not.toBe(0);
    expect(explainAsOther.stdout).toBe('');
    chmodSync(root, 0o700);
    term.pty.write('\r');
    expect((await term.exited).exitCode).toBe(0);
  });
});

function runCliAs(file: string, args: readonly string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(file, [...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
}
