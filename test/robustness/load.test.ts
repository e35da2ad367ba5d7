/**
 * Load: 20 wrapped sessions at once, each changing state every few hundred milliseconds, while
 * one reader reads every record file as fast as it can and another runs `status --json` over
 * and over. No read may ever see a torn file, every `status` must list all 20, and every
 * session must end with its agent's exit code and leave nothing behind.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, closeTerminals, freshStateRoot, openRawTerminal, type RawTerminal, sleep, type StatusJson, waitForStatus } from './harness.js';

const SESSIONS = 20;
const HAMMER_MS = 6_000;

const cleanups: Array<() => void> = [];
afterAll(async () => {
  await closeTerminals();
  for (const cleanup of cleanups) cleanup();
});

function statusAsync(env: Record<string, string>): Promise<{ code: number; json: StatusJson | undefined; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' }, (error, stdout, stderr) => {
      let json: StatusJson | undefined;
      try {
        json = JSON.parse(stdout) as StatusJson;
      } catch {
        // Left undefined: the assertion below reports it with the exit code.
      }
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), json, stderr });
    });
  });
}

describe('20 wrapped sessions under a reader hammering their records', () => {
  it('never shows a torn record, lists all 20 in every status, and ends every session cleanly', async () => {
    const { dir, root } = freshStateRoot('aw-robust-load-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const env = { AGENT_STATUS_DIR: root, HOME: dir };
    // Each agent flips between working (progress 3) and idle (progress 0) every 250 ms, then
    // waits for Enter and exits with its own number.
    const terminals: RawTerminal[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const agent = `echo UP; n=0; while [ $n -lt 200 ]; do n=$((n+1)); printf '\\033]9;4;3\\007'; sleep 0.25; printf '\\033]9;4;0\\007'; sleep 0.25; done & read line; kill $! 2>/dev/null; exit ${i + 1}`;
      terminals.push(openRawTerminal(process.execPath, [CLI, 'run', '--', 'sh', '-c', agent], { env }));
    }
    cleanups.push(() => {
      for (const term of terminals) term.pty.kill();
    });
    await waitForStatus(env, (s) => s.sessions.length === SESSIONS, 60_000).catch((error: unknown) => {
      const listed = new Set(readdirSync(join(root, 'sessions')));
      const missing = terminals.filter((t) => ![...listed].some((name) => name.includes(`aw${t.pty.pid}-`)));
      throw new Error(`${String(error).slice(0, 200)}\nmissing: ${missing.map((t) => `${t.pty.pid}: ${JSON.stringify(t.text().slice(0, 400))}`).join('\n')}`);
    });

    // Reader 1: every record file, parsed, as fast as this process can.
    let fileReads = 0;
    let torn = 0;
    const tornSamples: string[] = [];
    let hammering = true;
    const sessionsDir = join(root, 'sessions');
    const fileReader = (async () => {
      while (hammering) {
        for (const name of readdirSync(sessionsDir)) {
          if (!name.endsWith('.json')) continue;
          const text = readFileSync(join(sessionsDir, name), 'utf8');
          fileReads += 1;
          try {
            JSON.parse(text);
          } catch {
            torn += 1;
            if (tornSamples.length < 3) tornSamples.push(text);
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // Reader 2: the CLI, one `status --json` after another.
    const statuses: { code: number; listed: number; stderr: string }[] = [];
    const cliReader = (async () => {
      while (hammering) {
        const result = await statusAsync(env);
        statuses.push({ code: result.code, listed: result.json?.sessions.filter((s) => s.agentwrap).length ?? -1, stderr: result.stderr });
      }
    })();
    // At least HAMMER_MS of hammering and enough reads of each kind to mean something; on a
    // loaded machine one `status --json` can take seconds, so the count is waited for, not timed.
    await sleep(HAMMER_MS);
    while (statuses.length < 4 || fileReads <= 20 * 200) await sleep(100);
    hammering = false;
    await Promise.all([fileReader, cliReader]);

    expect(torn, tornSamples.join('\n---\n')).toBe(0);
    expect(fileReads).toBeGreaterThan(20 * 200);
    expect(statuses.length).toBeGreaterThan(3);
    for (const status of statuses) expect(status).toEqual({ code: 0, listed: SESSIONS, stderr: '' });
    console.info(`load: ${SESSIONS} sessions, ${fileReads} record reads (0 torn), ${statuses.length} status --json runs, each listing ${SESSIONS}`);

    for (const term of terminals) term.pty.write('\r');
    const exits = await Promise.all(terminals.map((term) => term.exited));
    expect(exits.map((e) => e.exitCode)).toEqual(Array.from({ length: SESSIONS }, (_, i) => i + 1));
    for (const term of terminals) expect(term.text()).not.toContain('agentwrap:');
    expect(readdirSync(sessionsDir).filter((n) => !n.startsWith('.'))).toEqual([]);
  }, 120_000);
});
