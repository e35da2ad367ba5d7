import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/adapters/clock.js';
import { Reporter } from '../../src/app/reporters/reporter.js';
import { DetectorSession } from '../../src/app/session.js';
import type { Screen } from '../../src/adapters/screen/index.js';

// A blank screen: only the reporter's claims and the input decide in these tests.
const blankScreen = {
  view: () => ({ rows: [], cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1 }),
  evidence: () => ({ title: undefined, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined }),
} as unknown as Screen;

function setup() {
  const clock = manualClock(0, 1_790_000_000_000);
  const reporter = new Reporter({ clock, sessionAgent: 'claude', hasPack: () => true });
  const session = new DetectorSession({
    clock,
    screen: blankScreen,
    packs: () => undefined,
    processes: () => ({ sampled: false, reason: 'test' }),
    reports: (nowMs) => reporter.evidence(nowMs),
  });
  return { clock, reporter, session };
}

const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

describe('DetectorSession: whose input it is', () => {
  it('ignores a terminal reply to a query: no input time, no turn', () => {
    const { clock, session } = setup();
    clock.advanceTo(300);

    session.noteInput(bytes('\x1b[?1;2c\x1b[12;1R'));

    expect(session.snapshot()).toMatchObject({ lastInputAtMs: undefined, lastOperatorInputAtMs: undefined });
  });

  it('counts a focus-in as the operator looking but not typing', () => {
    const { clock, session } = setup();
    clock.advanceTo(300);

    session.noteInput(bytes('\x1b[I'));

    expect(session.snapshot()).toMatchObject({ lastInputAtMs: 300, lastOperatorInputAtMs: undefined });
  });

  it('keeps a hook blocked claim live through terminal replies, and a keystroke answers it', () => {
    const { clock, reporter, session } = setup();
    session.evaluate();
    clock.advanceTo(400);
    reporter.handle({ event: 'PermissionRequest', source: 'claude-hooks' });
    session.noteReport();
    session.evaluate();
    expect(session.state.session.state).toBe('blocked');

    clock.advanceTo(900);
    session.noteInput(bytes('\x1b]11;rgb:0000/0000/0000\x07'));
    session.evaluate();
    expect(session.state.session.state).toBe('blocked');
    expect(session.log.latest()?.digest.reports).toEqual([expect.objectContaining({ source: 'claude-hooks', claim: expect.objectContaining({ status: 'live' }) })]);

    clock.advanceTo(1400);
    session.noteInput(bytes('y'));
    session.evaluate();
    expect(session.log.latest()?.digest.reports).toEqual([expect.objectContaining({ source: 'claude-hooks', claim: expect.objectContaining({ status: 'answered' }) })]);
  });
});
