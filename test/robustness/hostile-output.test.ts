/**
 * Hostile output through the real wrapped CLI: `agentwrap run --pack demo -- node
 * hostile-agent.mjs` inside a real outer terminal. The agent floods ~22 MB of random bytes,
 * broken and overlong escape sequences, megabyte OSC titles, OSC 9;4 garbage, a 1 MiB line,
 * 10 million newlines and invalid UTF-8, then sets a title full of control and bidi characters
 * and waits. Every byte must reach the outer terminal unchanged, the detector must keep
 * ticking, the wrapper's memory must stay bounded and the record must stay valid and clean.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostileParts } from './hostile-agent.mjs';
import {
  closeTerminals,
  freshStateRoot,
  HOSTILE_AGENT,
  memoryKiB,
  openCliTerminal,
  runCli,
  sleep,
  UNSAFE_TITLE_CHARS,
  waitForStatus,
} from './harness.js';

/**
 * Peak RSS of the wrapper through the whole flood. Measured ~110 MiB. Before the mirror bounded
 * string payloads (screen/constants.ts STRING_PAYLOAD_MAX_UNITS) it was 355 MiB, and a 10 MB title would
 * have cost ~640 MB; flow control caps what waits to be parsed at 5 MiB.
 */
const WRAPPER_PEAK_RSS_MAX_KIB = 200 * 1024;

const cleanups: string[] = [];
afterAll(async () => {
  await closeTerminals();
  for (const dir of cleanups) rmSync(dir, { recursive: true, force: true });
});

interface Explain {
  readonly current_tick: { readonly t: number; readonly digest: { readonly title?: string } } | null;
}

async function waitUntilAsync(condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(300);
  }
}

describe('hostile output through the wrapped CLI', () => {
  it('relays a 22 MB hostile flood byte for byte while the detector keeps ticking, in bounded memory, with a clean record', async () => {
    const { dir, root } = freshStateRoot();
    cleanups.push(dir);
    const env = { AGENT_STATUS_DIR: root };
    const tag = randomBytes(8).toString('hex');
    const term = openCliTerminal(['run', '--pack', 'demo', '--', process.execPath, HOSTILE_AGENT, tag, '7'], env);

    await term.waitFor(`<<${tag}-END `, 90_000);
    await term.waitFor(/>>/, 5_000);
    const all = term.bytes();
    const begin = all.indexOf(`<<${tag}-BEGIN>>`) + `<<${tag}-BEGIN>>`.length;
    const endAt = all.indexOf(`<<${tag}-END `);
    const trailer = /^<<[0-9a-f]+-END (\d+) ([0-9a-f]{64})>>/.exec(all.subarray(endAt, endAt + 120).toString('latin1'));
    const delivered = all.subarray(begin, endAt);
    expect(trailer).not.toBeNull();
    expect(delivered.length).toBe(Number(trailer?.[1]));
    expect(createHash('sha256').update(delivered).digest('hex')).toBe(trailer?.[2]);
    // The generator is deterministic: the same seed here gives the bytes it says it wrote.
    const expected = Buffer.concat(hostileParts(7).map(([, bytes]) => bytes));
    expect(delivered.equals(expected)).toBe(true);

    // The record: valid JSON, and the last title (control, C1, bidi, 600+ chars) made safe.
    const status = await waitForStatus(env, (s) => typeof s.sessions[0]?.record['title'] === 'string' && String(s.sessions[0]?.record['title']).startsWith('final'));
    const session = status.sessions[0];
    const title = String(session?.record['title']);
    expect(title.length).toBeLessThanOrEqual(256);
    expect(title).not.toMatch(UNSAFE_TITLE_CHARS);
    expect(title).toMatch(/^finaleviltitleW{200,}$/);
    for (const name of readdirSync(join(root, 'sessions'))) {
      expect(() => JSON.parse(readFileSync(join(root, 'sessions', name), 'utf8')) as unknown).not.toThrow();
    }

    // The detector keeps ticking after the flood: a new title from the agent shows up in a
    // later tick of `status explain` (through the control socket).
    const key = String(session?.key);
    const explain = (): Explain => JSON.parse(runCli(['status', 'explain', key, '--json'], env).stdout) as Explain;
    const before = explain().current_tick;
    term.pty.write('t');
    await waitUntilAsync(() => explain().current_tick?.digest.title === 'after-flood-1', 10_000);
    const latest = explain().current_tick;
    expect(latest?.t ?? 0).toBeGreaterThan(before?.t ?? Number.POSITIVE_INFINITY);

    const wrapperPid = Number(session?.record['wrapper_pid']);
    const memory = memoryKiB(wrapperPid);
    expect(memory.peak).toBeLessThan(WRAPPER_PEAK_RSS_MAX_KIB);
    console.info(`hostile flood: ${delivered.length} bytes, 0 lost; wrapper peak RSS ${Math.round(memory.peak / 1024)} MiB, now ${Math.round(memory.now / 1024)} MiB`);

    term.pty.write('q');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(0);
    expect(readdirSync(join(root, 'sessions')).filter((n) => n.endsWith('.json'))).toEqual([]);
    // Nothing from the flood or from xterm (parse error dumps) was written after the agent's last byte.
    const after = term.bytes().subarray(term.bytes().indexOf('>>', endAt) + 2).toString('utf8');
    expect(after).not.toMatch(/error|Parsing/i);
  }, 120_000);
});
