import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arbitrate as arbitrateStep, ARBITRATION_ORDER, isSpinnerTitle, type ArbitrationStep, type Decision } from '../../../src/core/detector/arbitrate.js';
import {
  ATTENTION_EDGE_MAX_AGE_MS,
  CPU_BUSY_RATE,
  PROGRAM_STATUS_IDLE_HOLD_MS,
  PROGRAM_STATUS_QUIET_STALE_MS,
  PROGRAM_STATUS_ACT_SETTLE_MS,
  PROGRAM_STATUS_SETTLE_MS,
  PROGRAM_STATUS_TRUST_MS,
  REPORT_CLAIM_TTL_MS,
  TITLE_SPINNER_AUTHORITY_MS,
} from '../../../src/core/policy.js';
import type { ProgramStatus, ReportEvidence } from '../../../src/core/types.js';
import {
  child,
  match,
  sampledProcess,
  snapshot,
  strongBlocked,
  strongIdle,
  strongWorking,
  title,
  unsampledProcess,
  verdict,
} from '../../helpers/detector-builders.js';

const NOW = 100_000;

/** Every step an arbitration in this file returned: the reachability test reads it. */
const reachedSteps = new Set<ArbitrationStep>();
const arbitrate: typeof arbitrateStep = (...args) => {
  const decision = arbitrateStep(...args);
  reachedSteps.add(decision.step);
  return decision;
};

function codes(decision: Decision): string[] {
  return decision.notes.map((note) => note.code);
}

describe('the winning rule\'s reason', () => {
  it('comes with the decision when the rule that decided declares one, and not from a rule that lost', () => {
    const errorIdle = { ...match({ ruleId: 'api-error', state: 'idle', priority: 150 }), reason: 'api-error' };

    expect(arbitrate(snapshot(), verdict(errorIdle, strongIdle('prompt')), 'working', NOW)).toMatchObject({ ruleId: 'api-error', reason: 'api-error' });
    expect(arbitrate(snapshot(), verdict(strongIdle('prompt')), 'working', NOW).reason).toBeUndefined();
    expect(arbitrate(snapshot(), verdict(errorIdle, strongBlocked('dialog')), 'working', NOW).reason).toBeUndefined();
    expect(arbitrate(snapshot(), verdict(errorIdle, strongWorking('spinner')), 'working', NOW).reason).toBeUndefined();
  });
});

describe('the winning rule\'s own idle hold', () => {
  it('comes with a strong idle decision of the rule that declares it, and with nothing else', () => {
    const footer = { ...strongIdle('footer'), idleHoldMs: 0 };

    expect(arbitrate(snapshot(), verdict(footer), 'working', NOW)).toMatchObject({ step: 'strong-idle', ruleId: 'footer', idleHoldMs: 0 });
    expect(arbitrate(snapshot(), verdict(strongIdle('prompt')), 'working', NOW).idleHoldMs).toBeUndefined();
    expect(arbitrate(snapshot(), verdict(footer, strongWorking('spinner')), 'working', NOW).idleHoldMs).toBeUndefined();
    expect(arbitrate(snapshot(), verdict(footer, strongBlocked('dialog')), 'working', NOW).idleHoldMs).toBeUndefined();
  });
});

describe('arbitrate, step by step in ARBITRATION_ORDER', () => {
  it('1. process exit publishes a final strong idle even with a dialog on screen', () => {
    const snap = snapshot({ exit: { code: 0, signal: undefined, atMs: NOW - 10 } });

    const result = arbitrate(snap, verdict(strongBlocked()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', confidence: 'strong', winner: 'process-exit', step: 'process-exit', isFinal: true });
    expect(codes(result)).toContain('process-exited');
  });

  it('1. a zombie agent counts as exited', () => {
    const snap = snapshot({ process: sampledProcess({ agentState: 'Z', isZombie: true }) });

    const result = arbitrate(snap, verdict(strongWorking()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', winner: 'process-exit', isFinal: true });
    expect(codes(result)).toContain('agent-zombie');
  });

  it('2. a strong blocker outranks a higher-priority working rule, a live spinner, progress and busy CPU', () => {
    const snap = snapshot({
      title: title('⠋ Working', NOW - 100),
      progress: { state: 3, value: undefined, atMs: NOW - 100 },
      process: sampledProcess({ cpuRate: 1.5 }),
    });
    const pack = verdict(match({ ruleId: 'spinner', state: 'working', priority: 1000 }), strongBlocked('dialog'));

    const result = arbitrate(snap, pack, 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', confidence: 'strong', winner: 'screen-rule', ruleId: 'dialog', step: 'strong-blocker' });
    expect(result.notes.find((n) => n.code === 'blocker-outranks-working')?.detail).toBe('working rule, title spinner, progress, cpu');
  });

  it('2. a blocker matched in the osc_title region is won by the title', () => {
    const pack = verdict(match({ ruleId: 'codex-action-required', state: 'blocked', region: 'osc_title' }));

    const result = arbitrate(snapshot({ title: title('[ ! ] Action Required', NOW - 50) }), pack, 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', winner: 'osc-title', ruleId: 'codex-action-required' });
  });

  it('2. a blocker outranks a higher-priority freeze rule', () => {
    const pack = verdict(match({ ruleId: 'redraw', state: 'freeze', priority: 1000 }), strongBlocked());

    const result = arbitrate(snapshot(), pack, 'working', NOW);

    expect(result.raw).toBe('blocked');
  });

  it('3. a freeze rule holds the previous state', () => {
    const pack = verdict(match({ ruleId: 'redraw', state: 'freeze', priority: 1000 }), strongIdle());

    const result = arbitrate(snapshot(), pack, 'working', NOW);

    expect(result).toMatchObject({ raw: 'working', winner: 'freeze', ruleId: 'redraw', step: 'freeze' });
    expect(codes(result)).toContain('freeze-held');
  });

  it('4. a strong working rule wins over a strong idle rule', () => {
    const result = arbitrate(snapshot(), verdict(strongWorking('esc-to-interrupt'), strongIdle()), 'idle', NOW);

    expect(result).toMatchObject({ raw: 'working', confidence: 'strong', winner: 'screen-rule', ruleId: 'esc-to-interrupt', step: 'strong-working' });
  });

  it('5. a title spinner that changed recently is strong working, even over a strong idle screen', () => {
    const snap = snapshot({ title: title('⠙ Claude Code', NOW - 200) });

    const result = arbitrate(snap, verdict(strongIdle()), 'idle', NOW);

    expect(result).toMatchObject({ raw: 'working', confidence: 'strong', winner: 'osc-title', step: 'title-spinner' });
  });

  it('5. the later ◐◑◒◓ spinner glyphs count as a spinner', () => {
    const result = arbitrate(snapshot({ title: title('◓ Claude Code', NOW - 200) }), undefined, 'idle', NOW);

    expect(result.winner).toBe('osc-title');
  });

  it('5. a title spinner that stopped changing loses authority and does not become idle', () => {
    const snap = snapshot({ title: title('⠙ Claude Code', NOW - TITLE_SPINNER_AUTHORITY_MS) });

    const result = arbitrate(snap, undefined, 'working', NOW);

    expect(result).toMatchObject({ raw: 'unknown', winner: 'none' });
    expect(codes(result)).toContain('title-spinner-stale');
  });

  it('6. a strong idle rule is strong idle when no working signal is live', () => {
    const snap = snapshot({ title: title('⠙ Claude Code', NOW - 60_000) });

    const result = arbitrate(snap, verdict(strongIdle('prompt-box')), 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', confidence: 'strong', winner: 'screen-rule', ruleId: 'prompt-box', step: 'strong-idle' });
  });

  it('7. an OSC 133 C mark means a command is running, and a D mark means back at the prompt', () => {
    const running = arbitrate(snapshot({ lastMark: { kind: 'C', exitCode: undefined, atMs: NOW - 10 } }), undefined, 'idle', NOW);
    const finished = arbitrate(snapshot({ lastMark: { kind: 'D', exitCode: 0, atMs: NOW - 10 } }), undefined, 'working', NOW);

    expect(running).toMatchObject({ raw: 'working', winner: 'shell-mark', step: 'shell-mark' });
    expect(finished).toMatchObject({ raw: 'idle', winner: 'shell-mark', step: 'shell-mark' });
  });

  it('8. OSC 9;4 states 1 and 3 are working, with a negative value accepted and noted', () => {
    const normal = arbitrate(snapshot({ progress: { state: 1, value: -1, atMs: NOW - 5000 } }), undefined, 'idle', NOW);
    const indeterminate = arbitrate(snapshot({ progress: { state: 3, value: undefined, atMs: NOW } }), undefined, 'idle', NOW);

    expect(normal).toMatchObject({ raw: 'working', winner: 'osc-progress', step: 'progress-working' });
    expect(codes(normal)).toContain('progress-negative-value');
    expect(indeterminate.raw).toBe('working');
  });

  it('8. a drawn idle prompt outranks a progress bar left behind', () => {
    const result = arbitrate(snapshot({ progress: { state: 3, value: undefined, atMs: NOW - 9000 } }), verdict(strongIdle()), 'working', NOW);

    expect(result.raw).toBe('idle');
  });

  it('9. a weak blocker with an unanswered bell authors a weak blocked', () => {
    const snap = snapshot({ lastBellAtMs: NOW - 1000, lastInputAtMs: NOW - 5000 });
    const pack = verdict(match({ ruleId: 'question-prose', state: 'blocked', strength: 'weak' }));

    const result = arbitrate(snap, pack, 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', confidence: 'weak', ruleId: 'question-prose', step: 'weak-blocker-with-attention' });
  });

  it('9. a weak blocker alone is prose, not a prompt', () => {
    const pack = verdict(match({ ruleId: 'question-prose', state: 'blocked', strength: 'weak' }));

    const result = arbitrate(snapshot(), pack, 'idle', NOW);

    expect(result.raw).toBe('unknown');
    expect(result.notes).toContainEqual({ code: 'weak-match-ignored', detail: 'question-prose' });
  });

  it('9. a bell the operator already answered, or a very old one, does not corroborate', () => {
    const pack = verdict(match({ state: 'blocked', strength: 'weak' }));
    const answered = snapshot({ lastBellAtMs: NOW - 3000, lastInputAtMs: NOW - 1000 });
    const old = snapshot({ lastNotificationAtMs: NOW - ATTENTION_EDGE_MAX_AGE_MS - 1 });

    expect(arbitrate(answered, pack, 'idle', NOW).raw).toBe('unknown');
    expect(arbitrate(old, pack, 'idle', NOW).raw).toBe('unknown');
  });

  it('10. a busy CPU alone is weak working, corroborating a weak working rule', () => {
    const snap = snapshot({ process: sampledProcess({ cpuRate: CPU_BUSY_RATE }) });

    const result = arbitrate(snap, verdict(match({ ruleId: 'maybe-working', strength: 'weak' })), 'idle', NOW);

    expect(result).toMatchObject({ raw: 'working', confidence: 'weak', winner: 'process', ruleId: 'maybe-working', step: 'physics-working', isCpuBusy: true });
    expect(codes(result)).toContain('weak-match-corroborated');
  });

  it('10. a child holding the terminal foreground is weak working', () => {
    const snap = snapshot({ process: sampledProcess({ isForeground: false, children: [child({ comm: 'vim' })] }) });

    const result = arbitrate(snap, undefined, 'idle', NOW);

    expect(result).toMatchObject({ raw: 'working', winner: 'process' });
    expect(codes(result)).toContain('child-in-foreground');
  });

  it('10. live children alone do not mean working (MCP servers live all session)', () => {
    const snap = snapshot({ process: sampledProcess({ children: [child({ comm: 'node' })] }) });

    expect(arbitrate(snap, undefined, 'idle', NOW).raw).toBe('unknown');
  });

  it('11. OSC 9;4 state 0 is weak idle', () => {
    const result = arbitrate(snapshot({ progress: { state: 0, value: 0, atMs: NOW } }), undefined, 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', confidence: 'weak', winner: 'osc-progress', step: 'weak-idle' });
  });

  it('11. an idle title glyph is weak idle', () => {
    const result = arbitrate(snapshot({ title: title('✳ Claude Code', NOW - 10) }), undefined, 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', confidence: 'weak', winner: 'osc-title' });
    expect(codes(result)).toContain('title-idle-glyph');
  });

  it('11. a weak idle rule authors weak idle only when the CPU is known to be quiet', () => {
    const pack = verdict(match({ ruleId: 'maybe-idle', state: 'idle', strength: 'weak' }));

    const quiet = arbitrate(snapshot(), pack, 'working', NOW);
    const unsampled = arbitrate(snapshot({ process: unsampledProcess() }), pack, 'working', NOW);

    expect(quiet).toMatchObject({ raw: 'idle', confidence: 'weak', ruleId: 'maybe-idle' });
    expect(unsampled.raw).toBe('unknown');
  });

  it('11. busy CPU wins over progress cleared: weak idle never beats activity', () => {
    const snap = snapshot({ progress: { state: 0, value: 0, atMs: NOW }, process: sampledProcess({ cpuRate: 0.9 }) });

    expect(arbitrate(snap, undefined, 'working', NOW).raw).toBe('working');
  });

  it('12. nothing matching means unknown, never a default idle', () => {
    const result = arbitrate(snapshot(), verdict(), 'idle', NOW);

    expect(result).toMatchObject({ raw: 'unknown', confidence: 'none', winner: 'none', ruleId: undefined, step: 'nothing' });
    expect(codes(result)).toContain('nothing-matched');
  });

  it('absent /proc is noted and is not read as a quiet CPU', () => {
    const result = arbitrate(snapshot({ process: unsampledProcess('no procfs') }), undefined, 'working', NOW);

    expect(result.isCpuBusy).toBeUndefined();
    expect(result.notes).toContainEqual({ code: 'process-unsampled', detail: 'no procfs' });
  });

  it('a first /proc sample without a rate is noted and leaves CPU unknown', () => {
    const result = arbitrate(snapshot({ process: sampledProcess({ cpuRate: undefined }) }), undefined, 'working', NOW);

    expect(result.isCpuBusy).toBeUndefined();
    expect(codes(result)).toContain('cpu-first-sample');
  });

});

describe('the documented order', () => {
  it('docs/detector.md lists the arbitration steps in ARBITRATION_ORDER', () => {
    const doc = readFileSync(new URL('../../../docs/detector.md', import.meta.url), 'utf8');

    const documented = [...doc.matchAll(/^\| \d+ \| `([a-z-]+)` \|/gm)].map((m) => m[1]);

    expect(documented).toEqual(ARBITRATION_ORDER.map((entry) => entry.step));
  });
});

describe('isSpinnerTitle', () => {
  it.each([
    ['⠋ Working', true],
    ['⣿ x', true],
    ['◐ task', true],
    ['◓', true],
    ['◔ not a spinner', false],
    ['✳ Claude Code', false],
    ['Claude ⠋', false],
    ['', false],
  ])('%j is a spinner title: %s', (text, expected) => {
    expect(isSpinnerTitle(text)).toBe(expected);
  });
});

describe('reporter claims in arbitration', () => {
  function claim(state: 'blocked' | 'working' | 'idle', grade: 'authoritative' | 'blocker' | 'turn-start', atMs: number, source = 'hooks'): ReportEvidence {
    return {
      source,
      agent: 'test',
      lastEvent: 'E',
      lastAtMs: atMs,
      lastSeq: undefined,
      lastEffect: 'asserted',
      accepted: 1,
      dropped: 0,
      assertion: { state, grade, event: state === 'blocked' ? 'PermissionRequest' : 'session.status', atMs },
    };
  }

  it('3. an authoritative idle claim outranks a strong working screen', () => {
    const result = arbitrate(snapshot({ reports: [claim('idle', 'authoritative', NOW - 100)] }), verdict(strongWorking()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'idle', confidence: 'strong', winner: 'reporter', step: 'reported-state', reportSource: 'hooks', ruleId: 'session.status' });
    expect(codes(result)).toContain('report-claim');
  });

  it('a visible screen blocker outranks an authoritative working claim, and says so', () => {
    const result = arbitrate(snapshot({ reports: [claim('working', 'authoritative', NOW - 100)] }), verdict(strongBlocked()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', step: 'strong-blocker', winner: 'screen-rule' });
    expect(result.reportSource).toBeUndefined();
    expect(codes(result)).toContain('report-outranked');
  });

  it('a turn-start working claim (a prompt typed and sent) outranks a drawn idle prompt until the agent reports', () => {
    const submitted: ReportEvidence = { ...claim('working', 'turn-start', NOW - 50), assertion: { state: 'working', grade: 'turn-start', event: 'UserPromptSubmit', atMs: NOW - 50 } };
    const result = arbitrate(snapshot({ reports: [submitted], lastInputAtMs: NOW - 200 }), verdict(strongIdle()), 'idle', NOW);

    expect(result).toMatchObject({ raw: 'working', step: 'turn-start', winner: 'reporter', reportSource: 'hooks', ruleId: 'UserPromptSubmit' });
  });

  it('7. a blocker-grade blocked claim outranks a drawn idle prompt', () => {
    const result = arbitrate(snapshot({ reports: [claim('blocked', 'blocker', NOW - 100)] }), verdict(strongIdle()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', step: 'reported-blocked', winner: 'reporter', reportSource: 'hooks' });
  });

  it('a blocker-grade blocked claim does not outrank live working evidence on screen', () => {
    const spinning = snapshot({ title: title('⠋ Working', NOW - 100), reports: [claim('blocked', 'blocker', NOW - 100)] });

    expect(arbitrate(snapshot({ reports: [claim('blocked', 'blocker', NOW - 100)] }), verdict(strongWorking()), 'working', NOW).step).toBe('strong-working');
    expect(arbitrate(spinning, undefined, 'working', NOW).step).toBe('title-spinner');
  });

  it('a blocked claim answered by a keystroke no longer counts', () => {
    const snap = snapshot({ lastInputAtMs: NOW - 50, reports: [claim('blocked', 'blocker', NOW - 100)] });

    const result = arbitrate(snap, verdict(strongIdle()), 'blocked', NOW);

    expect(result).toMatchObject({ raw: 'idle', step: 'strong-idle' });
    expect(codes(result)).toContain('report-answered');
  });

  it('an expired claim no longer counts', () => {
    const snap = snapshot({ reports: [claim('blocked', 'blocker', NOW - REPORT_CLAIM_TTL_MS)] });

    const result = arbitrate(snap, undefined, 'blocked', NOW);

    expect(result.step).toBe('nothing');
    expect(codes(result)).toContain('report-expired');
  });
});

describe('the agent\'s own report (OSC 7501, step program-status)', () => {
  const report = (state: ProgramStatus['state'], atMs: number, extra: Partial<ProgramStatus> = {}): ProgramStatus => ({
    state, kind: undefined, progress: undefined, id: undefined, app: 'codex', msg: undefined, atMs, ...extra,
  });

  it('a settled report outranks the screen\'s working and idle rules, and explain names it with its age', () => {
    const working = arbitrate(snapshot({ programStatus: report('working', NOW - 500), lastOutputAtMs: NOW - 10 }), verdict(strongIdle()), 'idle', NOW);
    const done = arbitrate(snapshot({ programStatus: report('done', NOW - 500) }), verdict(strongWorking()), 'working', NOW);

    expect(working).toMatchObject({ raw: 'working', step: 'program-status', winner: 'program-status', confidence: 'strong' });
    expect(working.notes).toContainEqual({ code: 'program-status', detail: 'codex working, OSC 7501, 500 ms ago' });
    expect(done).toMatchObject({ raw: 'idle', step: 'program-status', idleHoldMs: PROGRAM_STATUS_IDLE_HOLD_MS });
  });

  it('done and error end a turn (idle), blocked is blocked even with nothing drawn', () => {
    expect(arbitrate(snapshot({ programStatus: report('error', NOW - 500) }), undefined, 'working', NOW).raw).toBe('idle');
    expect(arbitrate(snapshot({ programStatus: report('blocked', NOW - 500, { kind: 'permission' }) }), undefined, 'working', NOW).raw).toBe('blocked');
  });

  it("a blocked report's kind is the decision's reason, whichever step finds the block; no other report gives one", () => {
    const reported = arbitrate(snapshot({ programStatus: report('blocked', NOW - 500, { kind: 'permission' }) }), undefined, 'working', NOW);
    const drawn = arbitrate(snapshot({ programStatus: report('blocked', NOW - 500, { kind: 'question' }) }), verdict(strongBlocked('approval')), 'working', NOW);
    const working = arbitrate(snapshot({ programStatus: report('working', NOW - 500, { kind: 'tool' }), lastOutputAtMs: NOW }), undefined, 'idle', NOW);

    expect(reported).toMatchObject({ raw: 'blocked', step: 'program-status', reason: 'permission' });
    expect(drawn).toMatchObject({ raw: 'blocked', step: 'strong-blocker', reason: 'question' });
    expect(working.raw).toBe('working');
    expect(working.reason).toBeUndefined();
  });

  it('a drawn blocker the agent did not report outranks its idle or done (Codex\'s plan prompt) and says so', () => {
    const result = arbitrate(snapshot({ programStatus: report('done', NOW - 2000) }), verdict(strongBlocked('plan-prompt')), 'working', NOW);

    expect(result).toMatchObject({ raw: 'blocked', step: 'strong-blocker', ruleId: 'plan-prompt' });
    expect(codes(result)).toContain('program-status-outranked');
  });

  it('an idle or done report younger than PROGRAM_STATUS_SETTLE_MS leaves the tick to the screen (a prompt the agent did not report may follow)', () => {
    const result = arbitrate(snapshot({ programStatus: report('done', NOW - PROGRAM_STATUS_SETTLE_MS + 1) }), verdict(strongWorking()), 'working', NOW);

    expect(result).toMatchObject({ raw: 'working', step: 'strong-working' });
    expect(codes(result)).toContain('program-status-settling');
  });

  it('a working or blocked report counts once it stood PROGRAM_STATUS_ACT_SETTLE_MS, not the idle settle (a drawn blocker outranks it anyway)', () => {
    const young = arbitrate(snapshot({ programStatus: report('working', NOW - PROGRAM_STATUS_ACT_SETTLE_MS + 1) }), verdict(strongIdle()), 'idle', NOW);
    const working = arbitrate(snapshot({ programStatus: report('working', NOW - PROGRAM_STATUS_ACT_SETTLE_MS), lastOutputAtMs: NOW }), verdict(strongIdle()), 'idle', NOW);
    const blocked = arbitrate(snapshot({ programStatus: report('blocked', NOW - PROGRAM_STATUS_ACT_SETTLE_MS) }), verdict(strongWorking()), 'working', NOW);

    expect(PROGRAM_STATUS_ACT_SETTLE_MS).toBeLessThan(PROGRAM_STATUS_SETTLE_MS);
    expect(young).toMatchObject({ raw: 'idle', step: 'strong-idle' });
    expect(working).toMatchObject({ raw: 'working', step: 'program-status' });
    expect(blocked).toMatchObject({ raw: 'blocked', step: 'program-status' });
  });

  it('after PROGRAM_STATUS_TRUST_MS, strong screen evidence that contradicts the report wins; agreeing or no evidence does not', () => {
    const old = NOW - PROGRAM_STATUS_TRUST_MS;
    const contradicted = arbitrate(snapshot({ programStatus: report('idle', old), lastOutputAtMs: NOW }), verdict(strongWorking()), 'idle', NOW);
    const youngerContradicted = arbitrate(snapshot({ programStatus: report('idle', old + 1) }), verdict(strongWorking()), 'idle', NOW);
    const uncontested = arbitrate(snapshot({ programStatus: report('blocked', old - 60_000) }), undefined, 'blocked', NOW);

    expect(contradicted).toMatchObject({ raw: 'working', step: 'strong-working' });
    expect(codes(contradicted)).toContain('program-status-stale');
    expect(youngerContradicted.step).toBe('program-status');
    expect(uncontested).toMatchObject({ raw: 'blocked', step: 'program-status' });
  });

  it('a working report under quiet output and a tree not known busy falls back to the rest of the evidence', () => {
    const quiet = NOW - PROGRAM_STATUS_QUIET_STALE_MS;
    const stale = arbitrate(snapshot({ programStatus: report('working', quiet - 5000), lastOutputAtMs: quiet, process: unsampledProcess() }), undefined, 'working', NOW);
    const busy = arbitrate(
      snapshot({ programStatus: report('working', quiet - 5000), lastOutputAtMs: quiet, process: sampledProcess({ cpuRate: CPU_BUSY_RATE * 2 }) }),
      undefined,
      'working',
      NOW,
    );
    const notYet = arbitrate(snapshot({ programStatus: report('working', quiet - 5000), lastOutputAtMs: quiet + 1, process: unsampledProcess() }), undefined, 'working', NOW);

    expect(stale).toMatchObject({ raw: 'unknown', step: 'nothing' });
    expect(stale.notes.find((note) => note.code === 'program-status-stale')?.detail).toContain('output quiet');
    expect(busy.step).toBe('program-status');
    expect(notYet.step).toBe('program-status');
  });
});

// Last in the file: vitest runs a file's tests in order, so every case above has run.
describe('reachability', () => {
  it('every step of ARBITRATION_ORDER was returned by one of the cases in this file (none is dead)', () => {
    const unreached = ARBITRATION_ORDER.map((entry) => entry.step).filter((step) => !reachedSteps.has(step));

    expect(unreached).toEqual([]);
  });
});
