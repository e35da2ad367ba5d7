import { describe, expect, it } from 'vitest';
import {
  debounce,
  debounceDeadlinesMs,
  INITIAL_DEBOUNCE,
  INITIAL_WATCHDOG,
  watchdog,
  watchdogDeadlineMs,
  type DebounceState,
} from '../../../src/core/detector/debounce.js';
import {
  FLAP_ALERT_COUNT,
  FLAP_WINDOW_MS,
  IDLE_HOLD_CAP_MS,
  IDLE_HOLD_STRONG_MS,
  IDLE_HOLD_WEAK_MS,
  UNASKED_WORKING_CONFIRM_MS,
  STOPPED_STUCK_MS,
  UNKNOWN_HOLD_MS,
  WATCHDOG_QUIET_MS,
  WEAK_WORKING_CONFIRM_MS,
} from '../../../src/core/policy.js';
import type { RawState } from '../../../src/core/types.js';
import { child, decision, sampledProcess, screen, snapshot, unsampledProcess } from '../../helpers/detector-builders.js';

const T0 = 50_000;
const strongIdle = decision({ raw: 'idle', confidence: 'strong', winner: 'screen-rule', step: 'strong-idle', ruleId: 'prompt-box' });
const weakIdle = decision({ raw: 'idle', confidence: 'weak', winner: 'osc-progress', step: 'weak-idle', ruleId: undefined });
const strongWorking = decision();
const weakWorking = decision({ confidence: 'weak', winner: 'process', step: 'physics-working', ruleId: undefined, isCpuBusy: true });
const blocked = decision({ raw: 'blocked', step: 'strong-blocker', ruleId: 'dialog' });
const nothing = decision({ raw: 'unknown', confidence: 'none', winner: 'none', step: 'nothing', ruleId: undefined });

/** Feeds decisions at the given times from `published`, returning every result. */
function run(published: RawState, steps: readonly (readonly [number, typeof strongIdle])[], pending: DebounceState = INITIAL_DEBOUNCE) {
  const results = [];
  let current = published;
  let memory = pending;
  for (const [atMs, d] of steps) {
    const result = debounce(current, d, memory, atMs);
    results.push(result);
    current = result.published;
    memory = result.pending;
  }
  return results;
}

describe('debounce', () => {
  it('publishes blocked at once, even from idle', () => {
    const result = debounce('idle', blocked, INITIAL_DEBOUNCE, T0);

    expect(result).toMatchObject({ published: 'blocked', action: 'publish', reason: 'blocked-at-once' });
  });

  it('publishes strong working at once', () => {
    const result = debounce('idle', strongWorking, INITIAL_DEBOUNCE, T0);

    expect(result).toMatchObject({ published: 'working', action: 'publish', reason: 'working-at-once' });
  });

  it('holds working in the first answer to an interrupt key until it held UNASKED_WORKING_CONFIRM_MS', () => {
    const esc = { interruptAtMs: T0, lastOutputAtMs: T0 + 60, isOver: false };
    const held = debounce('blocked', strongWorking, INITIAL_DEBOUNCE, T0 + 65, { interrupt: esc });
    const stillHeld = debounce('blocked', strongWorking, held.pending, T0 + 65 + UNASKED_WORKING_CONFIRM_MS - 1, { interrupt: esc });
    const confirmed = debounce('blocked', strongWorking, held.pending, T0 + 65 + UNASKED_WORKING_CONFIRM_MS, { interrupt: esc });
    const gone = debounce('blocked', strongIdle, held.pending, T0 + 65 + UNASKED_WORKING_CONFIRM_MS, { interrupt: esc });

    expect(held).toMatchObject({ published: 'blocked', action: 'hold', reason: 'working-after-interrupt' });
    expect(debounceDeadlinesMs(held.pending, strongWorking)).toContain(T0 + 65 + UNASKED_WORKING_CONFIRM_MS);
    expect(stillHeld.published).toBe('blocked');
    expect(confirmed).toMatchObject({ published: 'working', action: 'publish', reason: 'working-at-once' });
    expect(gone.published).not.toBe('working');
  });

  it('holds working before any input (start-up) until it held UNASKED_WORKING_CONFIRM_MS; a spinner gone by then is never published', () => {
    const startUp = { isBeforeInput: true };
    const held = debounce('unknown', strongWorking, INITIAL_DEBOUNCE, T0, startUp);
    const gone = debounce('unknown', strongIdle, held.pending, T0 + 30, startUp);
    const confirmed = debounce('unknown', strongWorking, held.pending, T0 + UNASKED_WORKING_CONFIRM_MS, startUp);

    expect(held).toMatchObject({ published: 'unknown', action: 'hold', reason: 'working-before-input' });
    expect(debounceDeadlinesMs(held.pending, strongWorking)).toContain(T0 + UNASKED_WORKING_CONFIRM_MS);
    expect(gone.published).not.toBe('working');
    expect(gone.pending.unaskedWorkingSinceMs).toBeUndefined();
    expect(confirmed).toMatchObject({ published: 'working', action: 'publish', reason: 'working-at-once' });
  });

  it('leaves an answered dialog at once on weak working, an unanswered one only after WEAK_WORKING_CONFIRM_MS', () => {
    const answered = debounce('blocked', weakWorking, INITIAL_DEBOUNCE, T0, { isDialogUnanswered: false });
    const unanswered = debounce('blocked', weakWorking, INITIAL_DEBOUNCE, T0, { isDialogUnanswered: true });

    expect(answered).toMatchObject({ published: 'working', reason: 'working-at-once' });
    expect(unanswered).toMatchObject({ published: 'blocked', action: 'hold', reason: 'weak-working-confirming' });
    expect(debounce('blocked', strongWorking, INITIAL_DEBOUNCE, T0, { isDialogUnanswered: true }).published).toBe('working');
  });

  it('keeps a pending idle run through a held start-up flash: idle comes when it would have without the flash', () => {
    const startUp = { isBeforeInput: true };
    const idling = debounce('unknown', strongIdle, INITIAL_DEBOUNCE, T0, startUp);
    const flash = debounce('unknown', strongWorking, idling.pending, T0 + 200, startUp);
    const idleAgain = debounce('unknown', strongIdle, flash.pending, T0 + IDLE_HOLD_STRONG_MS, startUp);

    expect(flash).toMatchObject({ published: 'unknown', reason: 'working-before-input' });
    expect(idleAgain).toMatchObject({ published: 'idle', action: 'publish', reason: 'idle-hold-elapsed' });
  });

  it('does not hold working after an interrupt key before any answer, or once the answer went quiet', () => {
    const silent = { interruptAtMs: T0, lastOutputAtMs: undefined, isOver: false };
    const newDrawing = { interruptAtMs: T0, lastOutputAtMs: T0 + 40, isOver: true }; // Grok: a new request after the denial

    expect(debounce('blocked', strongWorking, INITIAL_DEBOUNCE, T0 + 50, { interrupt: silent }).reason).toBe('working-at-once');
    expect(debounce('idle', strongWorking, INITIAL_DEBOUNCE, T0 + 520, { interrupt: newDrawing }).reason).toBe('working-at-once');
  });

  it('publishes process exit at once, as final', () => {
    const exit = decision({ raw: 'idle', winner: 'process-exit', step: 'process-exit', isFinal: true });

    const result = debounce('working', exit, INITIAL_DEBOUNCE, T0);

    expect(result).toMatchObject({ published: 'idle', action: 'publish', reason: 'final' });
  });

  it('holds the published state on a freeze decision and keeps a pending idle hold as it was', () => {
    const [first] = run('working', [[T0, weakIdle]]);
    const frozen = decision({ raw: 'working', winner: 'freeze', step: 'freeze' });

    const result = debounce('working', frozen, first!.pending, T0 + 500);

    expect(result).toMatchObject({ published: 'working', action: 'hold', reason: 'freeze' });
    expect(result.pending.idleRunMs).toBe(T0);
  });

  it('needs weak working to persist before it replaces idle', () => {
    const [early, confirmed] = run('idle', [
      [T0, weakWorking],
      [T0 + WEAK_WORKING_CONFIRM_MS, weakWorking],
    ]);

    expect(early).toMatchObject({ published: 'idle', action: 'hold', reason: 'weak-working-confirming' });
    expect(confirmed).toMatchObject({ published: 'working', action: 'publish', reason: 'weak-working-confirmed' });
  });

  it('publishes weak working at once when leaving blocked (the operator answered)', () => {
    expect(debounce('blocked', weakWorking, INITIAL_DEBOUNCE, T0).published).toBe('working');
  });

  it('holds strong idle for IDLE_HOLD_STRONG_MS, then publishes', () => {
    const [first, before, after] = run('working', [
      [T0, strongIdle],
      [T0 + IDLE_HOLD_STRONG_MS - 1, strongIdle],
      [T0 + IDLE_HOLD_STRONG_MS, strongIdle],
    ]);

    expect(first).toMatchObject({ published: 'working', action: 'hold', reason: 'idle-holding' });
    expect(before?.published).toBe('working');
    expect(after).toMatchObject({ published: 'idle', action: 'publish', reason: 'idle-hold-elapsed' });
  });

  it('publishes strong idle at once when its rule names why the turn ended (reason)', () => {
    // Claude Code's drawn "API Error: 403" answer (recordings/claude/error-fatal-120x40): a named
    // end of turn, not a gap between tool calls.
    const [named] = run('working', [[T0, { ...strongIdle, reason: 'api-error' }]]);
    const [weakNamed] = run('working', [[T0, { ...weakIdle, reason: 'api-error' }]]);

    expect(named).toMatchObject({ published: 'idle', action: 'publish', reason: 'idle-named-end', detail: 'api-error' });
    expect(weakNamed).toMatchObject({ published: 'working', action: 'hold' });
  });

  it('holds strong idle for the winning rule\'s own idle_hold_ms instead, when it declares one', () => {
    // OpenCode's idle status row (packs/opencode.toml input-box-idle, idle_hold_ms = 0): drawn only
    // once its session is idle, never in a gap between tool calls.
    const [atOnce] = run('working', [[T0, { ...strongIdle, idleHoldMs: 0 }]]);
    const [first, before, after] = run('working', [
      [T0, { ...strongIdle, idleHoldMs: 120 }],
      [T0 + 119, { ...strongIdle, idleHoldMs: 120 }],
      [T0 + 120, { ...strongIdle, idleHoldMs: 120 }],
    ]);

    expect(atOnce).toMatchObject({ published: 'idle', action: 'publish', reason: 'idle-hold-elapsed' });
    expect(first).toMatchObject({ published: 'working', action: 'hold', detail: '0 of 120 ms (strong)' });
    expect(debounceDeadlinesMs(first!.pending, { ...strongIdle, idleHoldMs: 120 })).toContain(T0 + 120);
    expect(before?.published).toBe('working');
    expect(after).toMatchObject({ published: 'idle', action: 'publish', reason: 'idle-hold-elapsed' });
  });

  it('holds weak idle longer than strong idle', () => {
    const [, atStrongHold, atWeakHold] = run('working', [
      [T0, weakIdle],
      [T0 + IDLE_HOLD_STRONG_MS, weakIdle],
      [T0 + IDLE_HOLD_WEAK_MS, weakIdle],
    ]);

    expect(atStrongHold?.published).toBe('working');
    expect(atWeakHold?.published).toBe('idle');
  });

  it('does not flash idle in a tool-call gap: strong working restarts the hold', () => {
    const results = run('working', [
      [T0, weakIdle],
      [T0 + 1500, strongWorking],
      [T0 + 1600, weakIdle],
      [T0 + 3000, weakIdle],
    ]);

    expect(results.map((r) => r.published)).toEqual(['working', 'working', 'working', 'working']);
    expect(results[3]?.reason).toBe('idle-holding');
  });

  it('a busy CPU vetoes weak idle, but only up to the hold cap', () => {
    const busyIdle = { ...weakIdle, isCpuBusy: true };
    const [vetoed, capped] = run('working', [
      [T0, busyIdle],
      [T0 + IDLE_HOLD_CAP_MS, busyIdle],
    ]);

    expect(vetoed).toMatchObject({ published: 'working', reason: 'idle-cpu-veto' });
    expect(capped).toMatchObject({ published: 'idle', reason: 'idle-hold-cap' });
  });

  it('oscillating weak working cannot pin working beyond the hold cap', () => {
    const steps: (readonly [number, typeof weakIdle])[] = [];
    for (let t = 0; t <= IDLE_HOLD_CAP_MS; t += 500) steps.push([T0 + t, t % 1000 === 0 ? weakIdle : weakWorking]);

    const results = run('working', steps);

    expect(results.at(-1)).toMatchObject({ published: 'idle', reason: 'idle-hold-cap' });
    expect(results.slice(0, -1).every((r) => r.published === 'working')).toBe(true);
  });

  it('strong idle is not vetoed by a busy CPU', () => {
    const [, after] = run('working', [
      [T0, { ...strongIdle, isCpuBusy: true }],
      [T0 + IDLE_HOLD_STRONG_MS, { ...strongIdle, isCpuBusy: true }],
    ]);

    expect(after?.published).toBe('idle');
  });

  it('does not flap to unknown on one empty tick', () => {
    const results = run('working', [
      [T0, nothing],
      [T0 + 1000, strongWorking],
    ]);

    expect(results.map((r) => [r.published, r.reason])).toEqual([
      ['working', 'unknown-grace'],
      ['working', 'same-as-published'],
    ]);
  });

  it('publishes unknown after UNKNOWN_HOLD_MS of nothing', () => {
    const [, , last] = run('idle', [
      [T0, nothing],
      [T0 + 1000, nothing],
      [T0 + UNKNOWN_HOLD_MS, nothing],
    ]);

    expect(last).toMatchObject({ published: 'unknown', action: 'publish', reason: 'unknown-grace-elapsed' });
  });

  it('an empty tick inside an idle hold is neutral: the hold keeps its start', () => {
    const [, , last] = run('working', [
      [T0, strongIdle],
      [T0 + 100, nothing],
      [T0 + IDLE_HOLD_STRONG_MS, strongIdle],
    ]);

    expect(last?.published).toBe('idle');
  });

  it('counts published transitions per minute and flags flapping', () => {
    const steps: (readonly [number, typeof blocked])[] = [];
    for (let i = 0; i < FLAP_ALERT_COUNT; i += 1) steps.push([T0 + i * 1000, i % 2 === 0 ? blocked : strongWorking]);

    const results = run('idle', steps);
    const later = debounce('working', blocked, results.at(-1)!.pending, T0 + (FLAP_ALERT_COUNT - 1) * 1000 + FLAP_WINDOW_MS);

    expect(results.at(-2)).toMatchObject({ flapsPerMinute: FLAP_ALERT_COUNT - 1, isFlapping: false });
    expect(results.at(-1)).toMatchObject({ flapsPerMinute: FLAP_ALERT_COUNT, isFlapping: true });
    expect(later.flapsPerMinute).toBe(1);
  });

  it('releases an idle hold on a tick run exactly at its deadline, whatever the floating point', () => {
    // 8429.317 - 8129.317 is 299.9999999999991 in floating point (Codex deny-80x24 replay).
    const start = 8129.317;

    const [held, released] = run('working', [
      [start, strongIdle],
      [start + IDLE_HOLD_STRONG_MS, strongIdle],
    ]);

    expect(held?.published).toBe('working');
    expect(released).toMatchObject({ published: 'idle', reason: 'idle-hold-elapsed' });
  });

  it('reports the next deadline of a pending hold', () => {
    const [held] = run('working', [[T0, strongIdle]]);

    expect(debounceDeadlinesMs(held!.pending, strongIdle)).toContain(T0 + IDLE_HOLD_STRONG_MS);
    expect(debounceDeadlinesMs(held!.pending, strongIdle)).toContain(T0 + IDLE_HOLD_CAP_MS);
    expect(debounceDeadlinesMs(INITIAL_DEBOUNCE, strongIdle)).toEqual([]);
  });
});

describe('watchdog', () => {
  const quietSince = T0;
  const later = T0 + WATCHDOG_QUIET_MS;
  /** A watchdog memory that saw the screen at revision 1 with nothing moving since T0. */
  const quietMemory = { lastScreenRevision: 1, lastActivityMs: quietSince, stoppedSinceMs: undefined };

  it('marks working stuck when nothing moved for WATCHDOG_QUIET_MS', () => {
    const snap = snapshot({ lastOutputAtMs: quietSince });

    const result = watchdog(quietMemory, 'working', snap, later);

    expect(result).toMatchObject({ stuck: true, reason: 'quiet' });
  });

  it('is not stuck one millisecond before the window', () => {
    expect(watchdog(quietMemory, 'working', snapshot({ lastOutputAtMs: quietSince }), later - 1).stuck).toBe(false);
  });

  it.each([
    ['recent output', snapshot({ lastOutputAtMs: later - 100 })],
    ['a screen change', snapshot({ screen: screen({ revision: 2 }) })],
    ['CPU above quiet', snapshot({ process: sampledProcess({ cpuRate: 0.1 }) })],
    ['a live child', snapshot({ process: sampledProcess({ children: [child({ comm: 'cargo', state: 'S' })] }) })],
    ['a first sample with no rate yet', snapshot({ process: sampledProcess({ cpuRate: undefined }) })],
  ])('is not stuck with %s', (_name, snap) => {
    expect(watchdog(quietMemory, 'working', snap, later).stuck).toBe(false);
  });

  it('does not count a zombie child as live', () => {
    const snap = snapshot({ process: sampledProcess({ children: [child({ state: 'Z' })] }) });

    expect(watchdog(quietMemory, 'working', snap, later).stuck).toBe(true);
  });

  it('never marks anything but working, so it never hides blocked', () => {
    const result = watchdog(quietMemory, 'blocked', snapshot(), later);

    expect(result).toMatchObject({ stuck: false, reason: 'not-working' });
  });

  it('cannot conclude quiet where the children are unknown, yet still sees a stopped agent', () => {
    const unknownChildren = watchdog(quietMemory, 'working', snapshot({ process: sampledProcess({ children: undefined }) }), later + 60_000);
    const stoppedSince = watchdog(quietMemory, 'working', snapshot({ process: sampledProcess({ agentState: 'T', isStopped: true, children: undefined }) }), later);
    const stopped = watchdog(stoppedSince.state, 'working', snapshot({ process: sampledProcess({ agentState: 'T', isStopped: true, children: undefined }) }), later + STOPPED_STUCK_MS);

    expect(unknownChildren).toMatchObject({ stuck: false, reason: 'children-unknown' });
    expect(stopped).toMatchObject({ stuck: true, reason: 'stopped' });
  });

  it('without /proc it cannot conclude quiet and never marks stuck', () => {
    const result = watchdog(quietMemory, 'working', snapshot({ process: unsampledProcess() }), later + 60_000);

    expect(result).toMatchObject({ stuck: false, reason: 'unsampled' });
  });

  it('marks a SIGSTOPped working agent stuck after STOPPED_STUCK_MS, even with a live child', () => {
    const stopped = snapshot({ process: sampledProcess({ agentState: 'T', isStopped: true, children: [child()] }) });

    const first = watchdog(INITIAL_WATCHDOG, 'working', stopped, T0);
    const second = watchdog(first.state, 'working', stopped, T0 + STOPPED_STUCK_MS);

    expect(first).toMatchObject({ stuck: false, reason: 'stopped-grace' });
    expect(second).toMatchObject({ stuck: true, reason: 'stopped' });
  });

  it('clears stuck as soon as something moves', () => {
    const moving = watchdog(quietMemory, 'working', snapshot({ lastOutputAtMs: later + 10 }), later + 10);

    expect(moving.stuck).toBe(false);
  });

  it('reports when stuck could next be concluded', () => {
    expect(watchdogDeadlineMs(quietMemory, 'working', false)).toBe(quietSince + WATCHDOG_QUIET_MS);
    expect(watchdogDeadlineMs(quietMemory, 'idle', false)).toBeUndefined();
  });
});
