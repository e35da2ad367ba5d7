/**
 * The live dashboard as a person uses it: five wrapped demo agents in windows of one tmux
 * server, one of them asked to run a command so it waits in a permission dialog (blocked), and
 * `agentwrap status --watch` in another window. One key (Enter) must bring the blocked agent's
 * pane to the front, and the dashboard must show that agent's dialog as its preview.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../../helpers/cli.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const SOCKET = `dashboard-test-${process.pid}`;
/** The test's own tmux server, without the caller's $TMUX (it must not talk to the user's server). */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'TMUX' && name !== 'TMUX_PANE'));

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV }).trimEnd();
}

function capture(pane: string): string {
  return tmux('capture-pane', '-p', '-t', pane);
}

/** Waits until the pane shows what `predicate` wants; fails with the last screen. */
async function waitForScreen(pane: string, predicate: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let screen = '';
  while (Date.now() < deadline) {
    screen = capture(pane);
    if (predicate(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; pane ${pane} shows:\n${screen}`);
}

describe.skipIf(!HAS_TMUX)(`status --watch in tmux${HAS_TMUX ? '' : ' (skipped: tmux is not installed)'}`, () => {
  let stateDir: string;
  const agents: string[] = [];
  let dashboard = '';

  beforeAll(() => {
    ensureBuilt();
    stateDir = mkdtempSync(join(tmpdir(), 'aw-dashboard-tmux-'));
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { env: ENV });
    // The agents and the dashboard end on the hangup, each removing its own files (a record, a
    // socket, the readers' cache) on the way out: wait for them instead of racing them.
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        rmSync(stateDir, { recursive: true, force: true });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }, 30_000);

  it('jumps to the blocked agent with one key and previews its dialog', async () => {
    const demo = `AGENT_STATUS_DIR=${stateDir} exec ${process.execPath} ${CLI} demo --speed 10`;
    agents.push(tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'agents', '-x', '160', '-y', '48', demo));
    for (let i = 1; i < 5; i++) agents.push(tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'agents', demo));
    for (const pane of agents) await waitForScreen(pane, (s) => s.includes('? for shortcuts'), `demo agent in ${pane} to show its prompt`);

    // The third agent asks to run a command and waits; the fifth finishes a turn (done).
    const blocked = agents[2] ?? '';
    tmux('send-keys', '-t', blocked, 'please run the tests', 'Enter');
    tmux('send-keys', '-t', agents[4] ?? '', 'say hello', 'Enter');
    await waitForScreen(blocked, (s) => s.includes('Do you want to run ls -la?'), 'the permission dialog');

    dashboard = tmux('new-window', '-P', '-F', '#{pane_id}', '-t', 'agents', `AGENT_STATUS_DIR=${stateDir} exec ${process.execPath} ${CLI} status --watch`);
    const listed = await waitForScreen(
      dashboard,
      (s) => /5 sessions: 1 blocked/.test(s) && /^› blocked/m.test(s),
      'the dashboard to list five sessions with the blocked one selected first',
    );
    expect(listed.split('\n').filter((line) => /demo-aw/.test(line) && !line.startsWith('──'))).toHaveLength(5);
    expect(tmux('display', '-p', '#{pane_id}')).toBe(dashboard);

    tmux('send-keys', '-t', dashboard, 'Enter');
    const deadline = Date.now() + 10_000;
    while (tmux('display', '-p', '#{pane_id}') !== blocked && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tmux('display', '-p', '#{pane_id}')).toBe(blocked);

    // The preview is the blocked agent's screen, read from its control socket.
    const shown = await waitForScreen(
      dashboard,
      (s) => s.includes('Do you want to run ls -la?') && /jumped to demo-aw\S+ \(tmux pane %\d+\)/.test(s),
      "the blocked agent's dialog in the preview, and the jump reported",
    );
    expect(shown).toContain('3. No, and tell me what to do differently (esc)');
    expect(shown).toContain(`(tmux pane ${blocked})`);
  });

  // Each way out: a key, Ctrl-C (a byte in raw mode), and the signals a closing terminal or a
  // process manager sends. The dashboard pane prints before and after it, so the screen after
  // the exit shows whether the main screen came back.
  it.each([
    ['q', 'key'],
    ['C-c', 'key'],
    ['SIGTERM', 'signal'],
    ['SIGHUP', 'signal'],
  ] as const)('restores the terminal when it ends by %s', async (how, kind) => {
    const pane = tmux('new-window', '-P', '-F', '#{pane_id}', '-t', 'agents', `printf 'before the dashboard\\n'; AGENT_STATUS_DIR=${stateDir} ${process.execPath} ${CLI} status --watch; printf 'after: %s\\n' $?; sleep 30`);
    await waitForScreen(pane, (s) => /sessions?: /.test(s) && s.includes('q quit'), 'the dashboard');
    expect(capture(pane)).not.toContain('before the dashboard');
    if (kind === 'key') {
      tmux('send-keys', '-t', pane, how);
    } else {
      const shell = tmux('display', '-p', '-t', pane, '#{pane_pid}');
      const dashboardPid = execFileSync('pgrep', ['-P', shell, '-f', 'status --watch'], { encoding: 'utf8' }).trim();
      process.kill(Number(dashboardPid), how);
    }
    const after = await waitForScreen(pane, (s) => /after: \d+/.test(s), 'the shell after the dashboard');
    // Back on the main screen: what was printed before is there again, the dashboard is not.
    expect(after).toContain('before the dashboard');
    expect(after).toContain('after: 0');
    expect(after).not.toContain('q quit');
    expect(tmux('display', '-p', '-t', pane, '#{alternate_on} #{cursor_flag}')).toBe('0 1');
  });
});
