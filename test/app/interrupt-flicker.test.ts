/**
 * Working drawn right after an interrupt key waits for the screen to settle. The fixture is the
 * e2e run's own recording of Codex `deny` in a tmux pane (fixtures/evidence/README.md): Esc at
 * the permission dialog, one frame still saying "Working … esc to interrupt", and 11 ms later
 * "Conversation interrupted". Live, a tick fell between the two frames and published working for
 * 1.3 s after the operator denied; replay's ticks fell elsewhere, so replay and live disagreed.
 * Here the recording is replayed with a tick forced where the live one fell (a /proc sample line
 * forces a tick at its time, as the live loop took it then).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../src/app/pack-registry.js';
import { replayRecording } from '../../src/app/recording/replay.js';
import { decodeRecording, type Recording } from '../../src/core/recordings/recording.js';
import type { DebounceReason } from '../../src/core/detector/debounce.js';
import { withTickAt } from '../helpers/forced-tick.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CAST = join(ROOT, 'fixtures/evidence/codex-deny-esc-tmux.cast');
const pack = loadDefaultRegistry({}).packForAgent('codex');

/** The recording's own times (seconds): the Esc, the frame still saying working, the interrupted frame. */
const ESC_S = 10.430244;
const WORKING_FRAME_S = 10.492471;
const INTERRUPTED_FRAME_S = 10.503106;

function recording(): Recording {
  return decodeRecording(readFileSync(CAST, 'utf8'), CAST);
}

describe('working drawn right after an interrupt key (Codex deny, e2e recording)', () => {
  it('the fixture has the two frames: working, then interrupted, 11 ms apart, after the Esc', () => {
    const events = recording().events;
    const at = (t: number) => events.find((event) => Math.abs(event.t - t) < 1e-6);

    expect(at(ESC_S)?.kind).toBe('i');
    expect(at(WORKING_FRAME_S)?.data).toContain('Working');
    expect(at(INTERRUPTED_FRAME_S)?.data).toContain('interrupted');
  });

  it('a tick between the two frames holds working until the screen settles: blocked → idle, as replay publishes', async () => {
    const reasons: { tS: number; reason: DebounceReason }[] = [];
    const forced = await replayRecording(withTickAt(recording(), (WORKING_FRAME_S + INTERRUPTED_FRAME_S) / 2), {
      pack,
      onTick: (entry, moment) => reasons.push({ tS: moment.tS, reason: entry.debounce.reason }),
    });
    const plain = await replayRecording(recording(), { pack });

    const afterEsc = (transitions: typeof plain.transitions) => transitions.filter((t) => t.t > ESC_S).map((t) => t.state);
    expect(reasons.some((r) => r.reason === 'working-after-interrupt' && r.tS > WORKING_FRAME_S && r.tS < INTERRUPTED_FRAME_S)).toBe(true);
    expect(afterEsc(forced.transitions)).toEqual(['idle']);
    expect(afterEsc(plain.transitions)).toEqual(['idle']);
    const idleAt = forced.transitions.find((t) => t.t > ESC_S)?.t ?? Infinity;
    const plainIdleAt = plain.transitions.find((t) => t.t > ESC_S)?.t ?? Infinity;
    expect(Math.abs(idleAt - plainIdleAt)).toBeLessThan(0.25);
  });
});
