/**
 * agentwrap with /proc really hidden (an empty tmpfs over /proc in a private mount namespace,
 * helpers/hidden-proc.ts): the wrapped demo agent still runs and its session still publishes
 * idle, working, blocked and done from the screen alone, and `status explain` says what process
 * evidence is missing and what that costs. The commands typed from outside run in-process,
 * with /proc; only the session's process tree is without it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../src/adapters/process/alive.js';
import { readSessions } from '../../src/app/sessions/store.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { canHideProc, withProcHidden } from '../helpers/hidden-proc.js';
import { openOuterTerminal, type OuterTerminal } from '../helpers/pty-outer.js';

const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGHUP');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

describe.skipIf(!canHideProc)('a wrapped session with /proc hidden', () => {
  it('publishes idle, working, blocked and done from the screen, and explain names the process evidence lost', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-noproc-')), 'status') };
    const [file, args] = withProcHidden(process.execPath, [CLI, 'demo']);
    const term = openOuterTerminal(`exec ${[file, ...args].map(shellQuote).join(' ')}`, { env });
    opened.push(term);
    const seen: string[] = [];
    const watch = setInterval(() => {
      const state = readSessions(env.AGENT_STATUS_DIR, Date.now(), isPidAlive).map((s) => ('state' in s.record ? String(s.record.state) : '-'))[0];
      if (state !== undefined && seen[seen.length - 1] !== state) seen.push(state);
    }, 50);
    const until = async (state: string): Promise<void> => {
      for (let waited = 0; seen[seen.length - 1] !== state; waited += 100) {
        if (waited > 20_000) throw new Error(`timed out waiting for ${state}; seen ${seen.join(' → ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await term.waitFor('? for shortcuts');
      await until('idle');
      term.pty.write('run the tests\r');
      await until('blocked');
      const key = readSessions(env.AGENT_STATUS_DIR, Date.now(), isPidAlive)[0]?.key ?? '';
      const explained = await runCliInProcess(['status', 'explain', key], { env: { ...process.env, ...env } });
      term.pty.write('1');
      await until('done');

      // Before the first screen is read the session is `unknown`, as with /proc.
      expect(seen.slice(seen.indexOf('idle'))).toEqual(['idle', 'working', 'blocked', 'working', 'done']);
      expect(explained.stdout).toContain(
        "process evidence: no /proc (nothing at /proc/self/stat): busy-without-output, child-process, stopped/zombie-agent and child-in-foreground evidence unavailable; detection relies on screen, title and the agent's own signals",
      );
      expect(explained.stdout).toMatch(/process: absent \(no \/proc \(nothing at \/proc\/self\/stat\): process evidence unavailable\)/);
    } finally {
      clearInterval(watch);
    }
  });
});
