/**
 * A terminal that goes away is a normal ending (docs/robustness.md): the tmux server is killed
 * under a wrapped agent that is running, one that exits at the same moment, and a session still
 * starting; and agentwrap gets SIGTERM while its agent is stopped. Each time: nothing on
 * agentwrap's stderr (no stack trace, no 'Error', no Node assertion), agentwrap exited, the
 * agent got the signal (or had ended by itself), and the session record is gone.
 *
 * The pane runs hangup-parent.mjs, which stands in for the user's shell (it passes the
 * hangup's SIGHUP on to agentwrap as bash does to its jobs) and keeps agentwrap's stderr and
 * exit status in files, since the terminal they would have gone to is gone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, isAlive, shellQuote, sleep, stateRoots, waitUntil } from './harness.js';

const { make: stateRoot } = stateRoots('aw-robust-hangup-');
const PARENT = join(ROOT, 'test', 'robustness', 'hangup-parent.mjs');
const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

/** A wrapped shell agent that notes its pid and the signals it gets in DIR. */
function agentScript(dir: string, body: string): string {
  return [
    `echo $$ > ${shellQuote(join(dir, 'agent.pid'))}`,
    `trap 'echo HUP >> ${shellQuote(join(dir, 'agent.log'))}; exit 129' HUP`,
    `trap 'echo TERM >> ${shellQuote(join(dir, 'agent.log'))}; exit 143' TERM`,
    'echo agent-ready',
    body,
  ].join('\n');
}
const SLEEP_FOREVER = 'while :; do sleep 1 & wait $!; done';

let sockets: string[] = [];
afterEach(() => {
  for (const socket of sockets) {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    // A killed server leaves its socket file behind.
    rmSync(join(process.env['TMUX_TMPDIR'] ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  }
  sockets = [];
});

interface Pane {
  readonly dir: string;
  readonly root: string;
  readonly socket: string;
  /** The agent's parent, once waitForRecord saw the agent. */
  helperPid?: number;
  killServer(): void;
  /** agentwrap's exit as hangup-parent.mjs saw it, once it exited. */
  waitForExit(): Promise<{ code: number | null; signal: string | null; pid: number }>;
  stderr(): string;
  agentLog(): string;
  agentPid(): number | undefined;
  wrapperPid(): number | undefined;
  records(): string[];
}

let paneCount = 0;
function openPane(body: string | ((dir: string) => string), { parentKeepsHangup = false } = {}): Pane {
  const { dir, root, env } = stateRoot();
  mkdirSync(dir, { recursive: true });
  const socket = `aw-hangup-${process.pid}-${paneCount++}`;
  sockets.push(socket);
  const script = join(dir, 'agent.sh');
  writeFileSync(script, agentScript(dir, typeof body === 'string' ? body : body(dir)));
  const result = join(dir, 'result.json');
  const stderrFile = join(dir, 'stderr.txt');
  const command = [
    'env',
    ...Object.entries(env).map(([key, value]) => `${key}=${value}`),
    ...(parentKeepsHangup ? ['HANGUP_PARENT_KEEPS_SIGHUP=1'] : []),
    process.execPath,
    PARENT,
    result,
    stderrFile,
    process.execPath,
    CLI,
    'run',
    '--pack',
    'demo',
    '--',
    '/bin/sh',
    script,
  ]
    .map(shellQuote)
    .join(' ');
  const started = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '30', command], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  const records = (): string[] => {
    try {
      return readdirSync(join(root, 'sessions')).filter((name) => name.endsWith('.json'));
    } catch {
      // No sessions directory yet: no records.
      return [];
    }
  };
  return {
    dir,
    root,
    socket,
    killServer: () => {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    },
    async waitForExit() {
      await waitUntil(() => existsSync(result), 20_000, 'agentwrap to exit');
      return JSON.parse(readFileSync(result, 'utf8')) as { code: number | null; signal: string | null; pid: number };
    },
    stderr: () => (existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : ''),
    agentLog: () => (existsSync(join(dir, 'agent.log')) ? readFileSync(join(dir, 'agent.log'), 'utf8') : ''),
    agentPid: () => (existsSync(join(dir, 'agent.pid')) ? Number(readFileSync(join(dir, 'agent.pid'), 'utf8')) : undefined),
    wrapperPid: () => (existsSync(`${result}.pid`) ? Number(readFileSync(`${result}.pid`, 'utf8')) : undefined),
    records,
  };
}

async function waitForRecord(pane: Pane): Promise<void> {
  await waitUntil(() => pane.records().length === 1 && pane.agentPid() !== undefined, 20_000, 'the session record and the agent');
  const stat = readFileSync(`/proc/${pane.agentPid() as number}/stat`, 'utf8');
  pane.helperPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** What every ending must look like, whatever the agent itself did. */
async function expectQuietEnding(pane: Pane): Promise<{ code: number | null; signal: string | null }> {
  const exit = await pane.waitForExit();
  expect(pane.stderr()).toBe('');
  expect(isAlive(exit.pid)).toBe(false);
  const agent = pane.agentPid();
  if (agent !== undefined) await waitUntil(() => !isAlive(agent), 10_000, 'the agent to end');
  // The job-control helper (the agent's parent, pty.ts) goes too, with anything it started.
  if (pane.helperPid !== undefined) await waitUntil(() => !isAlive(pane.helperPid as number), 10_000, 'the job-control helper to end');
  expect(pane.records()).toEqual([]);
  return exit;
}

describe.skipIf(!hasTmux)('a terminal that goes away (tmux kill-server) ends the session quietly', () => {
  it('under a running agent: the agent gets SIGHUP, agentwrap exits with its status', async () => {
    const pane = openPane(SLEEP_FOREVER);
    await waitForRecord(pane);
    pane.killServer();
    const exit = await expectQuietEnding(pane);
    expect(pane.agentLog()).toBe('HUP\n');
    expect(exit).toMatchObject({ code: 129, signal: null });
  });

  it('under a silent agent, with no SIGHUP passed on to agentwrap: its terminal alone tells it', async () => {
    const pane = openPane(SLEEP_FOREVER, { parentKeepsHangup: true });
    await waitForRecord(pane);
    pane.killServer();
    const exit = await expectQuietEnding(pane);
    expect(pane.agentLog()).toBe('HUP\n');
    expect(exit).toMatchObject({ code: 129, signal: null });
  });

  it('under an agent exiting at the same moment', async () => {
    // The agent exits on its own within ~0-50 ms of the kill; three offsets around it.
    for (const delayMs of [0, 20, 60]) {
      const pane = openPane((dir) => `while [ ! -e ${shellQuote(join(dir, 'go'))} ]; do sleep 0.02; done; exit 3`);
      await waitForRecord(pane);
      writeFileSync(join(pane.dir, 'go'), '');
      await sleep(delayMs);
      pane.killServer();
      const exit = await expectQuietEnding(pane);
      // Either ending is normal: its own exit (3) or the hangup's SIGHUP (129).
      expect([3, 129]).toContain(exit.code);
    }
  });

  it('while the session is still starting', async () => {
    // From agentwrap's spawn (before raw mode, the pty, the agent) to about when the agent starts.
    for (const delayMs of [0, 40, 120]) {
      const pane = openPane(SLEEP_FOREVER);
      await waitUntil(() => pane.wrapperPid() !== undefined, 20_000, 'agentwrap to be started');
      await sleep(delayMs);
      pane.killServer();
      const exit = await expectQuietEnding(pane);
      // Killed by the hangup before it set its handlers (Node's default for SIGHUP), or it passed
      // the hangup on to the agent, if one had started, and exited with its status.
      if (exit.signal === null) expect(exit.code).toBe(129);
      else expect(exit.signal).toBe('SIGHUP');
      if (pane.agentPid() !== undefined && exit.signal === null) expect(pane.agentLog()).toBe('HUP\n');
    }
  });
});

describe.skipIf(!hasTmux)('SIGTERM to agentwrap while its agent is stopped', () => {
  it('reaches the agent at once (SIGTERM, then SIGCONT) and ends the session', async () => {
    const pane = openPane(SLEEP_FOREVER);
    await waitForRecord(pane);
    const agent = pane.agentPid() as number;
    process.kill(agent, 'SIGSTOP');
    await waitUntil(() => readFileSync(`/proc/${agent}/stat`, 'utf8').split(') ')[1]?.startsWith('T') === true, 5_000, 'the agent to stop');
    process.kill(pane.wrapperPid() as number, 'SIGTERM');
    const exit = await expectQuietEnding(pane);
    expect(pane.agentLog()).toBe('TERM\n');
    expect(exit).toMatchObject({ code: 143, signal: null });
  });

  it('before agentwrap first looked at its terminal: no agent started, nothing said, 129', async () => {
    // The hangup lands before Node decides what stdin is (seen under load: the kill during
    // agentwrap's start). A shell that ignores SIGHUP waits in a pty, the pty's master is closed,
    // and only then does the shell start agentwrap on the dead terminal.
    const dir = mkdtempSync(join(tmpdir(), 'aw-hungup-start-'));
    const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
    const script = [
      "trap '' HUP",
      `while [ ! -e ${quote(join(dir, 'go'))} ]; do sleep 0.02; done`,
      `${quote(process.execPath)} ${quote(CLI)} run -- sh -c ${quote(`echo RAN > ${join(dir, 'ran')}`)} 2> ${quote(join(dir, 'stderr'))}`,
      `echo $? > ${quote(join(dir, 'rc.part'))} && mv ${quote(join(dir, 'rc.part'))} ${quote(join(dir, 'rc'))}`,
    ].join('\n');
    const socket = `aw-hangup-${process.pid}-${paneCount++}`;
    sockets.push(socket);
    spawnSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', `/bin/sh -c ${quote(script)}`]);
    await sleep(300);
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    writeFileSync(join(dir, 'go'), '');
    await waitUntil(() => existsSync(join(dir, 'rc')), 20_000, 'agentwrap to end');

    expect(readFileSync(join(dir, 'rc'), 'utf8').trim()).toBe('129');
    expect(readFileSync(join(dir, 'stderr'), 'utf8')).toBe('');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});

