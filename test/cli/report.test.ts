/**
 * `agentwrap report` and `agentwrap report-metadata` as a hook runs them: the built CLI, spawned
 * against a temporary AGENT_STATUS_DIR holding a session record whose control socket is a
 * server started in this test, answering `report` with a real Reporter.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/adapters/clock.js';
import { startControlServer, type ControlServer } from '../../src/app/control/socket.js';
import { Reporter } from '../../src/app/reporters/reporter.js';
import { createSessionRecord } from '../../src/core/records/session-record.js';
import { renderStatusText } from '../../src/cli/render/status.js';
import { renderTickEntry } from '../../src/cli/render/ticks.js';
import { initialDetectorState, tick } from '../../src/core/detector/tick.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';
import { snapshot } from '../helpers/detector-builders.js';

let root: string;
let servers: ControlServer[];

beforeAll(() => ensureBuilt());

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'aw-report-'));
  mkdirSync(join(root, 'sessions'), { mode: 0o700 });
  mkdirSync(join(root, 'sockets'), { mode: 0o700 });
  servers = [];
});

afterEach(async () => {
  for (const server of servers) await server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with exactly the given AGENTWRAP_* variables (none inherited), optional stdin. */
function cli(args: readonly string[], env: Readonly<Record<string, string>> = {}, stdin?: string): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTWRAP_')));
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...base, AGENT_STATUS_DIR: root, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  if (stdin !== undefined) child.stdin.end(stdin);
  else child.stdin.end();
  return new Promise((resolvePromise) => child.once('close', (code) => resolvePromise({ code, stdout, stderr })));
}

/** A live session record named `claude-<id>` with a control server answering with `reporter`. */
async function session(id: string, reporter: Reporter | 'silent'): Promise<string> {
  const key = `claude-${id}`;
  const control = join(root, 'sockets', `${key}.sock`);
  const now = Date.now();
  const record = createSessionRecord({
    sourceCli: 'claude',
    sessionId: id,
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/tmp',
    startedAtMs: now,
    updatedAtMs: now,
    state: 'working',
    stateSinceMs: now,
    seen: true,
    stuck: false,
    winner: null,
    ruleId: null,
    control,
  });
  writeFileSync(join(root, 'sessions', `${key}.json`), JSON.stringify(record), { mode: 0o600 });
  servers.push(
    await startControlServer(control, {
      explain: () => ({}),
      capture: () => ({}),
      ack: () => ({}),
      // 'silent': a wedged session that never answers.
      report: (params) => (reporter === 'silent' ? new Promise(() => undefined) : reporter.handle(params)),
      subscribe: () => () => undefined,
    }),
  );
  return key;
}

function newReporter(): Reporter {
  return new Reporter({ clock: manualClock(0, Date.now()), sessionAgent: 'claude', hasPack: () => true });
}

describe('agentwrap report without a session', () => {
  it('exits 0 and prints nothing when AGENTWRAP_SESSION is not set', async () => {
    const run = await cli(['report', 'stop']);

    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('says why on stderr only under AGENTWRAP_DEBUG=1, and still exits 0', async () => {
    const run = await cli(['report', 'stop'], { AGENTWRAP_DEBUG: '1' });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/AGENTWRAP_SESSION is not set/);
  });

  it('exits 0 quietly when the named session is not live', async () => {
    const run = await cli(['report', 'PermissionRequest', '--json', '-'], { AGENTWRAP_SESSION: 'gone', AGENTWRAP_PID: '999999999' }, '{"session_id":"x"}');

    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('never fails a hook on a malformed call: no event, unknown option (exit 0, never 2)', async () => {
    const runs = await Promise.all([cli(['report'], { AGENTWRAP_SESSION: 'x' }), cli(['report', 'stop', '--bogus'], { AGENTWRAP_SESSION: 'x' })]);

    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs.map((r) => r.stdout + r.stderr)).toEqual(['', '']);
  });
});

describe('agentwrap report to a live session', () => {
  it('delivers the event with the slimmed stdin payload to the session AGENTWRAP_SESSION names', async () => {
    const reporter = newReporter();
    await session('s1', reporter);
    const payload = JSON.stringify({ session_id: 'abc-1', model: 'claude-opus-5-5', prompt: 'secret', hook_event_name: 'SessionStart' });

    const run = await cli(['report', 'SessionStart', '--source', 'claude-hooks', '--json', '-'], { AGENTWRAP_SESSION: 's1' }, payload);

    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(reporter.evidence()).toEqual([expect.objectContaining({ source: 'claude-hooks', agent: 'claude', lastEvent: 'SessionStart', lastEffect: 'identity' })]);
    expect(reporter.identity()).toEqual({ agentSessionId: 'abc-1', model: 'claude-opus-5-5' });
  });

  it('a PermissionRequest arrives as a blocked claim; the debug line shows the reply', async () => {
    const reporter = newReporter();
    await session('s2', reporter);

    const run = await cli(['report', 'PermissionRequest', '--source', 'claude-hooks'], { AGENTWRAP_SESSION: 's2', AGENTWRAP_DEBUG: '1' });

    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/PermissionRequest → claude-s2: .*"effect":"asserted"/);
    expect(reporter.evidence()[0]?.assertion).toMatchObject({ state: 'blocked', grade: 'blocker', event: 'PermissionRequest' });
  });

  it('takes a payload given after --json as an argument (Codex notify appends it there)', async () => {
    const reporter = newReporter();
    await session('s3', reporter);

    await cli(['report', 'notify', '--agent', 'codex', '--source', 'codex-notify', '--json', '{"type":"agent-turn-complete","thread-id":"th_7"}'], { AGENTWRAP_SESSION: 's3' });

    expect(reporter.evidence()).toEqual([expect.objectContaining({ source: 'codex-notify', agent: 'codex', lastEvent: 'notify' })]);
    expect(reporter.identity()).toEqual({ agentSessionId: 'th_7' });
  });

  it('finds the session by AGENTWRAP_PID when the session id does not match, and by --session key', async () => {
    const reporter = newReporter();
    const key = await session('s4', reporter);

    await cli(['report', 'Stop', '--source', 'a'], { AGENTWRAP_SESSION: 'renamed', AGENTWRAP_PID: String(process.pid) });
    await cli(['report', 'Stop', '--source', 'b', '--session', key]);

    expect(reporter.evidence().map((e) => e.source).sort()).toEqual(['a', 'b']);
  });

  it('gives up on a session that does not answer and still exits 0', async () => {
    await session('s5', 'silent');

    const run = await cli(['report', 'Stop'], { AGENTWRAP_SESSION: 's5', AGENTWRAP_DEBUG: '1' });

    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/not sent: timeout/);
  });

  it('sends the process start time as the default sequence number, so a later hook supersedes an earlier one', async () => {
    const reporter = newReporter();
    await session('s6', reporter);

    const spawnedAfter = Date.now();
    await cli(['report', 'PermissionRequest', '--source', 'h'], { AGENTWRAP_SESSION: 's6' });
    const first = reporter.evidence()[0]?.lastSeq ?? 0;
    const exitedBefore = Date.now();
    await cli(['report', 'Stop', '--source', 'h'], { AGENTWRAP_SESSION: 's6' });

    // The reporting process's own start: between this test's spawn and that process's exit.
    expect(first).toBeGreaterThanOrEqual(spawnedAfter - 1);
    expect(first).toBeLessThanOrEqual(exitedBefore);
    expect(reporter.evidence()[0]).toMatchObject({ lastEvent: 'Stop', lastEffect: 'released', assertion: undefined });
  });
});

describe('agentwrap report-metadata', () => {
  it('sends display values with a TTL; they show until it passes and never touch the evidence', async () => {
    const clock = manualClock(0, Date.now());
    const reporter = new Reporter({ clock, sessionAgent: 'claude', hasPack: () => true });
    await session('m1', reporter);

    const run = await cli(['report-metadata', 'model=opus', 'summary=reviewing auth', '--ttl-ms', '5000'], { AGENTWRAP_SESSION: 'm1' });
    const shown = reporter.metadata(clock.nowMs());
    clock.advanceTo(5000);

    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(shown).toEqual({ model: 'opus', summary: 'reviewing auth' });
    expect(reporter.metadata(clock.nowMs())).toEqual({});
    expect(reporter.evidence()).toEqual([]);
  });

  it('exits 0 quietly without a session, and 2 on a malformed pair', async () => {
    const quiet = await cli(['report-metadata', 'model=opus']);
    const bad = await cli(['report-metadata', 'not-a-pair'], { AGENTWRAP_SESSION: 'x' });

    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected key=value/);
  });
});

describe('what status and status explain show of reports', () => {
  it('status lists a session\'s live metadata as key=value after its title', () => {
    const now = Date.now();
    const record = createSessionRecord({
      sourceCli: 'claude', sessionId: 'x', pid: process.pid, wrapperPid: process.pid, cwd: '/tmp', startedAtMs: now, updatedAtMs: now,
      state: 'working', stateSinceMs: now, seen: true, stuck: false, winner: null, ruleId: null, control: '', title: 'fixing',
      metadata: { model: 'opus', tokens: '12k' },
    });

    const lines = renderStatusText({ nowMs: now, root: root, sessions: [{ kind: 'agentwrap', record, key: 'claude-x', path: '' }], warnings: [] });

    expect(lines[1]).toMatch(/fixing model=opus tokens=12k$/);
  });

  it('explain shows each source, its last event, its age and whether its claim counted', () => {
    const reporter = new Reporter({ clock: manualClock(1000, 0), sessionAgent: 'claude', hasPack: () => true });
    reporter.handle({ event: 'PermissionRequest', source: 'claude-hooks' });
    const snap = snapshot({ nowMs: 1500, process: { sampled: false, reason: 'test' }, reports: reporter.evidence() });

    const { entry } = tick(initialDetectorState(0), snap, undefined, 1500);
    const text = renderTickEntry(entry, 'now');

    expect(text).toContain('reporter claude-hooks (claude): last PermissionRequest 500ms ago → asserted; claims blocked (blocker, PermissionRequest, 500ms ago) — counted [1 accepted]');
    expect(text).toContain('note: report-claim');
  });
});
