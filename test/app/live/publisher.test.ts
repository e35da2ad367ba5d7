import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { Publisher, TITLE_REPUBLISH_MIN_MS } from '../../../src/app/live/publisher.js';
import type { SessionStore } from '../../../src/app/sessions/store.js';
import type { StateChangeEvent } from '../../../src/app/control/socket.js';
import type { SessionRecord } from '../../../src/core/records/session-record.js';
import { initialDetectorState, type DetectorState } from '../../../src/core/detector/tick.js';
import type { TickLogEntry } from '../../../src/core/detector/tick-log.js';
import type { AgentState } from '../../../src/core/types.js';
import { dialogDigest, type LiveDialog } from '../../../src/core/dialog/digest.js';

function liveDialog(question: string): LiveDialog {
  const options = ['Yes', 'No'];
  return { id: 'd', question, options, keys: ['1', '2'], digest: dialogDigest(question, options) };
}

const ENTRY = { decision: { ruleId: 'r' } } as unknown as TickLogEntry;

function stateOf(state: AgentState, sinceMs = 0): DetectorState {
  const initial = initialDetectorState(0);
  return { ...initial, session: { ...initial.session, state, raw: state === 'done' ? 'idle' : state, stateSinceMs: sinceMs, winner: 'screen-rule', ruleId: 'r' } };
}

function publisher(title: () => string | undefined = () => undefined, rows: () => string[] = () => [], dialog: () => LiveDialog | undefined = () => undefined) {
  const clock = manualClock(1_000, 1_700_000_000_000);
  const events: StateChangeEvent[] = [];
  const notified: AgentState[] = [];
  const written: SessionRecord[] = [];
  const store = { publish: async (r: SessionRecord) => (written.push(r), true), refreshIfDue: async () => undefined } as unknown as SessionStore;
  const p = new Publisher({
    identity: { key: 'claude-1', sourceCli: 'claude', sessionId: '1', cwd: '/w', startedWallMs: 1_700_000_000_880, detectorStartMs: 1_000, detectorStartWallMs: 1_700_000_001_000, agentVersion: '2.1.0' },
    clock,
    screen: {
      view: () => ({ rows: rows(), cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 0 }),
      evidence: () => ({ title: title() === undefined ? undefined : { text: title() ?? '', changedAtMs: 0, recentChangesMs: [] }, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined }),
    },
    reporter: { identity: () => ({ agentVersion: undefined, model: undefined, agentSessionId: undefined }), metadata: () => ({}) } as never,
    pid: () => 42,
    onStateChange: (event) => events.push(event),
    notify: (state) => notified.push(state),
    dialog,
  });
  return { p, clock, events, notified, written, store };
}

describe('Publisher', () => {
  it('announces each change of the published state once, and notifies on blocked and done', () => {
    const { p, events, notified } = publisher();

    p.onChange(stateOf('working'), ENTRY);
    p.onChange(stateOf('working'), ENTRY);
    p.onChange(stateOf('blocked'), ENTRY);
    p.onChange(stateOf('done'), ENTRY);

    expect(events.map((e) => [e.from, e.to])).toEqual([
      [null, 'working'],
      ['working', 'blocked'],
      ['blocked', 'done'],
    ]);
    expect(notified).toEqual(['blocked', 'done']);
  });

  it("gives the change's reason with the event, and none when the state has none", () => {
    const { p, events } = publisher();
    const blocked = stateOf('blocked');

    p.onChange({ ...blocked, session: { ...blocked.session, reason: 'permission' } }, ENTRY);
    p.onChange(stateOf('working'), ENTRY);

    expect(events.map((e) => e.reason)).toEqual(['permission', null]);
  });

  it('announces a change of cause alone (same state, new reason) to subscribers and the webhook, not as a state change', () => {
    const { p, events, notified } = publisher();
    const heard: StateChangeEvent[] = [];
    p.subscribe((event) => heard.push(event));
    const withReason = (state: AgentState, reason?: string): DetectorState => {
      const s = stateOf(state);
      return { ...s, session: { ...s.session, ...(reason === undefined ? {} : { reason }) } };
    };

    p.onChange(withReason('working'), ENTRY);
    p.onChange(withReason('working', 'rate-limited'), ENTRY);
    p.onChange(withReason('working', 'rate-limited'), ENTRY);
    p.onChange(withReason('working'), ENTRY);
    p.onChange(withReason('done', 'usage-limit'), ENTRY);

    expect(heard.map((e) => [e.from, e.to, e.reason])).toEqual([
      [null, 'working', null],
      ['working', 'working', 'rate-limited'],
      ['working', 'working', null],
      ['working', 'done', 'usage-limit'],
    ]);
    expect(events.map((e) => e.to)).toEqual(['working', 'done']);
    expect(notified).toEqual(['done']);
    expect(p.historySnapshot().transitions.map((t) => t.to)).toEqual(['working', 'done']);
  });

  it('reads when a limit lifts from the screen while the cause is a limit, and only then', () => {
    let rows = ['● API Error: 429 · usage limit reached · try again in 2h 17m'];
    const { p } = publisher(undefined, () => rows);
    const withReason = (reason: string): DetectorState => ({ ...stateOf('done'), session: { ...stateOf('done').session, reason } });

    expect(p.record(withReason('usage-limit')).until).toBe(1_700_000_001_000 + (2 * 60 + 17) * 60_000);
    expect(p.record(withReason('api-error')).until).toBeUndefined();
    rows = ['● API Error: Request rejected (429) · Please try again later.'];
    expect(p.record(withReason('usage-limit')).until).toBeUndefined();
  });

  it('writes nothing before the store is open, then a record with wall-clock times and the control path', () => {
    const { p, written, store } = publisher();

    p.onChange(stateOf('working', 1_500), ENTRY);
    p.store = store;
    p.controlPath = '/run/aw/claude-1.sock';
    p.onChange(stateOf('idle', 3_000), ENTRY);

    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ state: 'idle', pid: 42, control: '/run/aw/claude-1.sock', agent_version: '2.1.0' });
    expect(written[0]?.state_since).toBe(1_700_000_001_000 + 2_000);
  });

  it('maps state_since from the wall clock read with the session clock, not from the earlier start (packs load between them)', () => {
    const { p, clock, written, store, events } = publisher();
    p.store = store;
    clock.advanceTo(2_000);
    p.onChange(stateOf('working', 2_000), ENTRY);

    expect(written[0]?.started_at).toBe(1_700_000_000_880);
    // The change and its announcement are the same instant.
    expect(written[0]?.state_since).toBe(events[0]?.t);
  });

  it('republishes a changed title alone at most every TITLE_REPUBLISH_MIN_MS', () => {
    let title = 'one';
    const { p, written, store } = publisher(() => title);
    p.store = store;
    p.publish(stateOf('working'));

    title = 'two';
    p.afterTick(false, stateOf('working'), 5_000);
    title = 'three';
    p.afterTick(false, stateOf('working'), 5_000 + TITLE_REPUBLISH_MIN_MS - 1);
    p.afterTick(false, stateOf('working'), 5_000 + TITLE_REPUBLISH_MIN_MS);

    expect(written.map((r) => r.title)).toEqual(['one', 'two', 'three']);
  });

  it('publishes a blocked state with its dialog, and a new dialog under the same blocked state at the next tick', () => {
    let shown = liveDialog('Do you want to run ls -la?');
    const { p, written, store, events } = publisher(undefined, undefined, () => shown);
    p.store = store;

    p.onChange(stateOf('blocked'), ENTRY);
    p.afterTick(false, stateOf('blocked'), 2_000);
    shown = liveDialog('Do you want to run rm -rf build/?');
    p.afterTick(false, stateOf('blocked'), 2_100);

    expect(events.map((e) => e.dialog?.question)).toEqual(['Do you want to run ls -la?']);
    expect(written.map((r) => r.dialog?.question)).toEqual(['Do you want to run ls -la?', 'Do you want to run rm -rf build/?']);
    expect(written[1]?.dialog?.digest).toBe(shown.digest);
  });

  it('publishes no dialog for a state that is not blocked, and survives a dialog reader that throws', () => {
    const { p, written, store } = publisher(undefined, undefined, () => {
      throw new Error('a broken table');
    });
    p.store = store;

    p.onChange(stateOf('blocked'), ENTRY);
    p.onChange(stateOf('working'), ENTRY);

    expect(written.map((r) => [r.state, r.dialog])).toEqual([
      ['blocked', undefined],
      ['working', undefined],
    ]);
  });
});
