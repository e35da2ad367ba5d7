/**
 * Weak working (the CPU alone) leaves a dialog nobody answered only as it would leave idle: after
 * WEAK_WORKING_CONFIRM_MS. The fixture is the e2e run's recording of Gemini's first run in a tmux
 * pane under load (fixtures/evidence/README.md), with what `agentwrap events` published live:
 * Gemini redraws its auth box with its CPU busy, and a replay tick on a frame mid-redraw saw no
 * rule and a busy CPU.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../src/app/pack-registry.js';
import { readRecordingFile } from '../../src/app/recording/files.js';
import { replayRecording } from '../../src/app/recording/replay.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CAST = join(ROOT, 'fixtures/evidence/gemini-first-run-tmux.cast');
const EVENTS = join(ROOT, 'fixtures/evidence/gemini-first-run-tmux.events.ndjson');
const pack = loadDefaultRegistry({}).packForAgent('gemini');

/** The published states in order, without the final one the exit keystrokes bring. */
function liveStates(): string[] {
  const events = readFileSync(EVENTS, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { to: string });
  return events.map((event) => event.to);
}

describe('a dialog nobody answered, redrawn while the CPU runs (Gemini first run, e2e recording)', () => {
  it('replay publishes the states the live run published, with no working between the auth box and its answer', async () => {
    const { transitions } = await replayRecording(readRecordingFile(CAST).recording, { pack });
    const replayed = transitions.map((tr) => tr.state);

    expect(liveStates()).toEqual(['unknown', 'working', 'blocked', 'idle', 'blocked', 'idle', 'working', 'done', 'idle']);
    expect(replayed).toEqual(liveStates());
  });
});
