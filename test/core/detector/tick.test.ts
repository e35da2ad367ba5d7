import { describe, expect, it } from 'vitest';
import { IDLE_HOLD_STRONG_MS, STOPPED_STUCK_MS, TITLE_SPINNER_AUTHORITY_MS, WATCHDOG_QUIET_MS } from '../../../src/core/policy.js';
import {
  initialDetectorState,
  markDetectorSeen,
  needsPackEvaluation,
  nextWakeMs,
  shouldEvaluate,
  tick,
  type DetectorState,
} from '../../../src/core/detector/tick.js';
import { TickLog } from '../../../src/core/detector/tick-log.js';
import type { AgentState, EvidenceSnapshot, PackVerdict } from '../../../src/core/types.js';
import {
  match,
  sampledProcess,
  screen,
  snapshot,
  strongBlocked,
  strongIdle,
  strongWorking,
  title,
  verdict,
} from '../../helpers/detector-builders.js';

type Scene = 'idle' | 'working' | 'gap' | 'blocked';

/**
 * A Claude-like agent: the screen (as a pack verdict), the title and OSC progress for each scene.
 * In a tool-call gap the working line is gone, progress is cleared and the title settles: only
 * weak idle evidence, exactly what flashes a false "done" in other tools.
 */
function scene(kind: Scene, atMs: number, revision: number, lastInputAtMs: number | undefined): [EvidenceSnapshot, PackVerdict] {
  const base = { nowMs: atMs, screen: screen({ revision }), lastOutputAtMs: atMs - 20, lastInputAtMs };
  switch (kind) {
    case 'idle':
      return [snapshot({ ...base, title: title('✳ Claude Code', 0) }), verdict(strongIdle())];
    case 'working':
      return [
        snapshot({ ...base, title: title(revision % 2 === 0 ? '⠋ Claude Code' : '⠙ Claude Code', atMs - 50), progress: { state: 3, value: undefined, atMs: atMs - 50 } }),
        verdict(strongWorking()),
      ];
    case 'gap':
      return [snapshot({ ...base, title: title('✳ Claude Code', atMs - 100), progress: { state: 0, value: 0, atMs: atMs - 100 } }), verdict()];
    case 'blocked':
      return [snapshot({ ...base, title: title('✳ Claude Code', atMs - 100) }), verdict(strongBlocked('permission-dialog'))];
  }
}

/** Runs ticks at the given times; returns the published public state after each tick. */
function play(steps: readonly (readonly [number, Scene, number?])[]) {
  // Started on a command-line prompt, so work from the first tick is a turn (as `claude "…"`).
  let det: DetectorState = initialDetectorState(0, true);
  const log = new TickLog();
  const published: [number, AgentState][] = [];
  steps.forEach(([atMs, kind, inputAtMs], i) => {
    const [snap, pack] = scene(kind, atMs, i + 1, inputAtMs);
    const result = tick(det, snap, pack, atMs);
    det = result.state;
    log.push(result.entry);
    if (result.changed) published.push([atMs, det.session.state]);
  });
  return { det, log, published };
}

describe('tick: a whole turn', () => {
  it('follows idle → working → gap → working → blocked → working → done with no false done, and blocked on its first tick', () => {
    const { published, log } = play([
      [0, 'idle'],
      [1000, 'idle'],
      [2000, 'working', 1900],
      [3000, 'working', 1900],
      [4000, 'gap', 1900], // tool-call gap: weak idle only
      [4150, 'gap', 1900], // quiet recheck
      [5000, 'gap', 1900],
      [5300, 'working', 1900],
      [6000, 'working', 1900],
      [6480, 'blocked', 1900], // quiet recheck right after the dialog is drawn
      [7000, 'blocked', 1900],
      [8000, 'working', 7600], // the operator answered
      [9000, 'working', 7600],
      [10_000, 'idle', 7600],
      [10_150, 'idle', 7600],
      [10_300, 'idle', 7600],
      [11_000, 'idle', 7600],
    ]);

    expect(published.map(([, state]) => state)).toEqual(['idle', 'working', 'blocked', 'working', 'done']);
    expect(published.find(([, state]) => state === 'blocked')?.[0]).toBe(6480);
    expect(published.find(([, state]) => state === 'done')?.[0]).toBe(10_000 + IDLE_HOLD_STRONG_MS);
    const gapEntries = log.entries().filter((entry) => entry.nowMs >= 4000 && entry.nowMs < 5300);
    expect(gapEntries.every((entry) => entry.debounce.action === 'hold' && entry.state === 'working')).toBe(true);
  });

  it('a keystroke after done marks the session seen: done → idle', () => {
    const { published } = play([
      [0, 'working'],
      [1000, 'idle'],
      [1300, 'idle'],
      [2000, 'idle', 1800],
    ]);

    expect(published.map(([, state]) => state)).toEqual(['working', 'done', 'idle']);
  });

  it('a keystroke typed before the completion does not mark it seen', () => {
    const { det } = play([
      [0, 'working', 500],
      [1000, 'idle', 900],
      [1300, 'idle', 900],
    ]);

    expect(det.session.state).toBe('done');
  });

  it('the tick log explains the decision, the hold and the published state', () => {
    const { log } = play([
      [0, 'working'],
      [1000, 'idle'],
    ]);

    const latest = log.latest();

    expect(latest).toMatchObject({
      nowMs: 1000,
      matches: [{ ruleId: 'prompt-box', state: 'idle' }],
      decision: { raw: 'idle', winner: 'screen-rule', ruleId: 'prompt-box' },
      debounce: { action: 'hold', reason: 'idle-holding' },
      published: 'working',
      state: 'working',
    });
    expect(latest?.digest.title).toBe('✳ Claude Code');
  });
});

describe('tick: the issue scenarios', () => {
  it('a wrapped sleep with a pack that matches nothing stays unknown', () => {
    let det = initialDetectorState(0);
    const states: AgentState[] = [];
    for (let t = 0; t <= 60_000; t += 1000) {
      const snap = snapshot({ nowMs: t, process: sampledProcess({ cpuRate: t === 0 ? undefined : 0, agentState: 'S', atMs: t }) });
      det = tick(det, snap, verdict(), t).state;
      states.push(det.session.state);
    }

    expect(new Set(states)).toEqual(new Set(['unknown']));
  });

  it('a SIGSTOPped agent whose screen says working becomes stuck within the watchdog window', () => {
    let det = initialDetectorState(0);
    const working = verdict(strongWorking());
    det = tick(det, snapshot({ nowMs: 0, lastOutputAtMs: 0 }), working, 0).state;
    const stopped = (t: number) => snapshot({ nowMs: t, lastOutputAtMs: 0, process: sampledProcess({ agentState: 'T', isStopped: true, cpuRate: 0 }) });

    const first = tick(det, stopped(1000), working, 1000);
    const later = tick(first.state, stopped(1000 + STOPPED_STUCK_MS), working, 1000 + STOPPED_STUCK_MS);

    expect(first.state.session).toMatchObject({ state: 'working', stuck: false });
    expect(later.changed).toBe(true);
    expect(later.state.session).toMatchObject({ state: 'working', stuck: true });
    expect(1000 + STOPPED_STUCK_MS).toBeLessThan(WATCHDOG_QUIET_MS);
  });

  it('process exit publishes a final done at once', () => {
    const det = tick(initialDetectorState(0, true), snapshot({ nowMs: 0 }), verdict(strongWorking()), 0).state;

    const result = tick(det, snapshot({ nowMs: 500, exit: { code: 0, signal: undefined, atMs: 490 } }), undefined, 500);

    expect(result.state.session).toMatchObject({ state: 'done', winner: 'process-exit' });
  });
});

describe('skipping work and waking on time', () => {
  it('skips when nothing changed and nothing is due', () => {
    const snap = snapshot({ nowMs: 0 });
    const det = tick(initialDetectorState(0), snap, verdict(), 0).state;

    expect(shouldEvaluate(det, snap, 1000)).toBe(false);
    expect(needsPackEvaluation(det, snap)).toBe(false);
    expect(nextWakeMs(det, 1000)).toBeUndefined();
  });

  it('evaluates on the first tick and when the screen revision changes', () => {
    const snap = snapshot({ nowMs: 0 });
    const det = tick(initialDetectorState(0), snap, verdict(), 0).state;
    const moved = snapshot({ nowMs: 1000, screen: screen({ revision: 2 }) });

    expect(shouldEvaluate(initialDetectorState(0), snap, 0)).toBe(true);
    expect(shouldEvaluate(det, moved, 1000)).toBe(true);
    expect(needsPackEvaluation(det, moved)).toBe(true);
  });

  it('a changed CPU band is a change, a wobble inside a band is not', () => {
    const quiet = snapshot({ process: sampledProcess({ cpuRate: 0.001 }) });
    const det = tick(initialDetectorState(0), quiet, verdict(), 0).state;

    expect(shouldEvaluate(det, snapshot({ process: sampledProcess({ cpuRate: 0.005 }) }), 500)).toBe(false);
    expect(shouldEvaluate(det, snapshot({ process: sampledProcess({ cpuRate: 0.9 }) }), 500)).toBe(true);
    expect(needsPackEvaluation(det, snapshot({ process: sampledProcess({ cpuRate: 0.9 }) }))).toBe(false);
  });

  it('an idle hold comes due even when nothing else changes', () => {
    let det = tick(initialDetectorState(0, true), snapshot(), verdict(strongWorking()), 0).state;
    const idleScreen = snapshot({ screen: screen({ revision: 2 }) });
    det = tick(det, idleScreen, verdict(strongIdle()), 1000).state;

    const wake = nextWakeMs(det, 1000);

    expect(wake).toBe(1000 + IDLE_HOLD_STRONG_MS);
    expect(shouldEvaluate(det, idleScreen, 1000 + IDLE_HOLD_STRONG_MS - 1)).toBe(false);
    expect(shouldEvaluate(det, idleScreen, 1000 + IDLE_HOLD_STRONG_MS)).toBe(true);
    expect(tick(det, idleScreen, det.lastVerdict, 1000 + IDLE_HOLD_STRONG_MS).state.session.state).toBe('done');
  });

  it('a title spinner losing authority is a wake-up even with an unchanged snapshot', () => {
    // Typed at 0: working nobody asked for (start-up) would be held UNASKED_WORKING_CONFIRM_MS first.
    const spinning = snapshot({ title: title('⠋ Codex', 0), lastOperatorInputAtMs: 0 });
    const det = tick(initialDetectorState(0), spinning, verdict(), 0).state;

    expect(det.session.state).toBe('working');
    expect(nextWakeMs(det, 0)).toBe(TITLE_SPINNER_AUTHORITY_MS);
    expect(shouldEvaluate(det, spinning, TITLE_SPINNER_AUTHORITY_MS)).toBe(true);
  });

  it('the watchdog window is a wake-up for a quiet working session', () => {
    const snap = snapshot({ lastOutputAtMs: 0, lastOperatorInputAtMs: 0 });
    const det = tick(initialDetectorState(0), snap, verdict(strongWorking()), 0).state;

    expect(nextWakeMs(det, 0)).toBe(WATCHDOG_QUIET_MS);
    expect(tick(det, snap, det.lastVerdict, WATCHDOG_QUIET_MS).state.session.stuck).toBe(true);
  });

  it('markDetectorSeen acknowledges a done session', () => {
    let det = tick(initialDetectorState(0, true), snapshot(), verdict(strongWorking()), 0).state;
    det = tick(det, snapshot({ screen: screen({ revision: 2 }) }), verdict(strongIdle()), 1000).state;
    det = tick(det, snapshot({ screen: screen({ revision: 2 }) }), verdict(strongIdle()), 1300).state;

    const acked = markDetectorSeen(det, 2000);

    expect(det.session.state).toBe('done');
    expect(acked.changed).toBe(true);
    expect(acked.state.session.state).toBe('idle');
    expect(markDetectorSeen(acked.state, 2100).changed).toBe(false);
  });

  it('a weak working rule without physics never authors state', () => {
    const det = tick(initialDetectorState(0), snapshot(), verdict(match({ strength: 'weak' })), 0).state;

    expect(det.session.state).toBe('unknown');
  });
});

describe('TickLog', () => {
  it('keeps only the newest entries, oldest first', () => {
    const log = new TickLog(3);
    let det = initialDetectorState(0);
    for (let t = 0; t < 5; t += 1) {
      const result = tick(det, snapshot({ nowMs: t }), verdict(), t);
      det = result.state;
      log.push(result.entry);
    }

    expect(log.size).toBe(3);
    expect(log.entries().map((e) => e.nowMs)).toEqual([2, 3, 4]);
    expect(log.last(2).map((e) => e.nowMs)).toEqual([3, 4]);
    expect(log.latest()?.nowMs).toBe(4);
  });

  it('defaults to 60 ticks', () => {
    expect(new TickLog().capacity).toBe(60);
  });
});

describe('disagreement between the agent\'s report (OSC 7501) and the screen', () => {
  const report = (state: 'working' | 'idle', atMs: number) => ({ state, kind: undefined, progress: undefined, id: undefined, app: 'codex', msg: undefined, atMs });

  function lastEntry(snapshotAt: (nowMs: number) => EvidenceSnapshot, verdictUsed: PackVerdict, times: readonly number[]) {
    let state = initialDetectorState(0);
    let entry;
    for (const nowMs of times) ({ state, entry } = tick(state, snapshotAt(nowMs), verdictUsed, nowMs));
    return { state, entry };
  }

  it('is not one while a live title spinner reads working over a drawn idle composer (Codex draws its composer while it works)', () => {
    const spinning = (nowMs: number) => snapshot({ nowMs, programStatus: report('working', 100), title: title(nowMs % 2 === 0 ? '⠋ work' : '⠙ work', nowMs - 50), lastOutputAtMs: nowMs });

    const { state, entry } = lastEntry(spinning, verdict(strongIdle('composer-idle')), [1_000, 4_001, 8_000]);

    expect(state.disagreement).toBeUndefined();
    expect(entry?.disagreement).toBeUndefined();
  });

  it('starts when the screen reads another state, keeps its start while the pair holds, and ends when they agree', () => {
    const at = (nowMs: number) => snapshot({ nowMs, programStatus: report('working', 100), lastOutputAtMs: nowMs });
    const idleScreen = verdict(strongIdle('composer-idle'));

    const disagreeing = lastEntry(at, idleScreen, [1_000, 3_000]);
    const agreeing = tick(disagreeing.state, at(3_500), verdict(strongWorking('working-row')), 3_500);

    expect(disagreeing.state.disagreement).toMatchObject({ reported: 'working', screen: 'idle', sinceMs: 1_000 });
    expect(agreeing.state.disagreement).toBeUndefined();
  });
});
