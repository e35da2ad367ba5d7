import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, type ManualClock } from '../../../src/adapters/clock.js';
import { createSessionRecord, DEFAULT_RECORD_TTL_MS, recordKey, refreshIntervalMs, type SessionRecord, type SessionRecordInput } from '../../../src/core/records/session-record.js';
import { loadSkipCache, openSessionStore, readCachedSessionsReport, readHeartbeats, readSessionsReport, resolveSession, sweepStaleRecords, type SessionStore } from '../../../src/app/sessions/store.js';
import { SkipCache, skipCachePath } from '../../../src/app/sessions/skip-cache.js';

const WALL_START_MS = Date.now();
const TTL_MS = DEFAULT_RECORD_TTL_MS;

let base: string;
let root: string;
let clock: ManualClock;
let warnings: string[];
let stores: SessionStore[];

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'aw-store-'));
  root = join(base, 'agent-status');
  clock = manualClock(0, WALL_START_MS);
  warnings = [];
  stores = [];
});

afterEach(() => {
  for (const store of stores) store.removeSync();
  rmSync(base, { recursive: true, force: true });
});

function record(overrides: Partial<SessionRecordInput> = {}): SessionRecord {
  return createSessionRecord({
    sourceCli: 'claude',
    sessionId: 'abc',
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/home/user/repo',
    startedAtMs: WALL_START_MS,
    updatedAtMs: WALL_START_MS,
    ttlMs: TTL_MS,
    state: 'working',
    stateSinceMs: WALL_START_MS,
    seen: true,
    stuck: false,
    winner: 'pack',
    ruleId: 'spinner',
    control: join(root, 'sockets', 'claude-abc.sock'),
    ...overrides,
  });
}

function open(key = recordKey('claude', 'abc'), extra: { onRecovered?: () => void } = {}): SessionStore {
  const store = openSessionStore({ root, key, clock, onWarning: (m) => warnings.push(m), autoRefresh: false, ...extra });
  stores.push(store);
  return store;
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

const alive = (): boolean => true;

describe('SessionStore.publish', () => {
  it('writes sessions/<key>.json 0600 in 0700 directories, stamped with the wall clock', async () => {
    const store = open();
    clock.advanceBy(1_234);

    const written = await store.publish(record({ state: 'blocked' }));

    expect(written).toBe(true);
    expect(store.recordPath).toBe(join(root, 'sessions', 'claude-abc.json'));
    expect(readJson(store.recordPath)).toMatchObject({ schema: 1, state: 'blocked', written_by: 'agentwrap', updated_at: WALL_START_MS + 1_234 });
    expect(statSync(store.recordPath).mode & 0o777).toBe(0o600);
    expect([root, join(root, 'sessions'), join(root, 'providers')].map((d) => statSync(d).mode & 0o777)).toEqual([0o700, 0o700, 0o700]);
  });

  it('writes the provider heartbeat with the convention’s fields', async () => {
    await open().publish(record());

    expect(readJson(join(root, 'providers', 'agentwrap.json'))).toMatchObject({
      schema: 1,
      tool: 'agentwrap',
      pid: process.pid,
      ts: WALL_START_MS,
      ttl_ms: TTL_MS,
      capabilities: expect.arrayContaining(['sessions', 'control']) as unknown,
    });
    expect(readHeartbeats(root, WALL_START_MS).map((h) => h.tool)).toEqual(['agentwrap']);
  });

  it('coalesces rapid publishes: the newest record is the one on disk', async () => {
    const store = open();

    const results = await Promise.all(['working', 'blocked', 'idle'].map((state) => store.publish(record({ state: state as SessionRecord['state'] }))));

    expect(results.some((ok) => ok)).toBe(true);
    expect(readJson(store.recordPath)['state']).toBe('idle');
  });
});

describe('SessionStore refresh', () => {
  it('is due a third of the lease after the last write, and rewrites updated_at then', async () => {
    const store = open();
    await store.publish(record());
    const interval = refreshIntervalMs(TTL_MS);

    clock.advanceBy(interval - 1);
    const dueBefore = store.refreshDueMs();
    await store.refreshIfDue();
    const stampBefore = readJson(store.recordPath)['updated_at'];
    clock.advanceBy(1);
    await store.refreshIfDue();

    expect(dueBefore).toBe(1);
    expect(stampBefore).toBe(WALL_START_MS);
    expect(readJson(store.recordPath)['updated_at']).toBe(WALL_START_MS + interval);
    expect(store.refreshDueMs()).toBe(interval);
  });

  it('refreshes early when its owner says the next wake-up is further off than the refresh', async () => {
    const store = open();
    await store.publish(record());
    const interval = refreshIntervalMs(TTL_MS);

    clock.advanceBy(interval - 5_000);
    await store.refreshIfDue(4_999);
    const notYet = readJson(store.recordPath)['updated_at'];
    await store.refreshIfDue(5_000);

    expect(notYet).toBe(WALL_START_MS);
    expect(readJson(store.recordPath)['updated_at']).toBe(WALL_START_MS + interval - 5_000);
    expect(store.refreshDueMs()).toBe(interval);
  });

  it('with a timer slack, leaves a due refresh to its owner for that long before its own timer does it', async () => {
    const store = openSessionStore({ root, key: recordKey('claude', 'slack'), clock, onWarning: (m) => warnings.push(m), timerSlackMs: 300 });
    stores.push(store);
    const ttlMs = 300; // a refresh is due every 100 ms
    await store.publish(record({ ttlMs }));
    clock.advanceBy(refreshIntervalMs(ttlMs));
    const stamp = (): unknown => readJson(store.recordPath)['updated_at'];

    await new Promise((resolve) => setTimeout(resolve, 150));
    const withinSlack = stamp();
    let afterSlack = stamp();
    for (let i = 0; i < 60 && afterSlack === WALL_START_MS; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      afterSlack = stamp();
    }

    expect(withinSlack).toBe(WALL_START_MS);
    expect(afterSlack).toBe(WALL_START_MS + refreshIntervalMs(ttlMs));
  });

  it('has nothing to refresh before the first publish', () => {
    expect(open().refreshDueMs()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('SessionStore.remove', () => {
  it('deletes its own record and heartbeat, and never another writer’s files', async () => {
    const store = open();
    await store.publish(record());
    const peerRecord = join(root, 'sessions', 'grok-abc123.json');
    const peerHeartbeat = join(root, 'providers', 'token-oracle.json');
    writeFileSync(peerRecord, '{"schema":1}', { mode: 0o600 });
    writeFileSync(peerHeartbeat, '{"schema":1}', { mode: 0o600 });

    await store.remove();

    expect(existsSync(store.recordPath)).toBe(false);
    expect(existsSync(join(root, 'providers', 'agentwrap.json'))).toBe(false);
    expect(readdirSync(join(root, 'sessions'))).toEqual(['grok-abc123.json']);
    expect(readdirSync(join(root, 'providers'))).toEqual(['token-oracle.json']);
  });

  it('leaves the shared heartbeat alone while it names another agentwrap process', async () => {
    const store = open();
    await store.publish(record());
    const heartbeatPath = join(root, 'providers', 'agentwrap.json');
    writeFileSync(heartbeatPath, JSON.stringify({ schema: 1, tool: 'agentwrap', pid: 1, ts: WALL_START_MS, ttl_ms: TTL_MS }));

    store.removeSync();

    expect(existsSync(heartbeatPath)).toBe(true);
    expect(existsSync(store.recordPath)).toBe(false);
  });

  it('publishes nothing after remove', async () => {
    const store = open();
    await store.remove();

    expect(await store.publish(record())).toBe(false);
    expect(existsSync(store.recordPath)).toBe(false);
  });
});

describe('SessionStore soft-fail', () => {
  it('warns once when the root is a symlink, writes nothing, and keeps failing quietly', async () => {
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, root);
    const store = open();

    const first = await store.publish(record());
    clock.advanceBy(60_000);
    await store.refreshIfDue();
    await store.publish(record({ state: 'blocked' }));

    expect(first).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(root);
    expect(warnings[0]).toMatch(/symbolic link.*keeps running/);
    expect(readdirSync(real)).toEqual([]);
    expect(store.isHealthy()).toBe(false);
  });

  it('warns once when the directory cannot be created, then recovers when it can', async () => {
    writeFileSync(base + '/blocker', 'x');
    const blockedRoot = join(base, 'blocker', 'agent-status');
    let recovered = 0;
    const store = openSessionStore({ root: blockedRoot, key: 'k', clock, onWarning: (m) => warnings.push(m), onRecovered: () => recovered++, autoRefresh: false });
    stores.push(store);

    await store.publish(record());
    await store.publish(record());
    rmSync(join(base, 'blocker'));
    clock.advanceBy(5_000);
    await store.refreshIfDue();

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(blockedRoot);
    expect(recovered).toBe(1);
    expect(existsSync(join(blockedRoot, 'sessions', 'k.json'))).toBe(true);
  });

  it('retries a failed write after the retry pause, not before', async () => {
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, root);
    const store = open();
    await store.publish(record());

    const dueRightAfter = store.refreshDueMs();
    rmSync(root);
    clock.advanceBy(dueRightAfter);
    await store.refreshIfDue();

    expect(dueRightAfter).toBe(5_000);
    expect(existsSync(store.recordPath)).toBe(true);
  });

  it.skipIf(process.getuid?.() === 0)('warns once on a directory it may not write (non-root only: root ignores modes)', async () => {
    const store = open();
    await store.publish(record());
    chmodSync(join(root, 'sessions'), 0o500);

    await store.publish(record({ state: 'blocked' }));
    await store.publish(record({ state: 'idle' }));
    chmodSync(join(root, 'sessions'), 0o700);

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not writable/);
  });

  it('recreates the directory when it is deleted while the session runs', async () => {
    const store = open();
    await store.publish(record());

    rmSync(root, { recursive: true });
    const written = await store.publish(record({ state: 'blocked' }));

    expect(written).toBe(true);
    expect(warnings).toEqual([]);
    expect(readJson(store.recordPath)['state']).toBe('blocked');
    expect(statSync(root).mode & 0o777).toBe(0o700);
  });

  it('refuses to follow sessions/ once it is replaced by a symlink', async () => {
    const store = open();
    await store.publish(record());
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    renameSync(join(root, 'sessions'), join(base, 'old-sessions'));
    symlinkSync(elsewhere, join(root, 'sessions'));

    const written = await store.publish(record({ state: 'blocked' }));

    expect(written).toBe(false);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/sessions: it is a symbolic link/);
  });

  it('refuses a symlink planted at its record path', async () => {
    const store = open();
    await store.publish(record());
    const victim = join(base, 'victim');
    writeFileSync(victim, 'keep');
    rmSync(store.recordPath);
    symlinkSync(victim, store.recordPath);

    expect(await store.publish(record())).toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(warnings[0]).toMatch(/claude-abc\.json: it is a symbolic link/);
  });
});

describe('readSessionsReport', () => {
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', '0']);
    return child.pid ?? 999_999_999;
  }

  it('returns live records from every writer and skips the rest without throwing', async () => {
    const store = open();
    await store.publish(record());
    const sessions = join(root, 'sessions');
    const now = clock.wallMs();
    const oracle = { schema: 1, source_cli: 'grok', session_id: 'g1', model: 'grok-4.5', written_by: 'token-oracle', updated_at: now, ttl_ms: 60_000 };
    writeFileSync(join(sessions, 'grok-g1.json'), JSON.stringify(oracle));
    writeFileSync(join(sessions, 'corrupt.json'), '{"schema":1,');
    writeFileSync(join(sessions, 'expired.json'), JSON.stringify({ ...oracle, session_id: 'old', updated_at: now - 120_000 }));
    writeFileSync(join(sessions, 'dead.json'), JSON.stringify({ ...oracle, session_id: 'dead', pid: deadPid() }));
    writeFileSync(join(sessions, 'schema2.json'), JSON.stringify({ ...oracle, schema: 2 }));
    writeFileSync(join(sessions, 'notes.txt'), 'not a record');
    mkdirSync(join(sessions, 'dir.json'));
    symlinkSync(join(sessions, 'grok-g1.json'), join(sessions, 'link.json'));

    const report = readSessionsReport(root, now, (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });

    expect(report.sessions.map((s) => [s.key, s.kind])).toEqual([
      ['claude-abc', 'agentwrap'],
      ['grok-g1', 'other'],
    ]);
    expect(Object.fromEntries(report.skipped.map((s) => [s.path.split('/').pop(), s.reason]))).toEqual({
      'corrupt.json': 'corrupt',
      'dead.json': 'dead',
      'dir.json': 'not-a-file',
      'expired.json': 'expired',
      'link.json': 'not-a-file',
      'schema2.json': 'corrupt',
    });
  });

  it('reads an absent root as no sessions, and a symlinked root as a warning', () => {
    const missing = readSessionsReport(join(base, 'nothing'), WALL_START_MS, alive);
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), root);

    const linked = readSessionsReport(root, WALL_START_MS, alive);

    expect(missing).toEqual({ sessions: [], skipped: [], warning: undefined });
    expect(linked.sessions).toEqual([]);
    expect(linked.warning).toMatch(/symbolic link/);
  });
});

describe('the skip cache (settled verdicts on dead records)', () => {
  const oracle = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    schema: 1, source_cli: 'grok', session_id: 'g1', model: 'grok-4.5', written_by: 'token-oracle', updated_at: WALL_START_MS, ttl_ms: 60_000, ...overrides,
  });
  /** A pid checker that counts its calls: a cached verdict must not ask again. */
  function countingAlive(dead: ReadonlySet<number>): { alive: (pid: number) => boolean; calls: () => number } {
    let calls = 0;
    return { alive: (pid) => ((calls += 1), !dead.has(pid)), calls: () => calls };
  }

  it('reports stale records exactly as without it, asks no pid again, and reads a record again once it is rewritten', async () => {
    await open().publish(record());
    const sessions = join(root, 'sessions');
    writeFileSync(join(sessions, 'expired.json'), JSON.stringify(oracle({ session_id: 'old', updated_at: WALL_START_MS - 120_000 })));
    writeFileSync(join(sessions, 'dead.json'), JSON.stringify(oracle({ session_id: 'dead', pid: 4_999_999 })));
    writeFileSync(join(sessions, 'corrupt.json'), '{"schema":1,');
    const pids = countingAlive(new Set([4_999_999]));

    const first = readCachedSessionsReport(root, WALL_START_MS, pids.alive);
    const callsAfterFirst = pids.calls();
    const second = readCachedSessionsReport(root, WALL_START_MS, pids.alive);
    const callsBySecond = pids.calls() - callsAfterFirst;

    const reasons = (r: typeof first): Record<string, string> => Object.fromEntries(r.skipped.map((s) => [s.path.split('/').pop(), s.reason]));
    expect(reasons(first)).toEqual({ 'corrupt.json': 'corrupt', 'dead.json': 'dead', 'expired.json': 'expired' });
    expect(reasons(second)).toEqual(reasons(first));
    expect(second.sessions.map((s) => s.key)).toEqual(['claude-abc']);
    // Second pass: only the live record was asked about, not the dead record's pid.
    const before = pids.calls();
    readSessionsReport(root, WALL_START_MS, pids.alive);
    const callsUncached = pids.calls() - before;
    expect(callsBySecond).toBe(callsUncached - 1);
    expect(loadSkipCache(root).size).toBe(3);

    // The dead writer's key is reused by a live one (a rename: a new file) — it shows at once.
    writeFileSync(join(sessions, '.dead.tmp'), JSON.stringify(oracle({ session_id: 'dead', pid: process.pid })));
    renameSync(join(sessions, '.dead.tmp'), join(sessions, 'dead.json'));
    // …and the corrupt file fixed in place (same inode, new size and mtime).
    writeFileSync(join(sessions, 'corrupt.json'), JSON.stringify(oracle({ session_id: 'fixed' })));
    const third = readCachedSessionsReport(root, WALL_START_MS, pids.alive);
    expect(third.sessions.map((s) => s.key).sort()).toEqual(['claude-abc', 'corrupt', 'dead']);
    expect(reasons(third)).toEqual({ 'expired.json': 'expired' });
  });

  it('forgets files that are gone and never caches a live record', async () => {
    await open().publish(record());
    const sessions = join(root, 'sessions');
    writeFileSync(join(sessions, 'expired.json'), JSON.stringify(oracle({ updated_at: WALL_START_MS - 120_000 })));
    readCachedSessionsReport(root, WALL_START_MS, alive);
    expect(loadSkipCache(root).size).toBe(1);
    rmSync(join(sessions, 'expired.json'));
    readCachedSessionsReport(root, WALL_START_MS, alive);
    expect(loadSkipCache(root).size).toBe(0);
  });

  it('ignores a corrupt or hostile cache file (a symlink) and reads every record', async () => {
    await open().publish(record());
    mkdirSync(join(root, 'cache'), { mode: 0o700 });
    writeFileSync(skipCachePath(root), '{"version":1,"entries":{"claude-abc.json":[1,2,3,4,"banana",0]}}');
    expect(readCachedSessionsReport(root, WALL_START_MS, alive).sessions.map((s) => s.key)).toEqual(['claude-abc']);
    rmSync(skipCachePath(root));
    writeFileSync(join(base, 'elsewhere.json'), JSON.stringify(new SkipCache().toJson()));
    symlinkSync(join(base, 'elsewhere.json'), skipCachePath(root));
    expect(loadSkipCache(root).size).toBe(0);
    expect(readCachedSessionsReport(root, WALL_START_MS, alive).sessions.map((s) => s.key)).toEqual(['claude-abc']);
  });

  it('lets the sweep pass by other writers’ settled leftovers and still remove agentwrap’s own', async () => {
    const dead = 4_999_998;
    const sessions = join(root, 'sessions');
    await open('claude-live').publish(record());
    const expired = WALL_START_MS - 2 * TTL_MS;
    writeFileSync(join(sessions, 'claude-crashed.json'), JSON.stringify(record({ wrapperPid: dead, updatedAtMs: expired })));
    writeFileSync(join(sessions, 'grok-g.json'), JSON.stringify(oracle({ pid: dead, updated_at: expired, ttl_ms: 1_000 })));
    readCachedSessionsReport(root, WALL_START_MS, (pid) => pid !== dead);
    expect(sweepStaleRecords(root, WALL_START_MS, (pid) => pid !== dead)).toEqual(['claude-crashed']);
    expect(readdirSync(sessions).sort()).toEqual(['claude-live.json', 'grok-g.json']);
  });
});

describe('the shared heartbeat', () => {
  it('is rewritten by one store only while another wrapper keeps it fresh', async () => {
    const first = open('claude-one');
    await first.publish(record());
    const heartbeat = join(root, 'providers', 'agentwrap.json');
    const written = statSync(heartbeat).mtimeMs;
    const second = openSessionStore({ root, key: 'claude-two', clock, onWarning: (m) => warnings.push(m), autoRefresh: false, writerPid: process.pid + 1 });
    stores.push(second);
    await second.publish(record({ sessionId: 'two' }));
    // Fresh (written just now by the first): the second leaves it alone.
    expect(statSync(heartbeat).mtimeMs).toBe(written);
    expect(readJson(heartbeat)['pid']).toBe(process.pid);
    // Once it is older than the refresh interval, whoever refreshes next takes it over.
    clock.advanceBy(refreshIntervalMs(TTL_MS) + 10);
    const old = (Date.now() - refreshIntervalMs(TTL_MS) - 1_000) / 1000;
    utimesSync(heartbeat, old, old);
    await second.refreshIfDue();
    expect(readJson(heartbeat)['pid']).toBe(process.pid + 1);
  });
});

describe('resolveSession', () => {
  async function twoSessions(): Promise<ReturnType<typeof readSessionsReport>['sessions']> {
    await open(recordKey('claude', 'abc')).publish(record());
    await open(recordKey('claude', 'abd')).publish(record({ sessionId: 'abd', pid: 77, wrapperPid: process.pid }));
    return readSessionsReport(root, clock.wallMs(), alive).sessions;
  }

  it.each([
    ['an exact key', 'claude-abc', 'claude-abc'],
    ['a unique prefix', 'claude-abd', 'claude-abd'],
    ['the agent pid', '77', 'claude-abd'],
    ['a session id', 'abd', 'claude-abd'],
  ])('finds a session by %s', async (_name, query, key) => {
    const match = resolveSession(await twoSessions(), query);

    expect(match.ok && match.session.key).toBe(key);
  });

  it('says when a prefix is ambiguous and when nothing matches', async () => {
    const sessions = await twoSessions();

    expect(resolveSession(sessions, 'claude-ab')).toEqual({ ok: false, reason: 'ambiguous', candidates: ['claude-abc', 'claude-abd'] });
    expect(resolveSession(sessions, 'codex')).toMatchObject({ ok: false, reason: 'none' });
  });
});

describe('sweepStaleRecords', () => {
  it('removes only agentwrap records that are expired with a dead wrapper, and their stale socket', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999_999;
    const sessions = join(root, 'sessions');
    const sockets = join(root, 'sockets');
    await open('claude-live').publish(record());
    mkdirSync(sockets, { mode: 0o700 });
    const staleSocket = join(sockets, 'claude-crashed.sock');
    const listener = createServer();
    await new Promise<void>((r) => listener.listen(staleSocket, r));
    // The listener only makes a real socket file at the control path; sweep judges by the record.
    const expired = WALL_START_MS - 2 * TTL_MS;
    const crashed = { ...record({ wrapperPid: dead, updatedAtMs: expired }), control: staleSocket };
    writeFileSync(join(sessions, 'claude-crashed.json'), JSON.stringify(crashed));
    writeFileSync(join(sessions, 'claude-fresh-dead.json'), JSON.stringify(record({ wrapperPid: dead })));
    writeFileSync(join(sessions, 'claude-expired-alive.json'), JSON.stringify(record({ updatedAtMs: expired })));
    const oracle = { schema: 1, source_cli: 'grok', session_id: 'g', model: 'm', written_by: 'token-oracle', pid: dead, updated_at: expired, ttl_ms: 1_000 };
    writeFileSync(join(sessions, 'grok-g.json'), JSON.stringify(oracle));

    const removed = sweepStaleRecords(root, WALL_START_MS, (pid) => pid !== dead);
    listener.close();

    expect(removed).toEqual(['claude-crashed']);
    expect(readdirSync(sessions).sort()).toEqual(['claude-expired-alive.json', 'claude-fresh-dead.json', 'claude-live.json', 'grok-g.json']);
    expect(existsSync(staleSocket)).toBe(false);
  });
});
