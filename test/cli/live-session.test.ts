/**
 * The live session end to end, as a user sees it: two wrapped demo agents in their own
 * terminals; `status`, `status --json`, `status explain`, `status capture`, `ack` and `events`
 * from outside; records private; a killed wrapper's line gone; a symlinked state directory
 * refused with one warning while the agent runs normally. The agents and `events` are real
 * processes; the one-shot commands typed from outside run in-process.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../src/adapters/process/alive.js';
import { requestControl } from '../../src/app/control/socket.js';
import { readSessions } from '../../src/app/sessions/store.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';
import { runCliInProcess, type CliResult } from '../helpers/cli-in-process.js';
import { openOuterTerminal, type OuterTerminal } from '../helpers/pty-outer.js';

const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGHUP');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

/** A command typed outside the sessions, run in-process (helpers/cli-in-process.ts): its output is what is checked. */
function cli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return runCliInProcess(args, { env: { ...process.env, ...env } });
}

interface Listed {
  key: string;
  state: string;
  agent: string;
  rule_id?: string | null;
}

async function listSessions(env: Record<string, string>): Promise<Listed[]> {
  const result = await cli(['status', '--json'], env);
  expect(result.code, result.stderr).toBe(0);
  const doc = JSON.parse(result.stdout) as { sessions: Listed[] };
  return doc.sessions;
}

/**
 * The published states, read in-process: for waiting only (a `status --json` per poll is a Node
 * start-up each time); what the test asserts comes from the CLI once the wait is over.
 */
function published(env: Record<string, string>): { key: string; state: string }[] {
  return readSessions(env['AGENT_STATUS_DIR'] ?? '', Date.now(), isPidAlive).map((s) => ({ key: s.key, state: 'state' in s.record ? String(s.record.state) : '-' }));
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startDemo(env: Record<string, string>): OuterTerminal {
  const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} demo --speed 4`, { env });
  opened.push(term);
  return term;
}

describe('a live wrapped session seen from outside', () => {
  it('shows two sessions with their states, explains them, captures, acks, and drops a killed one', async () => {
    ensureBuilt();
    const base = mkdtempSync(join(tmpdir(), 'aw-live-'));
    const env = { AGENT_STATUS_DIR: join(base, 'status') };
    const first = startDemo(env);
    const second = startDemo(env);
    await first.waitFor('? for shortcuts');
    await second.waitFor('? for shortcuts');
    await until('two idle sessions', () => {
      const list = published(env);
      return list.length === 2 && list.every((s) => s.state === 'idle') ? true : undefined;
    });
    const sessions = await listSessions(env);
    expect(sessions.map((s) => s.state)).toEqual(['idle', 'idle']);

    // Drive the first agent into its permission dialog; the second stays idle.
    first.pty.write('run the tests\r');
    await first.waitFor('Esc to cancel');
    await until('the first session blocked', () => published(env).find((s) => s.state === 'blocked')?.key);
    const listed = await listSessions(env);
    expect(listed.map((s) => s.state).sort()).toEqual(['blocked', 'idle']);
    const firstKey = listed.find((s) => s.state === 'blocked')?.key ?? '';
    expect(sessions.map((s) => s.key)).toContain(firstKey);

    const explained = await cli(['status', 'explain', firstKey], env);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain(`session ${firstKey} (demo): blocked`);
    expect(explained.stdout).toContain('rule permission-dialog');
    expect(explained.stdout).toMatch(/★ permission-dialog/);
    // Wrapped in a real terminal, the bytes go through the native relay thread, and a demo
    // session is small enough for the mirror to have parsed every byte.
    expect(explained.stdout).toMatch(/passthrough: relay thread; mirror parsed \d+\.\d MB, nothing skipped/);
    const explainedJson = JSON.parse((await cli(['status', 'explain', firstKey, '--json', '--ticks', '3'], env)).stdout) as {
      state: string;
      rule_id: string;
      ticks: unknown[];
      pack: { rule_id: string };
      mirror: { passthrough: string; parsedBytes: number; relay_skipped_bytes: number };
    };
    expect(explainedJson.state).toBe('blocked');
    expect(explainedJson.rule_id).toBe('permission-dialog');
    expect(explainedJson.ticks.length).toBeLessThanOrEqual(3);
    expect(explainedJson.pack.rule_id).toBe('permission-dialog');
    expect(explainedJson.mirror.passthrough).toBe('native');
    expect(explainedJson.mirror.parsedBytes).toBeGreaterThan(0);
    expect(explainedJson.mirror.relay_skipped_bytes).toBe(0);

    const out = join(base, 'captured');
    const captured = await cli(['status', 'capture', firstKey, '--out', out], env);
    expect(captured.code, captured.stderr).toBe(0);
    const fixture = readdirSync(out).find((f) => f.endsWith('.txt'));
    expect(fixture).toMatch(/^blocked_/);
    const fixtureText = readFileSync(join(out, fixture ?? ''), 'utf8');
    expect(fixtureText).toMatch(/^# agent: demo\n# provenance: demo /);
    expect(fixtureText).toContain('Do you want to run ls -la?');
    // No --agent: the capture's header names it (its folder, `captured`, names no agent).
    const relint = await cli(['status', 'explain', '--file', join(out, fixture ?? ''), '--json'], env);
    expect(relint.code, relint.stderr).toBe(0);
    expect(JSON.parse(relint.stdout) as { state: string; agent: string }).toMatchObject({ state: 'blocked', agent: 'demo' });

    // Approve; the turn finishes as done (nobody looked); `ack` makes it idle.
    first.pty.write('1');
    await until('the first session done', () => (published(env).find((s) => s.key === firstKey)?.state === 'done' ? true : undefined));
    expect((await listSessions(env)).find((s) => s.key === firstKey)?.state).toBe('done');
    const acked = await cli(['ack', firstKey], env);
    expect(acked.code, acked.stderr).toBe(0);
    await until('the first session idle after ack', () => (published(env).find((s) => s.key === firstKey)?.state === 'idle' ? true : undefined));
    expect((await listSessions(env)).find((s) => s.key === firstKey)?.state).toBe('idle');

    // Records are private.
    const sessionsDir = join(env.AGENT_STATUS_DIR, 'sessions');
    expect(statSync(sessionsDir).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(sessionsDir)) expect(statSync(join(sessionsDir, file)).mode & 0o777).toBe(0o600);
    // No screen text in records.
    for (const file of readdirSync(sessionsDir)) expect(readFileSync(join(sessionsDir, file), 'utf8')).not.toContain('ls -la');

    // kill -9 of the first wrapper: its line disappears (the pid is dead) while the other stays.
    first.pty.kill('SIGKILL');
    await until('one session left', () => (published(env).length === 1 ? true : undefined));
    const remaining = await listSessions(env);
    expect(remaining).toHaveLength(1);
    expect(remaining[0]?.key).not.toBe(firstKey);
  });

  it('streams transitions as NDJSON with events', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-events-')), 'status') };
    const term = startDemo(env);
    await term.waitFor('? for shortcuts');
    await until('an idle session', () => (published(env)[0]?.state === 'idle' ? true : undefined));
    const events = spawn(process.execPath, [CLI, 'events'], { env: { ...process.env, ...env } });
    let text = '';
    events.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    await until('the snapshot line', () => (text.includes('"to":"idle"') ? true : undefined));

    term.pty.write('hello there\r');
    await until('working then done', () => (text.includes('"to":"working"') && text.includes('"to":"done"') ? true : undefined));
    events.kill('SIGINT');

    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as { from: string | null; to: string; agent: string });
    expect(lines[0]).toMatchObject({ from: null, to: 'idle', agent: 'demo' });
    expect(lines.map((l) => l.to)).toEqual(expect.arrayContaining(['working', 'done']));

    // The session keeps what it published for the dashboard's timeline (control `history`).
    const doc = JSON.parse((await cli(['status', '--json'], env)).stdout) as { sessions: { record: { control: string; started_at: number } }[] };
    const record = doc.sessions[0]?.record;
    const history = (await requestControl(record?.control ?? '', { method: 'history' }, 5_000)) as { since: number; now: number; initial: string | null; transitions: { t: number; to: string }[] };
    const states = history.transitions.map((t) => t.to);
    expect(states.slice(-2)).toEqual(['working', 'done']);
    expect(states).toContain('idle');
    expect(history.initial).toBeNull();
    expect(history.since).toBe(record?.started_at);
    expect(history.transitions.every((t, i, all) => t.t >= history.since && t.t <= history.now && (i === 0 || t.t >= (all[i - 1]?.t ?? 0)))).toBe(true);
  });

  it('refuses a symlinked state directory with one warning and the agent runs normally', async () => {
    ensureBuilt();
    const base = mkdtempSync(join(tmpdir(), 'aw-symlink-'));
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(base, 'link');
    symlinkSync(real, link);
    const term = openOuterTerminal(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} demo --speed 4; echo "EXIT=$?"`,
      { env: { AGENT_STATUS_DIR: link } },
    );
    opened.push(term);
    await term.waitFor('? for shortcuts');
    term.pty.write('hello\r');
    await term.waitFor('Worked for');
    term.pty.write('/exit\r');
    await term.waitFor('EXIT=0');

    const output = term.output();
    const warnings = output.split('\n').filter((line) => line.includes('agentwrap:') && line.includes(link));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('symlink');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(join(real, 'sessions'))).toBe(false);
  });
});
