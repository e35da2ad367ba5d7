/**
 * A spinner an agent flashes while it loads, before anyone typed, is not published. The
 * recording is the capture lab's Codex 0.171.0 `queued` at 120x40 (recordings/codex/, 2026-12-02):
 * before the first key Codex sets a spinner title at 1.412 s and OSC 7501 `state=working` at
 * 1.459 s, then its plain title and `state=idle` at 1.483/1.488 s. Every recorded Codex does this
 * (3-101 ms). Live in the e2e run (codex, tmux-truecolor) a tick that fell inside published
 * working, then idle, where replay's ticks fell elsewhere: the two disagreed over a frame nobody
 * could have read. Here the recording is replayed with a tick forced inside the flash.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../src/app/pack-registry.js';
import { readRecordingFile } from '../../src/app/recording/files.js';
import { replayRecording } from '../../src/app/recording/replay.js';
import type { DebounceReason } from '../../src/core/detector/debounce.js';
import type { Recording } from '../../src/core/recordings/recording.js';
import { withTickAt } from '../helpers/forced-tick.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CAST = join(ROOT, 'recordings/codex/queued-120x40.cast');
const pack = loadDefaultRegistry({}).packForAgent('codex');

/** The recording's own times (seconds): the spinner title, OSC 7501 working, OSC 7501 idle. */
const SPINNER_S = 1.412101;
const WORKING_S = 1.459469;
const IDLE_S = 1.487976;

function recording(): Recording {
  return readRecordingFile(CAST).recording;
}

function firstKeyS(source: Recording): number {
  return source.events.find((event) => event.kind === 'i')?.t ?? Infinity;
}

describe('a spinner flashed at start-up, before any input (Codex, lab recording)', () => {
  it('the recording has the flash: spinner title and state=working, then idle 29 ms later, all before the first key', () => {
    const source = recording();
    const at = (t: number) => source.events.find((event) => Math.abs(event.t - t) < 1e-6);

    expect(at(SPINNER_S)?.data).toContain('⠙ work');
    expect(at(WORKING_S)?.data).toContain('7501;state=working');
    expect(at(IDLE_S)?.data).toContain('7501;state=idle');
    expect(firstKeyS(source)).toBeGreaterThan(IDLE_S);
  });

  it('a tick inside the flash holds working, and replay publishes what it publishes without that tick', async () => {
    const source = recording();
    const reasons: { tS: number; reason: DebounceReason }[] = [];
    const forced = await replayRecording(withTickAt(source, (WORKING_S + IDLE_S) / 2), {
      pack,
      onTick: (entry, moment) => reasons.push({ tS: moment.tS, reason: entry.debounce.reason }),
    });
    const plain = await replayRecording(source, { pack });
    const beforeKey = (transitions: typeof plain.transitions) => transitions.filter((t) => t.t < firstKeyS(source)).map((t) => t.state);

    expect(reasons.some((r) => r.reason === 'working-before-input' && r.tS > WORKING_S && r.tS < IDLE_S)).toBe(true);
    expect(beforeKey(forced.transitions)).not.toContain('working');
    expect(beforeKey(forced.transitions)).toEqual(beforeKey(plain.transitions));
  });
});
