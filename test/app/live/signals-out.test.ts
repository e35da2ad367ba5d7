import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSignalsOut, type SignalsOutOptions } from '../../../src/app/live/signals-out.js';
import type { StateChangeEvent } from '../../../src/app/control/protocol.js';
import { STATUS_AGENT_PROBED, STATUS_AGENT_SPOKE, STATUS_OUTER_UNDERSTANDS } from '../../../src/adapters/terminal/program-status.js';
import type { AgentState } from '../../../src/core/types.js';

/** A launched session and a publisher, as far as signals out sees them. */
function harness(overrides: { bits?: number; env?: NodeJS.ProcessEnv; tmux?: SignalsOutOptions['tmux']; agentSendsProgress?: boolean } = {}) {
  let bits = overrides.bits ?? 0;
  const written: string[] = [];
  const warnings: string[] = [];
  const statusListeners = new Set<(bits: number) => void>();
  const subscribers = new Set<(event: StateChangeEvent) => void>();
  const signals = startSignalsOut({
    launched: {
      programStatus: () => bits,
      onProgramStatus: (listener) => {
        statusListeners.add(listener);
        return () => statusListeners.delete(listener);
      },
      writeTerminal: (data) => void written.push(data),
    },
    subscribe: (emit) => {
      subscribers.add(emit);
      return () => subscribers.delete(emit);
    },
    sourceCli: 'gemini',
    env: overrides.env ?? {},
    tmux: overrides.tmux,
    agentSendsProgress: () => overrides.agentSendsProgress ?? false,
    warn: (message) => void warnings.push(message),
  });
  return {
    signals,
    written,
    warnings,
    publish(to: AgentState, t = 1_800_000_000_000, from: AgentState | null = null, reason: string | null = null) {
      for (const emit of subscribers) emit({ t, session: 'gemini-1', agent: 'gemini', from, to, winner: null, rule_id: null, reason });
    },
    setBits(next: number) {
      bits = next;
      for (const listener of statusListeners) listener(next);
    },
  };
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('signals out to the terminal', () => {
  it('writes nothing to a terminal that never answered a 7501 probe', async () => {
    const h = harness({ bits: STATUS_AGENT_PROBED });
    h.publish('working');
    h.publish('blocked');
    await h.signals.close();
    expect(h.written).toEqual([]);
  });

  it('says each new state to a terminal that answered, the current one as soon as it answers, and clears at the end', async () => {
    const h = harness();
    h.publish('idle');
    h.setBits(STATUS_OUTER_UNDERSTANDS);
    h.publish('working');
    h.publish('working');
    h.publish('unknown');
    await h.signals.close();
    expect(h.written).toEqual([
      '\x1b]7501;state=idle:app=gemini\x1b\\',
      '\x1b]7501;state=working:app=gemini\x1b\\',
      '\x1b]7501;state=clear:app=gemini\x1b\\',
    ]);
  });

  it("never duplicates an agent's own 7501 that reaches the terminal", async () => {
    const h = harness({ bits: STATUS_OUTER_UNDERSTANDS | STATUS_AGENT_SPOKE });
    h.publish('working');
    await h.signals.close();
    expect(h.written).toEqual([]);
  });

  it('shows progress where the terminal draws OSC 9;4, unless the agent sends its own', async () => {
    const h = harness({ env: { TERM_PROGRAM: 'ghostty' } });
    h.publish('idle');
    h.publish('working');
    h.publish('blocked');
    h.publish('done');
    await h.signals.close();
    expect(h.written).toEqual(['\x1b]9;4;3\x1b\\', '\x1b]9;4;4;100\x1b\\', '\x1b]9;4;0\x1b\\']);

    const own = harness({ env: { TERM_PROGRAM: 'ghostty' }, agentSendsProgress: true });
    own.publish('working');
    expect(own.written).toEqual([]);
  });
});

describe('signals out to the tmux pane', () => {
  /** A `tmux` on PATH that logs its arguments (one call a line), or fails. */
  function fakeTmux(script: string): { env: NodeJS.ProcessEnv; log: () => string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-fake-tmux-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'tmux'), `#!/bin/sh\nprintf '%s ' "$@" >> ${dir}/log\necho >> ${dir}/log\n${script}\n`);
    chmodSync(join(dir, 'tmux'), 0o755);
    return {
      env: { PATH: `${dir}:${process.env['PATH'] ?? ''}` },
      log: () => (existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8').trim().split('\n') : []),
    };
  }

  it("sets the pane's options on each change, the newest waiting while a call runs, and unsets them at the end", async () => {
    const tmux = fakeTmux('exit 0');
    const h = harness({ env: tmux.env, tmux: { socket: '/tmp/tmux-1/default', pane: '%7' } });
    h.publish('working', 1_800_000_000_500);
    h.publish('blocked', 1_800_000_001_000);
    h.publish('done', 1_800_000_002_000);
    await h.signals.close();
    expect(tmux.log()).toEqual([
      '-S /tmp/tmux-1/default set-option -p -t %7 @agent_state working ; set-option -p -t %7 @agent_name gemini ; set-option -p -t %7 @agent_since 1800000000 ; set-option -p -u -t %7 @agent_reason ',
      // blocked and done came while the first call ran, and the end while they waited: only the newest goes.
      '-S /tmp/tmux-1/default set-option -p -u -t %7 @agent_state ; set-option -p -u -t %7 @agent_name ; set-option -p -u -t %7 @agent_since ; set-option -p -u -t %7 @agent_reason',
    ]);
    expect(h.written).toEqual([]);
  });

  it('on a change of cause alone sets only @agent_reason anew: the state and its age stay', async () => {
    const tmux = fakeTmux('exit 0');
    const h = harness({ env: tmux.env, tmux: { socket: '/s', pane: '%2' } });
    h.publish('working', 1_800_000_000_000);
    await waitFor(() => tmux.log().length === 1);
    const writtenBefore = h.written.length;
    h.publish('working', 1_800_000_009_000, 'working', 'rate-limited');
    await waitFor(() => tmux.log().length === 2);
    expect(h.written.length).toBe(writtenBefore);
    await h.signals.close();
    const lines = tmux.log();
    expect(lines[1]).toContain('@agent_state working');
    expect(lines[1]).toContain('@agent_since 1800000000 ');
    expect(lines[1]).toContain('@agent_reason rate-limited');
  });

  it('runs a change that came while a call ran once that call is done', async () => {
    const tmux = fakeTmux('exit 0');
    const h = harness({ env: tmux.env, tmux: { socket: '/s', pane: '%2' } });
    h.publish('working', 1_800_000_000_000);
    h.publish('done', 1_800_000_003_000);
    await waitFor(() => tmux.log().length === 2);
    await h.signals.close();
    expect(tmux.log().map((line) => (line.includes(' -u -t %2 @agent_state') ? 'unset' : line.split(' ')[7]))).toEqual(['working', 'done', 'unset']);
  });

  it("sets @agent_reason to the change's reason as a plain word, and unsets it at a change without one", async () => {
    const tmux = fakeTmux('exit 0');
    const h = harness({ env: tmux.env, tmux: { socket: '/s', pane: '%4' } });
    h.publish('blocked', 1_800_000_000_000, null, 'permission');
    await waitFor(() => tmux.log().length === 1);
    h.publish('done', 1_800_000_001_000, null, 'api error;\x1b]0;x\x07');
    await waitFor(() => tmux.log().length === 2);
    h.publish('working', 1_800_000_002_000);
    await waitFor(() => tmux.log().length === 3);
    await h.signals.close();

    const reasons = tmux.log().map((line) => line.split(' ; ').find((command) => command.includes('@agent_reason'))?.trim());
    expect(reasons).toEqual([
      'set-option -p -t %4 @agent_reason permission',
      'set-option -p -t %4 @agent_reason api-error-0-x-',
      'set-option -p -u -t %4 @agent_reason',
      'set-option -p -u -t %4 @agent_reason',
    ]);
  });

  it('turns a failing tmux into one warning', async () => {
    const tmux = fakeTmux('echo "unknown option: @agent_state" >&2; exit 1');
    const h = harness({ env: tmux.env, tmux: { socket: '/tmp/tmux-1/default', pane: '%1' } });
    h.publish('working');
    await waitFor(() => h.warnings.length === 1);
    h.publish('done');
    await waitFor(() => tmux.log().length === 2);
    await h.signals.close();
    expect(h.warnings).toEqual(['tmux pane options: unknown option: @agent_state']);
  });

  it('says nothing when the tmux server is gone (killed under the session)', async () => {
    const tmux = fakeTmux('echo "no server running on /tmp/tmux-1/gone" >&2; exit 1');
    const h = harness({ env: tmux.env, tmux: { socket: '/tmp/tmux-1/gone', pane: '%1' } });
    h.publish('working');
    await h.signals.close();
    expect(h.warnings).toEqual([]);
  });
});
