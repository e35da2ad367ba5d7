/**
 * The detector on real processes through the real CLI: a program no pack rule matches stays
 * `unknown` (never a default idle), and an agent whose screen says working but which is
 * SIGSTOPped becomes `stuck` within the watchdog window.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STOPPED_STUCK_MS, TICK_MS } from '../../src/core/policy.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { openOuterTerminal, type OuterTerminal } from '../helpers/pty-outer.js';

const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGKILL');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

interface Listed {
  key: string;
  state: string;
  stuck: boolean;
  pid: number;
}

/** `status --json`, polled every 100-250 ms: in-process (helpers/cli-in-process.ts), not a node per poll. */
async function sessions(env: Record<string, string>): Promise<Listed[]> {
  const result = await runCliInProcess(['status', '--json'], { env: { ...process.env, ...env } });
  const doc = JSON.parse(result.stdout) as { sessions: { key: string; state: string; record: { stuck: boolean; pid: number } }[] };
  return doc.sessions.map((s) => ({ key: s.key, state: s.state, stuck: s.record.stuck, pid: s.record.pid }));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<{ value: T; afterMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, afterMs: Date.now() - started };
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the live detector', () => {
  it('keeps a session whose screen matches no rule unknown, never idle', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-unknown-')), 'status') };
    const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --pack demo -- sleep 1000`, { env });
    opened.push(term);
    await until('the session record', async () => (await sessions(env))[0], 10_000);

    // Several ticks, every one of them unknown.
    const seen = new Set<string>();
    const deadline = Date.now() + 4 * TICK_MS;
    while (Date.now() < deadline) {
      for (const s of await sessions(env)) seen.add(s.state);
      await new Promise((r) => setTimeout(r, 250));
    }

    expect([...seen]).toEqual(['unknown']);
  });

  it('marks a working agent that was SIGSTOPped as stuck, still working', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-stuck-')), 'status') };
    const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} demo --speed 1`, { env });
    opened.push(term);
    await term.waitFor('? for shortcuts');
    // `long` thinks for 12 s: plenty of working time to stop it in.
    term.pty.write('a long question\r');
    const { value: working } = await until('working', async () => (await sessions(env)).find((s) => s.state === 'working'), 10_000);
    expect(working.stuck).toBe(false);

    process.kill(working.pid, 'SIGSTOP');
    try {
      // How soon is the watchdog's business (test/core/detector/tick.test.ts, on a manual clock); here
      // only that it happens, with room for a loaded machine.
      const { value: stuck } = await until('stuck', async () => (await sessions(env)).find((s) => s.stuck), STOPPED_STUCK_MS + 30 * TICK_MS);

      expect(stuck.state).toBe('working');
    } finally {
      process.kill(working.pid, 'SIGCONT');
    }
  });
});
