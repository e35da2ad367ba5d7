/**
 * A turn the operator stopped with an interrupt key ends in idle, not done, also when the agent's
 * screen flickers back to working after the key (seen live: Claude Code in a tmux pane, Esc
 * mid-answer, published done). The key stops a turn; it never starts one.
 */
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/adapters/clock.js';
import type { Screen } from '../../src/adapters/screen/index.js';
import { DetectorSession } from '../../src/app/session.js';
import type { LoadedPack } from '../../src/app/pack-registry.js';
import { compiledPack, packToml, screenOf } from '../helpers/pack-toml.js';

const PACK: LoadedPack = {
  agent: 'test',
  origin: 'bundled',
  path: 'test.toml',
  warnings: [],
  compiled: compiledPack(packToml(`[[rule]]
id = "busy"
state = "working"
region = "screen"
requires_all = ["BUSY"]

[[rule]]
id = "prompt"
state = "idle"
region = "screen"
requires_all = ["READY"]`)),
};

function sessionWithScreenState() {
  const clock = manualClock(0);
  let text = 'READY';
  let revision = 0;
  const screen = {
    view: () => ({ ...screenOf([text]), revision }),
    evidence: () => ({ title: undefined, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined }),
  } as unknown as Screen;
  const session = new DetectorSession({ clock, screen, packs: () => PACK, processes: () => ({ sampled: false, reason: 'test' }) });
  /** The screen shows `next` from `atMs` on; ticks every 250 ms until then. */
  const showAt = (atMs: number, next: 'working' | 'idle') => {
    while (clock.nowMs() < atMs) { clock.advanceTo(Math.min(atMs, clock.nowMs() + 250)); session.evaluate(); }
    text = next === 'working' ? 'BUSY' : 'READY'; revision += 1; session.evaluate();
  };
  const key = (text: string) => session.noteInput(Buffer.from(text, 'latin1'));
  return { clock, session, showAt, key };
}

describe('an interrupted turn (DetectorSession)', () => {
  it('ends in idle when Esc stops it, even with a flicker of working after the key', () => {
    const { session, showAt, key, clock } = sessionWithScreenState();
    showAt(1000, 'idle');
    key('hello\r');
    showAt(1500, 'working');
    showAt(4000, 'working');
    key('\x1b');
    showAt(4300, 'idle');
    showAt(4600, 'working');
    showAt(5200, 'idle');
    clock.advanceTo(7000);
    session.evaluate();

    expect(session.state.session.state).toBe('idle');
  });

  it('the same turn left to end on its own is done', () => {
    const { session, showAt, key, clock } = sessionWithScreenState();
    showAt(1000, 'idle');
    key('hello\r');
    showAt(1500, 'working');
    showAt(5200, 'idle');
    clock.advanceTo(7000);
    session.evaluate();

    expect(session.state.session.state).toBe('done');
  });
});
