/**
 * The state directory failing under a running session, through the real CLI in a real outer
 * terminal: unwritable (as a non-root user), full (a 64 KiB tmpfs), deleted, swapped for a
 * symlink, or its socket directory taken by a regular file. Every case asserts that the agent
 * ran to its end with its output and exit code, and the one message naming the resource and
 * the cause.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asSecondUser, CLI, ensureSecondUser, SECOND_USER, freshStateRoot, IS_ROOT, openRawTerminal, sleep, stateRoots, statusJson, waitForStatus } from './harness.js';

const { make: stateRoot, cleanups } = stateRoots('aw-robust-faults-');

async function oneSession(env: Record<string, string>) {
  const status = await waitForStatus(env, (s) => s.sessions.length === 1);
  const session = status.sessions[0];
  if (session === undefined) throw new Error('no session');
  return { key: session.key, wrapperPid: Number(session.record['wrapper_pid']), agentPid: Number(session.record['pid']), control: String(session.record['control']) };
}

describe('the state directory failing under a running session', () => {
  it.skipIf(!IS_ROOT)('says once that an unwritable directory cannot be written, names it, and runs the agent (as a non-root user)', async ({ skip }) => {
    const user = ensureSecondUser();
    if (user === undefined) return skip(`no second user: useradd ${SECOND_USER} failed here`);
    const { dir, root } = freshStateRoot('aw-robust-faults-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(root);
    chownSync(root, user.uid, user.gid);
    chownSync(dir, user.uid, user.gid);
    chmodSync(root, 0o500);
    const [file = 'runuser', ...args] = asSecondUser([process.execPath, CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; sleep 0.5; echo BYE']);
    const term = openRawTerminal(file, args, { env: { AGENT_STATUS_DIR: root, HOME: dir, XDG_RUNTIME_DIR: '' } });

    const exit = await term.exited;

    expect(exit.exitCode).toBe(0);
    const text = term.text();
    expect(text).toMatch(/ALIVE\r\nBYE\r\n/);
    const sessionsDir = join(root, 'sessions');
    expect(text).toContain(`agentwrap: not publishing session state: ${sessionsDir}: cannot create it: permission denied (EACCES). The agent keeps running`);
    expect(readdirCount(root)).toBe(0);
  });

  it.skipIf(!IS_ROOT)('says the disk is full, names the directory, runs the agent, and publishes once space is back', async ({ skip }) => {
    const { dir, env } = stateRoot();
    const mount = join(dir, 'tiny');
    mkdirSync(mount);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mount], { encoding: 'utf8' });
    if (mounted.status !== 0) skip(`cannot mount a tmpfs here (${mounted.stderr.trim()})`);
    cleanups.push(() => spawnSync('umount', ['-l', mount]));
    const root = join(mount, 'state');
    const filler = join(mount, 'filler');
    // Fill it to the last byte (directories and sockets need no data pages on tmpfs).
    fillUntilFull(filler);
    const fullEnv = { ...env, AGENT_STATUS_DIR: root };
    // A screenful first (launch/first-screen.ts): the session starts publishing once it is drawn.
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'printf "%02000d\\n" 0; echo ALIVE; read line; echo BYE'], { env: fullEnv });
    await term.waitFor('ALIVE');
    await sleep(1_500);
    expect((await statusJson(fullEnv)).sessions).toEqual([]);

    rmSync(filler);
    // The store retries every 5 s.
    const status = await waitForStatus(fullEnv, (s) => s.sessions.length === 1, 12_000);
    expect(status.sessions[0]?.record['wrapper_pid']).toBeGreaterThan(0);
    term.pty.write('\r');
    const exit = await term.exited;

    expect(exit.exitCode).toBe(0);
    expect(term.text()).toContain(`agentwrap: not publishing session state: ${root}: disk full (ENOSPC: no space left on device`);
    expect(term.text().match(/not publishing session state/g)).toHaveLength(1);
  }, 30_000);

  it('recreates a state directory deleted while the session runs, 0700 with a 0600 record', async () => {
    const { root, env } = stateRoot();
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; read line; echo BYE'], { env });
    await term.waitFor('ALIVE');
    const { key } = await oneSession(env);

    rmSync(root, { recursive: true, force: true });
    // The record is rewritten every third of its lease (30 s; sooner while the session is busy).
    await waitForStatus(env, (s) => s.sessions.length === 1, 45_000);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'sessions', `${key}.json`)).mode & 0o777).toBe(0o600);
    term.pty.write('\r');
    expect((await term.exited).exitCode).toBe(0);
    expect(term.text()).not.toContain('agentwrap:');
  }, 60_000);

  it('refuses a state directory swapped for a symlink while the session runs, writes nothing through it, and says so once', async () => {
    const { dir, root, env } = stateRoot();
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; read line; echo BYE'], { env });
    await term.waitFor('ALIVE');
    const { key } = await oneSession(env);
    const elsewhere = join(dir, 'elsewhere');
    renameSync(root, elsewhere);
    symlinkSync(elsewhere, root);
    const recordInTarget = join(elsewhere, 'sessions', `${key}.json`);
    const writtenBefore = statSync(recordInTarget).mtimeMs;

    await sleep(6_500);
    expect(statSync(recordInTarget).mtimeMs).toBe(writtenBefore);
    expect((await statusJson(env)).warnings.join('\n')).toContain(`refusing ${root}: it is a symbolic link`);
    term.pty.write('\r');
    const exit = await term.exited;

    expect(exit.exitCode).toBe(0);
    expect(term.text()).toContain('BYE');
    expect(term.text().match(new RegExp(`agentwrap: not publishing session state: refusing ${root}: it is a symbolic link`, 'g'))).toHaveLength(1);
    // Nothing was done through the link, not even the clean-exit delete: the record left in
    // the old directory expires by TTL.
    expect(statSync(recordInTarget).mtimeMs).toBe(writtenBefore);
  }, 30_000);

  it('runs the agent and publishes its record when the socket directory is taken by a regular file, naming it', async () => {
    const { root, env } = stateRoot();
    mkdirSync(root, { mode: 0o700 });
    writeFileSync(join(root, 'sockets'), 'not a directory');
    const term = openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'echo ALIVE; read line; echo BYE'], { env });
    await term.waitFor('ALIVE');

    const status = await waitForStatus(env, (s) => s.sessions.length === 1);
    expect(status.sessions[0]?.record['control']).toBe('');
    term.pty.write('\r');
    const exit = await term.exited;

    expect(exit.exitCode).toBe(0);
    expect(term.text()).toContain(`agentwrap: no control socket (status explain/ack will not reach this session): refusing ${join(root, 'sockets')}: not a directory`);
    expect(readFileSync(join(root, 'sockets'), 'utf8')).toBe('not a directory');
  });
});

function fillUntilFull(path: string): void {
  const fd = openSync(path, 'a');
  try {
    for (;;) writeSync(fd, Buffer.alloc(512));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

function readdirCount(path: string): number {
  return spawnSync('ls', ['-A', path], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l !== '').length;
}
