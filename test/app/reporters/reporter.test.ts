import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { METADATA_DEFAULT_TTL_MS, METADATA_MAX_KEYS, Reporter } from '../../../src/app/reporters/reporter.js';
import { DetectorSession } from '../../../src/app/session.js';
import { REPORT_MAX_DELIVERY_MS } from '../../../src/core/policy.js';
import { createSessionRecord, parseRecord } from '../../../src/core/records/session-record.js';
import type { Screen } from '../../../src/adapters/screen/index.js';

const WALL_START = 1_790_000_000_000;

function setup(agent = 'claude', hasPack = true) {
  const clock = manualClock(0, WALL_START);
  const reporter = new Reporter({ clock, sessionAgent: agent, hasPack: () => hasPack });
  return { clock, reporter };
}

describe('Reporter: events through gating', () => {
  it('a Claude PermissionRequest becomes a blocked claim in the evidence, at the session clock', () => {
    const { clock, reporter } = setup();
    clock.advanceTo(1200);

    const reply = reporter.handle({ event: 'PermissionRequest', agent: 'claude', source: 'claude-hooks', seq: 1, payload: { session_id: 's-1' } });

    expect(reply).toMatchObject({ accepted: true, effect: 'asserted' });
    expect(reporter.evidence(1200)).toEqual([
      expect.objectContaining({ source: 'claude-hooks', lastEvent: 'PermissionRequest', lastAtMs: 1200, assertion: expect.objectContaining({ state: 'blocked', grade: 'blocker' }) }),
    ]);
    expect(reporter.lastReportAtMs).toBe(1200);
  });

  it('takes identity (agent session id, model) from accepted reports; latest wins', () => {
    const { reporter } = setup();

    reporter.handle({ event: 'SessionStart', source: 'claude-hooks', payload: { session_id: 'abc-1', model: 'claude-opus-5-5', prompt: 'never kept' } });
    reporter.handle({ event: 'SessionStart', source: 'claude-hooks', payload: { session_id: 'abc-2' } });

    expect(reporter.identity()).toEqual({ agentSessionId: 'abc-2', model: 'claude-opus-5-5' });
  });

  it('takes no identity from a dropped report', () => {
    const { reporter } = setup();

    reporter.handle({ event: 'Stop', source: 'claude-hooks', seq: 10, payload: { session_id: 'kept' } });
    reporter.handle({ event: 'SessionStart', source: 'claude-hooks', seq: 5, payload: { session_id: 'late' } });

    expect(reporter.identity()).toEqual({ agentSessionId: 'kept' });
  });

  it('measures delivery time against its wall clock and drops a stale report', () => {
    const { clock, reporter } = setup();
    clock.advanceTo(10_000);

    const reply = reporter.handle({ event: 'PermissionRequest', source: 'claude-hooks', sentAtMs: WALL_START + 10_000 - REPORT_MAX_DELIVERY_MS - 1 });

    expect(reply).toMatchObject({ accepted: false, effect: 'dropped-stale' });
  });

  it('answers a malformed request without throwing', () => {
    const { reporter } = setup();

    expect(reporter.handle({})).toMatchObject({ accepted: false, effect: 'rejected' });
    expect(reporter.handle({ event: 'has spaces' })).toMatchObject({ accepted: false });
    expect(reporter.evidence()).toEqual([]);
  });

  it('defaults the agent to the session agent and the source to <agent>-reporter', () => {
    const { reporter } = setup('my-agent', false);

    reporter.handle({ event: 'working' });

    expect(reporter.evidence()).toEqual([expect.objectContaining({ source: 'my-agent-reporter', agent: 'my-agent', assertion: expect.objectContaining({ grade: 'authoritative' }) })]);
  });
});

describe('Reporter: display metadata', () => {
  it('keeps metadata until its TTL, then drops it', () => {
    const { clock, reporter } = setup();

    reporter.handle({ event: 'metadata', metadata: { model: 'opus', summary: 'reviewing auth' }, ttlMs: 1000 });
    clock.advanceTo(999);
    const before = reporter.metadata(clock.nowMs());
    clock.advanceTo(1000);
    const after = reporter.metadata(clock.nowMs());

    expect(before).toEqual({ model: 'opus', summary: 'reviewing auth' });
    expect(after).toEqual({});
  });

  it('uses the default TTL when none is given, and an empty value removes a key', () => {
    const { clock, reporter } = setup();

    reporter.handle({ event: 'metadata', metadata: { tokens: 1234, summary: 'x' } });
    reporter.handle({ event: 'metadata', metadata: { summary: '' } });
    clock.advanceTo(METADATA_DEFAULT_TTL_MS - 1);

    expect(reporter.metadata(clock.nowMs())).toEqual({ tokens: '1234' });
    expect(reporter.nextMetadataExpiryMs()).toBe(METADATA_DEFAULT_TTL_MS);
  });

  it('sanitizes values, refuses bad keys and caps the number of keys', () => {
    const { reporter } = setup();
    const many = Object.fromEntries(Array.from({ length: METADATA_MAX_KEYS + 3 }, (_, i) => [`k${i}`, 'v']));

    const reply = reporter.handle({ event: 'metadata', metadata: { ...many, 'bad key': 'v', title: '\x1b]0;evil\x07ok\x1b[31m' } });

    const metadata = reporter.metadata(0);
    expect(Object.keys(metadata)).toHaveLength(METADATA_MAX_KEYS);
    expect(reply.reason).toContain('bad key');
    expect(reporter.handle({ event: 'metadata', metadata: { title: 'x' } }).accepted).toBe(false);
    const fresh = setup().reporter;
    expect(fresh.handle({ event: 'metadata', metadata: { title: '\x1b]0;evil\x07ok\x1b[31m' } }).accepted).toBe(true);
    expect(fresh.metadata(0)['title']).toBe('ok');
  });

  it('never changes state: metadata does not appear in the evidence', () => {
    const { reporter } = setup();

    reporter.handle({ event: 'metadata', metadata: { state: 'blocked' } });

    expect(reporter.evidence()).toEqual([]);
  });

  it('round-trips through a session record as `metadata` and `agent_session_id`', () => {
    const { reporter } = setup();
    reporter.handle({ event: 'metadata', metadata: { model: 'opus' } });
    reporter.handle({ event: 'SessionStart', payload: { session_id: 'abc-1', model: 'claude-opus-5-5' } });

    const record = createSessionRecord({
      sourceCli: 'claude',
      sessionId: 'aw1-x',
      pid: 10,
      wrapperPid: 11,
      cwd: '/',
      model: reporter.identity().model ?? '',
      modelSource: 'report',
      startedAtMs: WALL_START,
      updatedAtMs: WALL_START,
      state: 'idle',
      stateSinceMs: WALL_START,
      seen: true,
      stuck: false,
      winner: null,
      ruleId: null,
      agentSessionId: reporter.identity().agentSessionId ?? '',
      metadata: reporter.metadata(0),
      control: '/tmp/x.sock',
    });
    const parsed = parseRecord(JSON.parse(JSON.stringify(record)));

    expect(parsed).toMatchObject({ model: 'claude-opus-5-5', model_source: 'report', agent_session_id: 'abc-1', metadata: { model: 'opus' } });
  });
});

describe('DetectorSession with a reports source', () => {
  it('puts the reporter evidence into the snapshot and is due at once after a report', () => {
    const { clock, reporter } = setup();
    const screen = {
      view: () => ({ rows: [], cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1 }),
      evidence: () => ({ title: undefined, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined }),
    } as unknown as Screen;
    const session = new DetectorSession({
      clock,
      screen,
      packs: () => undefined,
      processes: () => ({ sampled: false, reason: 'test' }),
      reports: (nowMs) => reporter.evidence(nowMs),
    });
    session.evaluate();
    clock.advanceTo(400);

    reporter.handle({ event: 'PermissionRequest', source: 'claude-hooks' });
    session.noteReport();

    expect(session.nextDueMs()).toBe(400);
    const { entry } = session.evaluate();
    expect(entry?.decision).toMatchObject({ raw: 'blocked', step: 'reported-blocked', reportSource: 'claude-hooks' });
    expect(entry?.digest.reports).toEqual([expect.objectContaining({ source: 'claude-hooks', lastEvent: 'PermissionRequest', counted: true })]);
    expect(session.state.session.state).toBe('blocked');
  });
});
