/**
 * Builders for detector tests: each returns a plain, neutral value (nothing matches, nothing
 * moves, /proc sampled and quiet) that a test overrides with only what it is about.
 */
import type { Decision } from '../../src/core/detector/arbitrate.js';
import type {
  ChildProcess,
  EvidenceSnapshot,
  PackVerdict,
  ProcessEvidence,
  RuleMatch,
  ScreenView,
  TitleEvidence,
} from '../../src/core/types.js';

export function screen(overrides: Partial<ScreenView> = {}): ScreenView {
  return { rows: [], cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1, ...overrides };
}

/** A sampled, quiet process tree: CPU 0, no children, the agent sleeping in the foreground. */
export function sampledProcess(
  overrides: Partial<Extract<ProcessEvidence, { sampled: true }>> = {},
): Extract<ProcessEvidence, { sampled: true }> {
  return {
    sampled: true,
    cpuRate: 0,
    children: [],
    agentState: 'S',
    isStopped: false,
    isZombie: false,
    isForeground: true,
    atMs: 0,
    ...overrides,
  };
}

export function unsampledProcess(reason = 'no /proc on this system'): ProcessEvidence {
  return { sampled: false, reason };
}

export function child(overrides: Partial<ChildProcess> = {}): ChildProcess {
  return { pid: 4242, comm: 'bash', state: 'S', ...overrides };
}

export function title(text: string, changedAtMs: number): TitleEvidence {
  return { text, changedAtMs, recentChangesMs: [changedAtMs] };
}

export function snapshot(overrides: Partial<EvidenceSnapshot> = {}): EvidenceSnapshot {
  return {
    nowMs: 0,
    startedAtMs: 0,
    screen: screen(),
    title: undefined,
    progress: undefined,
    lastMark: undefined,
    lastNotificationAtMs: undefined,
    lastBellAtMs: undefined,
    lastOutputAtMs: undefined,
    lastInputAtMs: undefined,
    process: sampledProcess(),
    exit: undefined,
    ...overrides,
    // A keystroke in these snapshots is typed (a turn can start on it) unless a test says otherwise.
    lastOperatorInputAtMs: 'lastOperatorInputAtMs' in overrides ? overrides.lastOperatorInputAtMs : overrides.lastInputAtMs,
  };
}

export function match(overrides: Partial<RuleMatch> = {}): RuleMatch {
  return { ruleId: 'rule', state: 'working', priority: 500, strength: 'strong', region: 'bottom_nonempty:12', ...overrides };
}

/** A verdict over the given matches, sorted as evaluate sorts them; the winner is the first strong one. */
export function verdict(...matches: RuleMatch[]): PackVerdict {
  const sorted = [...matches].sort((a, b) => b.priority - a.priority);
  return { agent: 'test', matches: sorted, winner: sorted.find((m) => m.strength === 'strong') };
}

export const strongWorking = (ruleId = 'working-line'): RuleMatch => match({ ruleId, state: 'working', priority: 500 });
export const strongBlocked = (ruleId = 'permission-dialog'): RuleMatch => match({ ruleId, state: 'blocked', priority: 900 });
export const strongIdle = (ruleId = 'prompt-box'): RuleMatch => match({ ruleId, state: 'idle', priority: 100 });

export function decision(overrides: Partial<Decision> = {}): Decision {
  return {
    raw: 'working',
    confidence: 'strong',
    winner: 'screen-rule',
    step: 'strong-working',
    ruleId: 'working-line',
    notes: [],
    isFinal: false,
    isCpuBusy: false,
    ...overrides,
  };
}
