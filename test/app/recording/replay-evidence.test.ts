/**
 * Replay feeds a recording's /proc samples and reporter events back to the detector, so
 * decisions that hung on CPU or a hook come out as they did live. The fixture is a real session
 * recorded by agentwrap with the `agentwrap events` stream of the same live run beside it
 * (fixtures/evidence/README.md).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../../src/app/pack-registry.js';
import { replayRecording } from '../../../src/app/recording/replay.js';
import { decodeRecording } from '../../../src/core/recordings/recording.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CAST = join(ROOT, 'fixtures/evidence/shell-cpu-then-hook.cast');
const EVENTS = join(ROOT, 'fixtures/evidence/shell-cpu-then-hook.events.ndjson');

interface LiveEvent {
  readonly t: number;
  readonly to: string;
  readonly winner: string;
}

const pack = loadDefaultRegistry({}).packForAgent('claude');

describe('replay with recorded evidence', () => {
  it('publishes the live run’s changes: working from /proc, then blocked from the hook, each within 250 ms', async () => {
    const recording = decodeRecording(readFileSync(CAST, 'utf8'), CAST);
    const live = readFileSync(EVENTS, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LiveEvent);
    // The stream was watching before the session started: its first line is the record the
    // session published at its start, the recording's t = 0 (to within a few ms).
    const startWallMs = live[0]?.t ?? 0;
    const exitS = ((live.at(-1)?.t ?? 0) - startWallMs) / 1000;
    const liveChanges = live.filter((e) => (e.t - startWallMs) / 1000 < exitS).map((e) => ({ state: e.to, winner: e.winner, t: (e.t - startWallMs) / 1000 }));

    const { transitions } = await replayRecording(recording, { pack });

    expect(liveChanges.map((c) => [c.state, c.winner])).toEqual([
      ['unknown', 'none'],
      ['working', 'process'],
      ['blocked', 'reporter'],
    ]);
    expect(transitions.map((tr) => [tr.state, tr.winner])).toEqual(liveChanges.map((c) => [c.state, c.winner]));
    transitions.forEach((tr, i) => expect(Math.abs(tr.t - (liveChanges[i]?.t ?? Infinity))).toBeLessThanOrEqual(0.25));
  });

  it('without its evidence lines the same screen publishes neither change', async () => {
    const text = readFileSync(CAST, 'utf8');
    const screenOnly = text.split('\n').filter((line) => !line.includes('"agentwrap.')).join('\n');
    expect(screenOnly.length).toBeLessThan(text.length);

    const { transitions } = await replayRecording(decodeRecording(screenOnly, CAST), { pack });

    expect(transitions.map((tr) => tr.state)).toEqual(['unknown']);
  });
});
