import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/adapters/clock.js';
import type { Screen } from '../../src/adapters/screen/index.js';
import { DetectorSession } from '../../src/app/session.js';
import { CPU_BUSY_RATE, PROGRAM_STATUS_ACT_SETTLE_MS, LONG_SETTLED_TICK_MS, PROGRAM_STATUS_SETTLE_MS, QUIET_RECHECK_MS, SETTLE_AFTER_MS, SETTLED_TICK_MS, TICK_MS } from '../../src/core/policy.js';
import type { ProcessEvidence, ProgramStatus } from '../../src/core/types.js';
import { sampledProcess } from '../helpers/detector-builders.js';

/** A session with an empty screen, no pack, and the /proc sample `cpuRate()` says. */
function quietSession(cpuRate: () => number, programStatus: () => ProgramStatus | undefined = () => undefined) {
  const clock = manualClock(0);
  const screen = {
    view: () => ({ rows: [], cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1 }),
    evidence: () => ({ title: undefined, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined, programStatus: programStatus() }),
  } as unknown as Screen;
  const processes = (nowMs: number): ProcessEvidence => sampledProcess({ cpuRate: cpuRate(), atMs: nowMs });
  const session = new DetectorSession({ clock, screen, packs: () => undefined, processes });
  /** Runs every tick the session asks for up to `untilMs`; returns the gap before the next one. */
  const runUntil = (untilMs: number): number => {
    for (;;) {
      const dueMs = session.nextDueMs();
      if (dueMs > untilMs) return dueMs - clock.nowMs();
      clock.advanceTo(dueMs);
      session.evaluate();
    }
  };
  return { clock, session, runUntil };
}

describe('DetectorSession tick cadence', () => {
  it('ticks every second at first, every SETTLED_TICK_MS once nothing happened for SETTLE_AFTER_MS, then ever less often up to LONG_SETTLED_TICK_MS', () => {
    const { clock, session, runUntil } = quietSession(() => 0);

    expect(runUntil(SETTLE_AFTER_MS - TICK_MS)).toBe(TICK_MS);
    expect(session.state.session.state).not.toBe('working');
    expect(runUntil(SETTLE_AFTER_MS + SETTLED_TICK_MS)).toBe(SETTLED_TICK_MS);
    const gaps: number[] = [];
    while (clock.nowMs() < 5 * 60_000) gaps.push(runUntil(session.nextDueMs()));
    expect(gaps.every((gap, i) => i === 0 || gap >= (gaps[i - 1] ?? 0))).toBe(true);
    expect(gaps.at(-1)).toBe(LONG_SETTLED_TICK_MS);
    // Five minutes at a prompt: 5 s ticks until 20 s of quiet, then half the quiet, then 30 s.
    expect(gaps.length).toBeLessThan(20);
  });

  it('output wakes a settled session at once and brings the 1 s floor back', () => {
    const { clock, session, runUntil } = quietSession(() => 0);
    runUntil(4 * SETTLED_TICK_MS);
    const lastTickMs = clock.nowMs();

    clock.advanceBy(100);
    session.noteOutput();
    expect(session.nextDueMs()).toBe(lastTickMs + 100 + QUIET_RECHECK_MS);
    clock.advanceBy(QUIET_RECHECK_MS);
    session.evaluate();
    expect(session.nextDueMs() - clock.nowMs()).toBe(TICK_MS);
  });

  it('output read just before a tick but handed over after it is still rechecked QUIET_RECHECK_MS after its read', () => {
    // The native relay stamps each chunk with its read time; live (Codex deny in a tmux pane) a
    // chunk read 3 ms before a tick was handed over after it and waited for the 1 s floor.
    const { clock, session, runUntil } = quietSession(() => 0);
    runUntil(2000);
    clock.advanceTo(2500);
    session.noteOutput(2500);
    clock.advanceTo(2504);
    session.evaluate(session.outputMark());
    clock.advanceTo(2506);
    session.noteOutput(2503);

    expect(session.nextDueMs()).toBe(2503 + QUIET_RECHECK_MS);
  });

  it('output handed over while a tick waited for the screen stays due after that tick', () => {
    const { clock, session } = quietSession(() => 0);
    session.evaluate();
    clock.advanceTo(500);
    session.noteOutput(500);
    const markAtTickStart = session.outputMark();
    clock.advanceTo(506);
    session.noteOutput(505);
    clock.advanceTo(510);
    session.evaluate(markAtTickStart);

    expect(session.nextDueMs()).toBe(505 + QUIET_RECHECK_MS);
  });

  it('a working report is due once it stood PROGRAM_STATUS_ACT_SETTLE_MS, even stamped before the last tick, and looked at again at PROGRAM_STATUS_SETTLE_MS', () => {
    // Live, a report read 10 ms before a tick can be handed over after it: "newer than the
    // last tick" would miss it; "not seen by a tick" does not.
    let status: ProgramStatus | undefined;
    const { clock, session, runUntil } = quietSession(() => 0, () => status);
    runUntil(2000);
    clock.advanceTo(2000);
    session.evaluate();
    status = { state: 'working', atMs: 1990, kind: undefined, progress: undefined, id: undefined, app: undefined, msg: undefined };
    clock.advanceTo(2001);
    session.noteOutput(1990);

    expect(session.nextDueMs()).toBe(1990 + PROGRAM_STATUS_ACT_SETTLE_MS);
    session.evaluate();
    expect(session.nextDueMs()).toBe(1990 + PROGRAM_STATUS_SETTLE_MS);
    clock.advanceTo(1990 + PROGRAM_STATUS_SETTLE_MS);
    session.evaluate();
    expect(session.nextDueMs()).toBeGreaterThan(1990 + QUIET_RECHECK_MS);
  });

  it('an idle report is due once it stood PROGRAM_STATUS_SETTLE_MS', () => {
    let status: ProgramStatus | undefined;
    const { clock, session, runUntil } = quietSession(() => 0, () => status);
    runUntil(2000);
    status = { state: 'done', atMs: 2100, kind: undefined, progress: undefined, id: undefined, app: undefined, msg: undefined };
    clock.advanceTo(2100);
    session.noteOutput(2100);

    expect(session.nextDueMs()).toBe(2100 + PROGRAM_STATUS_SETTLE_MS);
  });

  it("keeps the 1 s floor while the agent's tree uses CPU", () => {
    const { runUntil } = quietSession(() => CPU_BUSY_RATE / 2);

    expect(runUntil(SETTLE_AFTER_MS + 3 * SETTLED_TICK_MS)).toBe(TICK_MS);
  });
});
