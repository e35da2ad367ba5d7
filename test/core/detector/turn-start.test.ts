/**
 * Claude Code's `UserPromptSubmit` hook authors `working` until its own OSC 7501 report
 * (gating.ts TURN_START_EVENTS, arbitration step `turn-start`): the hook comes 114-179 ms after
 * Enter, the report 76-115 ms after the hook, and in between the report still says idle and the
 * screen still shows the idle prompt box (recordings/claude/habitat-tmux).
 */
import { describe, expect, it } from 'vitest';
import { arbitrate } from '../../../src/core/detector/arbitrate.js';
import { gateReport, INITIAL_GATING, type GateContext, type GatingState } from '../../../src/core/detector/gating.js';
import { TURN_START_AFTER_KEY_MS, TURN_START_CLAIM_MS } from '../../../src/core/policy.js';
import type { EvidenceSnapshot, PackVerdict, ProgramStatus, ReportEvidence } from '../../../src/core/types.js';
import { snapshot, strongBlocked, strongIdle, verdict } from '../../helpers/detector-builders.js';
import { replayCommitted as replay } from '../../helpers/recording-replay.js';

const CLAUDE: GateContext = { sessionAgent: 'claude', hasPack: true };
const CODEX: GateContext = { sessionAgent: 'codex', hasPack: true };

const ENTER_MS = 5000;
const HOOK_MS = 5150;
/** The last report before Enter: Claude said idle when its previous turn ended. */
const IDLE_REPORT = claudeReport('idle', 1000);

function claudeReport(state: ProgramStatus['state'], atMs: number): ProgramStatus {
  return { state, app: 'claude-code', atMs, kind: undefined, progress: undefined, id: undefined, msg: undefined };
}

function gate(state: GatingState, event: string, context: GateContext, atMs: number): GatingState {
  return gateReport(state, { event, source: 'claude-hooks', agent: 'claude', seq: undefined, payload: undefined, deliveryMs: undefined }, context, atMs).state;
}

function reports(state: GatingState): ReportEvidence[] {
  return Object.values(state.sources);
}

const submitted = gate(INITIAL_GATING, 'UserPromptSubmit', CLAUDE, HOOK_MS);

/** The moment between the hook and Claude's own report: idle report standing, idle prompt box drawn before Enter. */
function between(overrides: Partial<EvidenceSnapshot> = {}, screen: PackVerdict = verdict(strongIdle())): ReturnType<typeof arbitrate> {
  const nowMs = overrides.nowMs ?? HOOK_MS + 10;
  const evidence = snapshot({ nowMs, lastInputAtMs: ENTER_MS, lastOutputAtMs: ENTER_MS - 600, programStatus: IDLE_REPORT, reports: reports(submitted), ...overrides });
  return arbitrate(evidence, screen, 'idle', nowMs);
}

describe('a turn-start claim (Claude Code UserPromptSubmit)', () => {
  it('is a working claim of grade turn-start for Claude, and still authors nothing for Codex', () => {
    expect(submitted.sources['claude-hooks']?.assertion).toMatchObject({ state: 'working', grade: 'turn-start', event: 'UserPromptSubmit', atMs: HOOK_MS });
    expect(gate(INITIAL_GATING, 'UserPromptSubmit', CODEX, HOOK_MS).sources['claude-hooks']?.assertion).toBeUndefined();
  });

  it('outranks Claude\'s older idle report and the idle prompt box still drawn', () => {
    expect(between()).toMatchObject({ raw: 'working', step: 'turn-start', winner: 'reporter', reportSource: 'claude-hooks', ruleId: 'UserPromptSubmit' });
  });

  it('ends once Claude\'s own report after it counts: working, or idle (a prompt that started no turn)', () => {
    const working = claudeReport('working', HOOK_MS + 90);
    expect(between({ nowMs: HOOK_MS + 100, programStatus: working })).toMatchObject({ raw: 'working', step: 'program-status' });
    const idle = claudeReport('idle', HOOK_MS + 90);
    // Until an idle report has settled, the claim still stands; then the report decides.
    expect(between({ nowMs: HOOK_MS + 100, programStatus: idle })).toMatchObject({ raw: 'working', step: 'turn-start' });
    expect(between({ nowMs: HOOK_MS + 200, programStatus: idle })).toMatchObject({ raw: 'idle', step: 'program-status' });
  });

  it('ends at a keystroke after it (Esc or Ctrl-C right after Enter)', () => {
    expect(between({ nowMs: HOOK_MS + 60, lastInputAtMs: HOOK_MS + 50 })).toMatchObject({ raw: 'idle', step: 'program-status' });
  });

  it('ends when the screen is redrawn after it and reads idle (a prompt refused by another hook, /clear)', () => {
    expect(between({ nowMs: HOOK_MS + 300, lastOutputAtMs: HOOK_MS + 200 })).toMatchObject({ raw: 'idle', step: 'program-status' });
  });

  it('ends after TURN_START_CLAIM_MS without any other news', () => {
    expect(between({ nowMs: HOOK_MS + TURN_START_CLAIM_MS - 1 })).toMatchObject({ step: 'turn-start' });
    expect(between({ nowMs: HOOK_MS + TURN_START_CLAIM_MS })).toMatchObject({ raw: 'idle', step: 'program-status' });
  });

  it('authors nothing for a prompt nobody typed (a background agent\'s result, long after the last key)', () => {
    expect(between({ lastInputAtMs: HOOK_MS - TURN_START_AFTER_KEY_MS - 1 })).toMatchObject({ raw: 'idle', step: 'program-status' });
    expect(between({ lastInputAtMs: undefined })).toMatchObject({ raw: 'idle' });
  });

  it('never outranks a drawn blocker', () => {
    expect(between({}, verdict(strongBlocked()))).toMatchObject({ raw: 'blocked', step: 'strong-blocker' });
  });

  it('a Stop or a PermissionRequest from the same source replaces it', () => {
    const stopped = gate(submitted, 'Stop', CLAUDE, HOOK_MS + 50);
    expect(between({ reports: reports(stopped) })).toMatchObject({ raw: 'idle', step: 'program-status' });
    const asked = gate(submitted, 'PermissionRequest', CLAUDE, HOOK_MS + 50);
    expect(asked.sources['claude-hooks']?.assertion).toMatchObject({ state: 'blocked', grade: 'blocker' });
  });
});

describe('Claude Code 2.1.332 in tmux, hooks on (recordings/claude/habitat-tmux/simple-80x24)', () => {
  it('publishes working from the UserPromptSubmit hook, before Claude\'s own report of it', async () => {
    // Enter at 8.039 s, UserPromptSubmit at 8.176 s, OSC 7501 working at 8.265 s.
    const { transitions } = await replay('recordings/claude/habitat-tmux/simple-80x24.cast');

    const working = transitions.find((t) => t.state === 'working');
    expect(working?.winner).toBe('reporter');
    expect(working?.t).toBeGreaterThanOrEqual(8.176);
    expect(working?.t).toBeLessThan(8.265);
    expect(transitions.map((t) => t.state)).toEqual(['unknown', 'idle', 'working', 'done', 'idle']);
  });
});
