/**
 * Signals out to tmux, end to end: three wrapped demo agents in one tmux server, a client
 * attached in a pty and read through a headless terminal, and a status-right made of tmux format
 * loops over the pane options agentwrap sets (no `#(…)`, status-interval 0: nothing polls).
 * The status line must show each pane's transitions as `agentwrap events` announces them, and
 * the three states side by side. The time from each announcement to the status line showing it
 * is printed (docs/publishing.md quotes it); the test asserts no time bound.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Terminal } from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, openOuterTerminal, shellQuote } from '../helpers/pty-outer.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
/** The README's status-right, word for word. */
const README_STATUS = '#{W:#{P:#{?@agent_state,#{@agent_name} #{@agent_state}#{?@agent_reason,:#{@agent_reason},} ,}}}';
/** The same loop with each pane's id, so a test can tell the three demo agents apart. */
const TEST_STATUS = '#{W:#{P:#{?@agent_state,#{pane_id}=#{@agent_state} ,}}}';

interface StateEvent {
  readonly t: number;
  readonly session: string;
  readonly from: string | null;
  readonly to: string;
}

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!hasTmux)(hasTmux ? 'agent states in the tmux status line' : 'agent states in the tmux status line (skipped: tmux is not installed)', () => {
  it('shows every transition of three wrapped agents through pane options, with nothing polling', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-tmux-status-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // The agents end on the server's hangup, taking their records away: the directory goes after them.
    const wrappers: number[] = [];
    cleanups.push(() => until(() => !wrappers.some(isAlive), 'the wrapped agents to end'));
    const socket = `so-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    cleanups.push(() => void tmux('kill-server'));
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_STATUS_DIR: join(dir, 'state'), AGENTWRAP_DEMO_SPEED: '4' };
    const stateDir = join(dir, 'state');
    delete env['TMUX'];
    const demo = `env AGENT_STATUS_DIR=${shellQuote(stateDir)} AGENTWRAP_DEMO_SPEED=4 ${shellQuote(process.execPath)} ${shellQuote(CLI)} demo`;

    expect(spawnSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'so', '-x', '150', '-y', '45', demo], { env }).status).toBe(0);
    tmux('set-option', '-g', 'status-interval', '0');
    tmux('set-option', '-g', 'status-right-length', '300');
    tmux('set-option', '-g', 'status-right', TEST_STATUS);
    for (let k = 0; k < 2; k++) expect(tmux('split-window', '-v', '-t', 'so', demo).status).toBe(0);
    tmux('select-layout', '-t', 'so', 'even-vertical');
    const panes = tmux('list-panes', '-t', 'so', '-F', '#{pane_id}').stdout.trim().split('\n');
    expect(panes).toHaveLength(3);

    // A client in a pty: its bottom row is the status line as a person sees it.
    const screen = new Terminal({ cols: 150, rows: 45, allowProposedApi: true });
    const seen: Array<{ atMs: number; row: string }> = [];
    const client = openOuterTerminal(`env -u TMUX tmux -L ${socket} attach -t so`, { cols: 150, rows: 45 });
    cleanups.push(() => client.pty.kill());
    client.pty.onData((data: string | Buffer) => {
      screen.write(typeof data === 'string' ? data : new Uint8Array(data), () => {
        const row = screen.buffer.active.getLine(screen.rows - 1)?.translateToString(true) ?? '';
        if (row !== seen.at(-1)?.row) seen.push({ atMs: Date.now(), row });
      });
    });
    const statusShows = (pane: string, state: string, fromIndex = 0): number => seen.findIndex((entry, index) => index >= fromIndex && entry.row.includes(`${pane}=${state} `));

    await until(() => panes.every((pane) => statusShows(pane, 'idle') >= 0), 'three idle agents in the status line');

    const events: StateEvent[] = [];
    const watcher: ChildProcess = spawn(process.execPath, [CLI, 'events'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    cleanups.push(() => void watcher.kill());
    let pending = '';
    watcher.stdout?.on('data', (data: Buffer) => {
      pending += data.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as StateEvent);
    });
    await until(() => events.length >= 3, 'the three sessions in `agentwrap events`');
    // Which session runs in which pane: its record says.
    const sessionsDir = join(stateDir, "sessions");
    const paneOf = new Map<string, string>();
    for (const file of readdirSync(sessionsDir).filter((name) => name.endsWith('.json'))) {
      const record = JSON.parse(readFileSync(join(sessionsDir, file), 'utf8')) as { tmux?: { pane: string }; wrapper_pid: number };
      if (record.tmux !== undefined) paneOf.set(file.replace(/\.json$/, ''), record.tmux.pane);
      wrappers.push(record.wrapper_pid);
    }
    expect([...paneOf.values()].sort()).toEqual([...panes].sort());

    const [first = '', second = '', third = ''] = panes;
    tmux('send-keys', '-t', first, 'hello', 'Enter');
    tmux('send-keys', '-t', second, 'run', 'Enter');
    await until(() => statusShows(first, 'done') >= 0 && statusShows(second, 'blocked') >= 0, 'done and blocked in the status line');
    const last = seen.at(-1)?.row ?? '';
    expect(last).toContain(`${first}=done `);
    expect(last).toContain(`${second}=blocked `);
    expect(last).toContain(`${third}=idle `);
    // The README's own status-right gives the three states by name.
    expect(tmux('display-message', '-p', '-t', third, README_STATUS).stdout).toBe('demo done demo blocked demo idle \n');
    // Nothing in the status line runs a command.
    expect(tmux('show-options', '-gv', 'status-right').stdout).not.toContain('#(');

    // Every announced transition reached the status line; how long after is printed.
    const announced = (pane: string, state: string) => events.some((event) => event.from !== null && event.to === state && paneOf.get(event.session) === pane);
    await until(() => announced(first, 'done') && announced(second, 'blocked'), 'the transitions in `agentwrap events`');
    const transitions = events.filter((event) => event.from !== null);
    expect(transitions.map((event) => `${paneOf.get(event.session)} ${event.to}`)).toEqual(
      expect.arrayContaining([`${first} working`, `${first} done`, `${second} working`, `${second} blocked`]),
    );
    const latencies: string[] = [];
    for (const event of transitions) {
      const pane = paneOf.get(event.session) ?? '?';
      const shownAt = seen.find((entry) => entry.atMs >= event.t - 1_000 && entry.row.includes(`${pane}=${event.to} `));
      expect(shownAt, `${pane} ${event.to} in the status line`).toBeDefined();
      latencies.push(`${pane} ${event.from}→${event.to} ${(shownAt?.atMs ?? 0) - event.t} ms`);
    }
    console.log(`tmux status line after each published transition: ${latencies.join(', ')}`);
  }, 90_000);
});
