import { describe, expect, it } from 'vitest';
import { INTERRUPT_SETTLE_MS, initialSessionState, markSeen, reduceSession, rollUp, type PublishedFrame, type SessionState } from '../../../src/core/detector/session-state.js';
import type { AgentState, RawState } from '../../../src/core/types.js';

function frame(raw: RawState, overrides: Partial<PublishedFrame> = {}): PublishedFrame {
  return { raw, stuck: false, winner: raw === 'unknown' ? 'none' : 'screen-rule', ruleId: undefined, ...overrides };
}

/** Reduces raw states published one second apart, starting at t = 1000, after a prompt typed at t = 500. */
function through(...raws: RawState[]): SessionState {
  return raws.reduce((state, raw, i) => reduceSession(state, frame(raw), 1000 * (i + 1), 500), initialSessionState(0));
}

/** The same with input typed at the given times (none: never). */
function withInput(raws: readonly (readonly [RawState, number?])[], start = initialSessionState(0)): SessionState {
  return raws.reduce((state, [raw, inputAtMs], i) => reduceSession(state, frame(raw), 1000 * (i + 1), inputAtMs), start);
}

describe('session reducer', () => {
  it('starts unknown, seen, at revision 0', () => {
    expect(initialSessionState(0)).toMatchObject({ state: 'unknown', seen: true, revision: 0, stuck: false });
  });

  it('reaching idle after working is done, not seen', () => {
    const state = through('working', 'idle');

    expect(state).toMatchObject({ state: 'done', raw: 'idle', seen: false, stateSinceMs: 2000 });
  });

  it('reaching idle without work is plain idle', () => {
    expect(through('unknown', 'idle').state).toBe('idle');
  });

  it('work that passes through unknown still ends in done', () => {
    expect(through('working', 'unknown', 'idle').state).toBe('done');
  });

  it('blocked inside a turn counts as work: idle after an answered dialog is done', () => {
    expect(through('working', 'blocked', 'idle').state).toBe('done');
  });

  describe('no done without a turn', () => {
    it('start-up work with no input settles to idle, not done (a first spinner while the agent loads)', () => {
      expect(withInput([['unknown'], ['working'], ['working'], ['idle']]).state).toBe('idle');
    });

    it('a start-up dialog answered by a key is not a turn (trust prompt → ready prompt)', () => {
      expect(withInput([['blocked'], ['blocked', 1500], ['idle', 1500]]).state).toBe('idle');
    });

    it('the agent working after a start-up dialog was answered is not a turn (Gemini storing an API key)', () => {
      // blocked (the key prompt), the Enter typed at 1500 seen while blocked is published, the
      // agent's CPU published as working, then its ready prompt.
      expect(withInput([['blocked'], ['blocked', 1500], ['working', 1500], ['idle', 1500]]).state).toBe('idle');
    });

    it('a prompt typed after the start-up dialog is a turn and ends in done', () => {
      const state = withInput([['blocked'], ['idle', 1500], ['idle', 2500], ['working', 2500], ['idle', 2500]]);
      expect(state.state).toBe('done');
    });

    it('a dialog drawn right after a typed prompt starts the turn, though working was never published', () => {
      // Under load a tick can miss a short working: the demo agent asks for permission at once.
      expect(withInput([['idle'], ['blocked', 1500], ['working', 2500], ['idle', 2500]]).state).toBe('done');
    });

    it('a dialog inside a turn is still the turn: its answer and the work after it end in done', () => {
      expect(withInput([['working', 500], ['blocked', 500], ['working', 2500], ['idle', 2500]]).state).toBe('done');
    });

    it('working that follows a typed prompt is a turn and ends in done', () => {
      const state = withInput([['working'], ['idle'], ['idle', 2500], ['working', 2500], ['idle', 2500]]);
      expect(state.state).toBe('done');
    });

    it('input already answered by a turn does not make later work a turn', () => {
      const looked = markSeen(withInput([['working', 500], ['idle', 500]]), 2500);
      const later = [['working', 500], ['idle', 500]].reduce((state, [raw, at], i) => reduceSession(state, frame(raw as RawState), 3000 + 1000 * i, at as number), looked);
      expect(looked.state).toBe('idle');
      expect(later.state).toBe('idle');
    });

    it('a prompt typed while a turn works (queued) makes the next working a turn', () => {
      const state = withInput([['working', 500], ['working', 1500], ['idle', 1500], ['working', 1500], ['idle', 1500]]);
      expect(state).toMatchObject({ state: 'done', answeredInputAtMs: 1500 });
    });

    it('a prompt on the command line makes the start-up working a turn, once', () => {
      const first = withInput([['working'], ['idle']], initialSessionState(0, true));
      const looked = markSeen(first, 2500);
      const later = [reduceSession(looked, frame('working'), 3000), frame('idle')] as const;
      expect(first.state).toBe('done');
      expect(reduceSession(later[0], later[1], 4000).state).toBe('idle');
    });
  });

  it('marking seen turns done into idle, with a new revision and state_since', () => {
    const done = through('working', 'idle');

    const seen = markSeen(done, 5000);

    expect(seen).toMatchObject({ state: 'idle', seen: true, revision: done.revision + 1, stateSinceMs: 5000 });
  });

  it('a keystroke while working does not suppress the done that follows', () => {
    const working = through('working');

    const afterKeystroke = markSeen(working, 1500);
    const finished = reduceSession(afterKeystroke, frame('idle'), 3000);

    expect(finished.state).toBe('done');
  });

  it('marking seen twice changes nothing the second time', () => {
    const once = markSeen(through('working', 'idle'), 5000);

    expect(markSeen(once, 6000)).toBe(once);
  });

  it('counts a revision for every visible change and none for a repeat', () => {
    const working = through('working');

    const repeat = reduceSession(working, frame('working'), 3000);
    const stuck = reduceSession(working, frame('working', { stuck: true }), 3000);

    expect(repeat).toBe(working);
    expect(stuck).toMatchObject({ stuck: true, revision: working.revision + 1, stateSinceMs: working.stateSinceMs });
  });

  it('stuck is only ever set on working', () => {
    const blocked = reduceSession(initialSessionState(0), frame('blocked', { stuck: true }), 1000);

    expect(blocked.stuck).toBe(false);
  });

  it('carries the winner and rule id of what it publishes', () => {
    const state = reduceSession(initialSessionState(0), frame('blocked', { winner: 'osc-title', ruleId: 'action-required' }), 1000);

    expect(state).toMatchObject({ winner: 'osc-title', ruleId: 'action-required' });
  });

  describe('a turn the operator interrupted', () => {
    /** Prompt typed at 500, working from 1000, an interrupt key at `escAtMs`, idle published at `idleAtMs`. */
    function interrupted(escAtMs: number | undefined, idleAtMs: number): SessionState {
      const working = reduceSession(initialSessionState(0), frame('working'), 1000, 500);
      const still = reduceSession(working, frame('working'), 2000, escAtMs ?? 500, escAtMs);
      return reduceSession(still, frame('idle'), idleAtMs, escAtMs ?? 500, escAtMs);
    }

    it('settles to idle, not done, when idle follows an interrupt key pressed during the turn', () => {
      expect(interrupted(2500, 3000)).toMatchObject({ state: 'idle', raw: 'idle', seen: true });
    });

    it('still ends in done without an interrupt key', () => {
      expect(interrupted(undefined, 3000).state).toBe('done');
    });

    it('ends in done when the turn ran on long after the interrupt key (Esc closed a menu)', () => {
      expect(interrupted(2500, 2500 + INTERRUPT_SETTLE_MS + 1000).state).toBe('done');
    });

    it('an interrupt key from before the turn started does not count', () => {
      const working = reduceSession(initialSessionState(0), frame('working'), 1000, 900, 800);
      expect(reduceSession(working, frame('idle'), 2000, 900, 800).state).toBe('done');
    });
  });
});

describe('rollUp', () => {
  it.each<[AgentState[], AgentState]>([
    [['idle', 'working', 'done', 'blocked', 'unknown'], 'blocked'],
    [['idle', 'working', 'done', 'unknown'], 'done'],
    [['unknown', 'idle', 'working'], 'working'],
    [['unknown', 'idle'], 'idle'],
    [['unknown'], 'unknown'],
    [[], 'unknown'],
  ])('rolls %j up to %s', (states, expected) => {
    expect(rollUp(states)).toBe(expected);
  });
});
