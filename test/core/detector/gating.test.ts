import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyEvent,
  gateReport,
  identityFromPayload,
  INITIAL_GATING,
  slimPayload,
  trustProfile,
  viewClaim,
  type GateContext,
  type GatingState,
  type IncomingReport,
} from '../../../src/core/detector/gating.js';
import { REPORT_CLAIM_TTL_MS, REPORT_MAX_DELIVERY_MS } from '../../../src/core/policy.js';
import { initialDetectorState, tick, type DetectorState } from '../../../src/core/detector/tick.js';
import type { AgentState, PackVerdict, ReportEvidence } from '../../../src/core/types.js';
import { snapshot, strongBlocked, strongIdle, strongWorking, title, verdict } from '../../helpers/detector-builders.js';

const CLAUDE: GateContext = { sessionAgent: 'claude', hasPack: true };
const CODEX: GateContext = { sessionAgent: 'codex', hasPack: true };
const OPENCODE: GateContext = { sessionAgent: 'opencode', hasPack: true };
const CUSTOM: GateContext = { sessionAgent: 'my-agent', hasPack: false };
const GEMINI: GateContext = { sessionAgent: 'gemini', hasPack: true };
const QWEN: GateContext = { sessionAgent: 'qwen', hasPack: true };

function report(event: string, overrides: Partial<IncomingReport> & { readonly atMs?: number } = {}): IncomingReport & { readonly atMs?: number } {
  return { event, source: 'hooks', agent: 'claude', seq: undefined, payload: undefined, deliveryMs: undefined, ...overrides };
}

/** Feeds reports in order; returns the final state and the source's evidence. */
function feed(context: GateContext, reports: readonly (IncomingReport & { readonly atMs?: number })[]): { state: GatingState; evidence: ReportEvidence } {
  let state = INITIAL_GATING;
  let atMs = 1000;
  for (const r of reports) {
    atMs = r.atMs ?? atMs + 100;
    state = gateReport(state, r, context, atMs).state;
  }
  const evidence = state.sources['hooks'];
  if (evidence === undefined) throw new Error('no evidence for source "hooks"');
  return { state, evidence };
}

describe('the gating table', () => {
  it.each([
    ['a Claude PermissionRequest asserts blocked, blocker grade', CLAUDE, report('PermissionRequest'), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['a Claude permission_prompt Notification asserts blocked', CLAUDE, report('Notification', { payload: { notification_type: 'permission_prompt' } }), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['a Claude idle_prompt Notification is identity only', CLAUDE, report('Notification', { payload: { notification_type: 'idle_prompt' } }), 'identity', undefined],
    ['a Claude Stop authors no state', CLAUDE, report('Stop'), 'released', undefined],
    ['a Claude SessionStart is identity only', CLAUDE, report('SessionStart'), 'identity', undefined],
    ['a Codex agent-turn-complete notify authors no state', CODEX, report('notify', { payload: { type: 'agent-turn-complete' } }), 'released', undefined],
    ['an OpenCode busy status asserts working, authoritative', OPENCODE, report('session.status', { payload: { properties: { status: { type: 'busy' } } } }), 'asserted', { state: 'working', grade: 'authoritative' }],
    ['an OpenCode session.idle asserts idle, authoritative', OPENCODE, report('session.idle'), 'asserted', { state: 'idle', grade: 'authoritative' }],
    ['an OpenCode permission.asked asserts blocked, authoritative', OPENCODE, report('permission.asked'), 'asserted', { state: 'blocked', grade: 'authoritative' }],
    ['a custom agent without a pack may report idle authoritatively', CUSTOM, report('idle'), 'asserted', { state: 'idle', grade: 'authoritative' }],
    ['a generic idle in a session a pack watches authors no state', GEMINI, report('idle'), 'released', undefined],
    ['a generic blocked in a session a pack watches asserts blocked, blocker grade', CLAUDE, report('blocked'), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['an event the table does not know only refreshes freshness', CLAUDE, report('SomethingNew'), 'dropped-unknown-event', undefined],
    ['a Codex PermissionRequest hook asserts blocked, blocker grade', CODEX, report('PermissionRequest'), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['a Codex Stop hook authors no state', CODEX, report('Stop'), 'released', undefined],
    ['a Gemini ToolPermission Notification asserts blocked, authoritative (sent before the dialog is drawn)', GEMINI, report('Notification', { payload: { notification_type: 'ToolPermission' } }), 'asserted', { state: 'blocked', grade: 'authoritative' }],
    ['a Gemini Notification of another type is identity only', GEMINI, report('Notification', { payload: { notification_type: 'Other' } }), 'identity', undefined],
    ['a Gemini BeforeAgent (turn start) ends the claim and authors no state', GEMINI, report('BeforeAgent'), 'released', undefined],
    ['a Gemini AfterAgent (turn end) authors no state', GEMINI, report('AfterAgent'), 'released', undefined],
    ['a Gemini SessionStart is identity only', GEMINI, report('SessionStart'), 'identity', undefined],
    ['a Qwen Code PermissionRequest hook asserts blocked, blocker grade', QWEN, report('PermissionRequest'), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['a Qwen Code permission_prompt Notification asserts blocked', QWEN, report('Notification', { payload: { notification_type: 'permission_prompt' } }), 'asserted', { state: 'blocked', grade: 'blocker' }],
    ['a Qwen Code Stop authors no state', QWEN, report('Stop'), 'released', undefined],
  ] as const)('%s', (_sentence, context, incoming, effect, assertion) => {
    const result = gateReport(INITIAL_GATING, incoming, context, 5000);

    expect(result.effect).toBe(effect);
    const claim = result.state.sources['hooks']?.assertion;
    if (assertion === undefined) expect(claim).toBeUndefined();
    else expect(claim).toMatchObject({ ...assertion, event: incoming.event, atMs: 5000 });
  });

  it('trust follows the session agent, not the agent a report claims to be', () => {
    const result = gateReport(INITIAL_GATING, report('session.idle', { agent: 'opencode' }), CLAUDE, 5000);

    expect(result.state.sources['hooks']?.assertion).toBeUndefined();
    expect(trustProfile('claude', true)).toBe('screen-owned');
    expect(trustProfile('opencode', true)).toBe('full-lifecycle');
  });

  it('a Claude SubagentStop keeps the blocked claim of its source (a subagent ending answers no dialog)', () => {
    const { evidence } = feed(CLAUDE, [report('PermissionRequest'), report('SubagentStop')]);

    expect(evidence.assertion?.state).toBe('blocked');
    expect(evidence.lastEffect).toBe('identity');
  });

  it('Claude progress after a permission request (the tool ran) ends the claim', () => {
    const { evidence } = feed(CLAUDE, [report('PermissionRequest'), report('PostToolUse')]);

    expect(evidence.assertion).toBeUndefined();
    expect(evidence.lastEffect).toBe('released');
  });

  it('Gemini progress after a ToolPermission notification (the tool ran) ends the claim; a subagent-free AfterModel too', () => {
    const permission = report('Notification', { payload: { notification_type: 'ToolPermission' } });

    expect(feed(GEMINI, [permission, report('AfterTool')]).evidence.assertion).toBeUndefined();
    expect(feed(GEMINI, [permission]).evidence.assertion?.state).toBe('blocked');
    expect(classifyEvent('gemini', 'AfterModel', undefined)).toBe('progress');
    expect(classifyEvent('gemini', 'PermissionRequest', undefined)).toBeUndefined();
  });

  it('classifies OpenCode retry as working and an unknown status as identity', () => {
    expect(classifyEvent('opencode', 'session.status', { properties: { status: { type: 'retry' } } })).toBe('working');
    expect(classifyEvent('opencode', 'session.status', { properties: { status: { type: 'compacting' } } })).toBe('identity');
  });
});

describe('sequence numbers, staleness, release', () => {
  it('drops a report whose sequence number is lower than the last accepted one', () => {
    const { evidence } = feed(OPENCODE, [
      report('session.status', { seq: 5, payload: { properties: { status: { type: 'busy' } } } }),
      report('session.idle', { seq: 7 }),
      report('session.status', { seq: 6, payload: { properties: { status: { type: 'busy' } } } }),
    ]);

    expect(evidence.assertion).toMatchObject({ state: 'idle', event: 'session.idle' });
    expect(evidence).toMatchObject({ lastEffect: 'dropped-out-of-order', lastSeq: 7, accepted: 2, dropped: 1 });
  });

  it('accepts an equal sequence number (two hooks started in the same millisecond)', () => {
    const { evidence } = feed(CLAUDE, [report('Stop', { seq: 10 }), report('PermissionRequest', { seq: 10 })]);

    expect(evidence.assertion?.state).toBe('blocked');
  });

  it('drops a report that took longer than REPORT_MAX_DELIVERY_MS to arrive', () => {
    const result = gateReport(INITIAL_GATING, report('PermissionRequest', { deliveryMs: REPORT_MAX_DELIVERY_MS + 1 }), CLAUDE, 5000);

    expect(result).toMatchObject({ effect: 'dropped-stale', accepted: false });
    expect(result.state.sources['hooks']?.assertion).toBeUndefined();
  });

  it('an explicit release ends an authoritative claim', () => {
    const { evidence } = feed(OPENCODE, [report('permission.asked'), report('release')]);

    expect(evidence.assertion).toBeUndefined();
    expect(evidence.lastEffect).toBe('released');
  });

  it('a claim is live until REPORT_CLAIM_TTL_MS, then expired', () => {
    const { evidence } = feed(CLAUDE, [report('PermissionRequest', { atMs: 1000 })]);

    expect(viewClaim(evidence, 1000 + REPORT_CLAIM_TTL_MS - 1, undefined)?.status).toBe('live');
    expect(viewClaim(evidence, 1000 + REPORT_CLAIM_TTL_MS, undefined)?.status).toBe('expired');
  });

  it('a keystroke after a blocked claim answers it; one before does not', () => {
    const { evidence } = feed(CLAUDE, [report('PermissionRequest', { atMs: 1000 })]);

    expect(viewClaim(evidence, 2000, 900)?.status).toBe('live');
    expect(viewClaim(evidence, 2000, 1500)?.status).toBe('answered');
  });
});

describe('identity and payloads', () => {
  it('takes the session id and model from a Claude SessionStart payload', () => {
    expect(identityFromPayload({ session_id: 'bc688810-f84f-4207-bda0-69fbc6916957', model: 'claude-opus-5-5', source: 'startup' })).toEqual({
      agentSessionId: 'bc688810-f84f-4207-bda0-69fbc6916957',
      model: 'claude-opus-5-5',
    });
  });

  it('takes Codex thread-id and OpenCode sessionID, and a model object id', () => {
    expect(identityFromPayload({ 'thread-id': 'th_1' })).toEqual({ agentSessionId: 'th_1' });
    expect(identityFromPayload({ properties: { sessionID: 'ses_9' } })).toEqual({ agentSessionId: 'ses_9' });
    expect(identityFromPayload({ model: { id: 'opus', display_name: 'Opus' } })).toEqual({ model: 'opus' });
  });

  it('refuses identity values that are not short tokens', () => {
    expect(identityFromPayload({ session_id: 'has spaces in it', model: 'x'.repeat(200) })).toEqual({});
  });

  it('keeps only the fields gating and identity read: no prompt, tool input or transcript', () => {
    const slim = slimPayload({
      session_id: 's1',
      hook_event_name: 'Stop',
      prompt: 'secret prompt',
      tool_input: { command: 'rm -rf /' },
      transcript_path: '/home/u/.claude/x.jsonl',
      last_assistant_message: 'text',
      notification_type: 'permission_prompt',
    });

    expect(slim).toEqual({ session_id: 's1', hook_event_name: 'Stop', notification_type: 'permission_prompt' });
  });
});

// ── replay: a real Claude Code turn's hook events through gating + arbitrate + debounce ────

interface FixtureLine {
  readonly t: number;
  readonly kind: 'hook' | 'key' | 'mock';
  readonly event: string;
  readonly seq?: number;
  readonly payload?: Readonly<Record<string, unknown>>;
}

function loadFixture(name: string): FixtureLine[] {
  const text = readFileSync(new URL(`../../../fixtures/reporter/${name}`, import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .map((line) => JSON.parse(line) as FixtureLine);
}

/** A minimal session driver: reports, keystrokes and screen verdicts on a shared timeline. */
class Replay {
  gating: GatingState = INITIAL_GATING;
  detector: DetectorState = initialDetectorState(0);
  lastInputAtMs: number | undefined;
  readonly published: { readonly t: number; readonly state: AgentState }[] = [];

  report(t: number, event: string, seq: number, payload?: Readonly<Record<string, unknown>>, context: GateContext = CLAUDE): void {
    this.gating = gateReport(this.gating, { event, source: 'hooks', agent: context.sessionAgent, seq, payload, deliveryMs: undefined }, context, t).state;
  }

  key(t: number): void {
    this.lastInputAtMs = t;
  }

  tick(t: number, screen: PackVerdict | undefined, titleText = '✳ Claude Code'): AgentState {
    const snap = snapshot({
      nowMs: t,
      screen: { rows: [], cols: 120, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: t },
      title: title(titleText, 0),
      lastInputAtMs: this.lastInputAtMs,
      reports: Object.values(this.gating.sources),
    });
    const result = tick(this.detector, snap, screen, t);
    this.detector = result.state;
    const state = result.state.session.state;
    if (this.published.at(-1)?.state !== state) this.published.push({ t, state });
    return state;
  }
}

/** Nothing on screen the pack recognizes (the case a reporter is for: a dialog the pack misses). */
const NO_MATCH: PackVerdict = verdict();

describe('a late completion event never revives a finished turn', () => {
  it('replays a captured Claude Code 2.1.332 approve turn with the pack blind to the dialog, then late and out-of-order events', () => {
    const lines = loadFixture('claude-2.1.332-approve.jsonl');
    const r = new Replay();
    const at = (kind: FixtureLine['kind'], event: string, which: 'first' | 'last' = 'first'): number => {
      const all = lines.filter((line) => line.kind === kind && line.event === event);
      const found = which === 'first' ? all[0] : all.at(-1);
      if (found === undefined) throw new Error(`fixture has no ${kind} ${event}`);
      return found.t;
    };
    // Arrange the screen as it was: idle prompt, working after submit, the dialog (missed by the
    // pack), working after approval, idle prompt after the final stream.
    const submitAt = at('key', 'submit');
    const toolCallAt = at('mock', 'tool_call_sent');
    const approveAt = at('key', 'approve');
    const streamEndAt = at('mock', 'stream_end', 'last');
    const screenAt = (t: number): PackVerdict => {
      if (t < submitAt) return verdict(strongIdle());
      if (t < toolCallAt + 150) return verdict(strongWorking());
      if (t < approveAt + 100) return NO_MATCH;
      if (t < streamEndAt + 150) return verdict(strongWorking());
      return verdict(strongIdle());
    };
    const hooks = lines.filter((line) => line.kind === 'hook');
    const events = [...hooks.map((h) => ({ t: h.t, run: () => r.report(h.t, h.event, h.t, h.payload) })), ...lines
      .filter((line) => line.kind === 'key')
      .map((k) => ({ t: k.t, run: () => r.key(k.t) }))].sort((a, b) => a.t - b.t);
    const endAt = Math.max(...lines.map((line) => line.t));

    // Act: tick every 50 ms, delivering events as their time comes.
    let next = 0;
    for (let t = 0; t <= endAt + 3000; t += 50) {
      while (next < events.length && (events[next]?.t ?? Infinity) <= t) events[next++]?.run();
      r.tick(t, screenAt(t));
    }
    const doneAt = r.published.find((p) => p.state === 'done')?.t;
    // Late events after the turn ended: a SubagentStop (identity only) and a replayed
    // PermissionRequest whose hook started before Stop (lower sequence number: out of order).
    const stopAt = at('hook', 'Stop');
    const lateAt = endAt + 3100;
    r.report(lateAt, 'SubagentStop', lateAt);
    r.report(lateAt + 50, 'PermissionRequest', stopAt - 1);
    for (let t = lateAt; t <= lateAt + 5000; t += 50) r.tick(t, verdict(strongIdle()));

    // Assert: blocked was published from the report while the pack saw nothing, no later than
    // the hook arrived (+ one tick); the turn ended done and nothing revived it.
    const states = r.published.map((p) => p.state);
    const blockedAt = r.published.find((p) => p.state === 'blocked')?.t;
    expect(blockedAt).toBeDefined();
    expect(blockedAt ?? Infinity).toBeLessThanOrEqual(at('hook', 'PermissionRequest') + 50);
    expect(states).toEqual(['unknown', 'idle', 'working', 'blocked', 'working', 'done']);
    expect(doneAt).toBeDefined();
    expect(r.published.at(-1)).toMatchObject({ state: 'done' });
    expect(r.gating.sources['hooks']).toMatchObject({ lastEffect: 'dropped-out-of-order', dropped: 1 });
  });

  it('an out-of-order OpenCode busy after session.idle does not revive a done session', () => {
    const r = new Replay();
    r.key(50); // the prompt
    r.report(100, 'session.status', 1, { properties: { status: { type: 'busy' } } }, OPENCODE);
    for (let t = 100; t <= 1000; t += 50) r.tick(t, NO_MATCH, 'OC');
    r.report(1000, 'session.idle', 3, undefined, OPENCODE);
    for (let t = 1000; t <= 2000; t += 50) r.tick(t, NO_MATCH, 'OC');
    r.report(2000, 'session.status', 2, { properties: { status: { type: 'busy' } } }, OPENCODE);
    for (let t = 2000; t <= 4000; t += 50) r.tick(t, NO_MATCH, 'OC');

    expect(r.published.map((p) => p.state)).toEqual(['working', 'done']);
  });
});

describe('a denied permission (Claude Code sends no event after Esc)', () => {
  it('replays the captured deny turn: the keystroke answers the claim, so the screen decides again', () => {
    const lines = loadFixture('claude-2.1.332-deny.jsonl');
    const r = new Replay();
    const time = (kind: FixtureLine['kind'], event: string): number => lines.find((l) => l.kind === kind && l.event === event)?.t ?? NaN;
    const denyAt = time('key', 'deny');
    const permissionAt = time('hook', 'PermissionRequest');
    expect(lines.filter((l) => l.kind === 'hook' && l.t > denyAt)).toEqual([]);
    const events = [
      ...lines.filter((l) => l.kind === 'hook').map((h) => ({ t: h.t, run: () => r.report(h.t, h.event, h.t, h.payload) })),
      ...lines.filter((l) => l.kind === 'key').map((k) => ({ t: k.t, run: () => r.key(k.t) })),
    ].sort((a, b) => a.t - b.t);

    let next = 0;
    for (let t = 0; t <= denyAt + 3000; t += 50) {
      while (next < events.length && (events[next]?.t ?? Infinity) <= t) events[next++]?.run();
      // The pack misses the dialog; after the deny Claude draws its idle prompt again.
      r.tick(t, t < time('key', 'submit') ? verdict(strongIdle()) : t < permissionAt ? verdict(strongWorking()) : t < denyAt + 100 ? NO_MATCH : verdict(strongIdle()));
    }

    expect(r.published.map((p) => p.state)).toEqual(['unknown', 'idle', 'working', 'blocked', 'done']);
    expect(r.published.at(-1)?.t ?? Infinity).toBeLessThan(denyAt + 1000);
  });
});

describe('a Gemini permission report, sent before its dialog is drawn', () => {
  // The timeline of recordings/gemini/habitat-tmux-hooks/deny-80x24 (hooks on), in ms: the
  // `Notification` report 1.2 s before the dialog, Gemini's ✦ Working title (a strong working
  // rule) until the dialog is drawn.
  const run = (context: GateContext): { readonly t: number; readonly state: AgentState }[] => {
    const r = new Replay();
    const submitAt = 7650, reportAt = 9450, dialogAt = 10_650, denyAt = 11_150;
    for (let t = 0; t <= denyAt + 2000; t += 50) {
      if (t === submitAt) { r.key(t); r.report(t, 'BeforeAgent', t, undefined, context); }
      if (t === reportAt) r.report(t, 'Notification', t, { notification_type: 'ToolPermission' }, context);
      if (t === denyAt) r.key(t);
      r.tick(t, t < submitAt ? verdict(strongIdle()) : t < dialogAt ? verdict(strongWorking('title-working')) : t < denyAt + 100 ? verdict(strongBlocked('select-box')) : verdict(strongIdle()));
    }
    return r.published;
  };

  it('publishes blocked from the report, over the working title, and the deny hands back to the screen', () => {
    const published = run(GEMINI);

    expect(published.map((p) => p.state)).toEqual(['unknown', 'idle', 'working', 'blocked', 'done']);
    expect(published[3]?.t).toBe(9450);
  });

  it('a blocker-grade report (Claude\'s) does not outrank that title: blocked waits for the dialog', () => {
    const published = run(CLAUDE);

    expect(published.map((p) => p.state)).toEqual(['unknown', 'idle', 'working', 'blocked', 'done']);
    expect(published[3]?.t).toBe(10_650);
  });
});

describe('a captured OpenCode 1.18.33 turn (full-lifecycle plugin, authoritative)', () => {
  it('drives working → blocked → working → done with the pack blind, and racing reports cannot revive it', () => {
    const lines = loadFixture('opencode-1.18.33-approve.jsonl');
    const r = new Replay();
    const hooks = lines.filter((l) => l.kind === 'hook');
    // The plugin spawns one process per event, so arrival order is not send order: deliver the
    // last busy (seq 8) after the idle events it preceded by 6 ms.
    const lateBusy = hooks.find((h) => h.seq === 8);
    const delivered = hooks.map((h) => (h === lateBusy ? { ...h, t: h.t + 40 } : h));
    const events = [
      ...delivered.map((h) => ({ t: h.t, run: () => r.report(h.t, h.event, h.seq ?? NaN, h.payload, OPENCODE) })),
      ...lines.filter((l) => l.kind === 'key').map((k) => ({ t: k.t, run: () => r.key(k.t) })),
    ].sort((a, b) => a.t - b.t);
    const endAt = Math.max(...lines.map((l) => l.t)) + 3000;

    let next = 0;
    for (let t = 0; t <= endAt; t += 50) {
      while (next < events.length && (events[next]?.t ?? Infinity) <= t) events[next++]?.run();
      r.tick(t, NO_MATCH, 'OC | capture');
    }

    const asked = hooks.find((h) => h.event === 'permission.asked')?.t ?? NaN;
    expect(r.published.map((p) => p.state)).toEqual(['unknown', 'working', 'blocked', 'working', 'done']);
    expect(r.published.find((p) => p.state === 'blocked')?.t ?? Infinity).toBeLessThanOrEqual(asked + 50);
    expect(r.gating.sources['hooks']).toMatchObject({ dropped: 1, lastEffect: 'dropped-out-of-order' });
  });
});
