/**
 * Desktop notifications through notify-send: a fake notify-send on PATH records every argument
 * it was called with, so these tests see exactly what a desktop would be asked to show, and how
 * often. The last test wraps the real demo agent with --notify and drives it, in tmux, into a
 * permission dialog and to the end of a turn.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { createDesktopNotifier, findNotifySend } from '../../../src/app/notify/desktop-notifier.js';
import { DEMO_AGENT_PATH } from '../../../src/adapters/paths.js';
import { CLI, ensureBuilt } from '../../helpers/cli.js';

let dir: string;
let log: string;

/** A notify-send that appends its arguments (NUL-separated, one record per call) to `log`. */
function installFakeNotifySend(): string {
  const bin = join(dir, 'bin');
  execFileSync('mkdir', ['-p', bin]);
  const script = join(bin, 'notify-send');
  writeFileSync(script, `#!/bin/sh\nrs=$(printf '\\036')\nprintf '%s\\0' "$@" "$rs" >> '${log}'\n`);
  chmodSync(script, 0o755);
  return bin;
}

function calls(): string[][] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\u001e\u0000')
    .filter((record) => record !== '')
    .map((record) => record.split('\u0000').filter((arg, i, all) => i < all.length - 1 || arg !== ''));
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; calls so far: ${JSON.stringify(calls())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-notify-'));
  log = join(dir, 'calls.log');
});

afterEach(async () => {
  // A wrapped demo still exiting may write its last record while the directory goes: wait for it.
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}, 30_000);

describe('desktop notifier', () => {
  it('calls notify-send with the agent, state and cwd, and sends one per state per interval', async () => {
    const bin = installFakeNotifySend();
    const clock = manualClock(0);
    const warnings: string[] = [];
    const notifier = createDesktopNotifier({ env: { PATH: `${bin}:/usr/bin:/bin`, HOME: '/home/ann' }, clock, minIntervalMs: 10_000, warn: (w) => warnings.push(w) });
    const blocked = { agent: 'claude', state: 'blocked', cwd: '/home/ann/src/api', session: 'claude-abc' } as const;

    expect(notifier.notify(blocked)).toBe(true);
    clock.advanceBy(3_000);
    expect(notifier.notify(blocked)).toBe(false); // the same state again within 10 s: dropped
    expect(notifier.notify({ ...blocked, state: 'done' })).toBe(true); // another state: sent
    clock.advanceBy(7_000);
    expect(notifier.notify(blocked)).toBe(true); // 10 s after the first blocked one: sent again

    await until(() => calls().length === 3, 'three notify-send calls');
    // Each notify-send is its own process, started within the same millisecond here (the clock is
    // manual), so the order they reach the log in is the scheduler's: compare them as a set.
    const byText = (a: string[], b: string[]): number => a.join('\0').localeCompare(b.join('\0'));
    expect(calls().sort(byText)).toEqual(
      [
        ['--app-name=agentwrap', '--urgency=critical', '--', 'claude is blocked: it needs you', '~/src/api\nclaude-abc'],
        ['--app-name=agentwrap', '--urgency=normal', '--', 'claude is done', '~/src/api\nclaude-abc'],
        ['--app-name=agentwrap', '--urgency=critical', '--', 'claude is blocked: it needs you', '~/src/api\nclaude-abc'],
      ].sort(byText),
    );
    expect(warnings).toEqual([]);
  });

  it('does nothing, and says nothing, where notify-send is not installed', () => {
    const env = { PATH: dir };
    expect(findNotifySend(env)).toBeUndefined();
    const warnings: string[] = [];
    const notifier = createDesktopNotifier({ env, clock: manualClock(0), minIntervalMs: 10_000, warn: (w) => warnings.push(w) });
    expect(notifier.notify({ agent: 'codex', state: 'done', cwd: '/srv', session: 'codex-1' })).toBe(false);
    expect(warnings).toEqual([]);
  });
});

describe.skipIf(spawnSync('tmux', ['-V']).status !== 0)(`--notify on a wrapped agent${spawnSync('tmux', ['-V']).status === 0 ? '' : ' (skipped: tmux is not installed)'}`, () => {
  it('notifies the desktop when the demo agent is blocked and when it is done, and not without --notify', async () => {
    ensureBuilt();
    const bin = installFakeNotifySend();
    const state = join(dir, 'state');
    const socket = `dashboard-test-notify-${process.pid}`;
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([n]) => n !== 'TMUX' && n !== 'TMUX_PANE')), PATH: `${bin}:${process.env['PATH'] ?? ''}` };
    const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env }).trimEnd();
    try {
      const wrapped = (flag: string): string =>
        `cd ${dir} && AGENT_STATUS_DIR=${state} AGENTWRAP_DEMO_SPEED=10 exec ${process.execPath} ${CLI} run --pack demo ${flag} -- ${process.execPath} ${DEMO_AGENT_PATH}`;
      const pane = tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-x', '120', '-y', '40', wrapped('--notify'));
      const quiet = tmux('new-window', '-d', '-P', '-F', '#{pane_id}', wrapped(''));
      const screen = (p: string): string => tmux('capture-pane', '-p', '-t', p);
      await until(() => screen(pane).includes('? for shortcuts') && screen(quiet).includes('? for shortcuts'), 'both demo agents to start');
      tmux('send-keys', '-t', pane, 'please run it', 'Enter');
      tmux('send-keys', '-t', quiet, 'please run it', 'Enter');
      await until(() => calls().length >= 1, 'the blocked notification');
      tmux('send-keys', '-t', pane, '1');
      tmux('send-keys', '-t', quiet, '1');
      await until(() => calls().length >= 2, 'the done notification', 20_000);
      const [blocked, done] = calls();
      expect(blocked).toEqual(['--app-name=agentwrap', '--urgency=critical', '--', 'demo is blocked: it needs you', expect.stringMatching(new RegExp(`^${dir}\\ndemo-`))]);
      expect(done).toEqual(['--app-name=agentwrap', '--urgency=normal', '--', 'demo is done', expect.stringMatching(new RegExp(`^${dir}\\ndemo-`))]);
      // The agent without --notify went through the same turn and sent nothing.
      await until(() => /Worked for/.test(screen(quiet)), 'the quiet agent to finish its turn', 20_000);
      expect(calls()).toHaveLength(2);
    } finally {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    }
  });
});
