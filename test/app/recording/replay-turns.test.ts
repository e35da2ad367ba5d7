/**
 * No `done` without a turn, on real recordings (docs/detector.md, "Seen, done, roll-up"). The
 * capture lab's start-up scenarios (recordings/<agent>/startup-80x24.cast, pinned CLIs against
 * the mock model) show each agent loading and asking a start-up question (trust this folder,
 * theme) that the driver answers with a key, then a ready prompt; later the driver types a
 * prompt and submits it. Those recordings carry no input events: the driver's key times come
 * from their .meta.json (`driver_events`). The OpenCode recording carries its keystrokes as
 * input events. Before the rule, the start-up ended in `done` before anything was asked.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../../src/app/pack-registry.js';
import { packForRecording, readRecordingFile } from '../../../src/app/recording/files.js';
import { replayRecording } from '../../../src/app/recording/replay.js';
import { encodeInputMarker, INPUT_MARKER_CODE } from '../../../src/core/recordings/recorded-evidence.js';
import type { Recording } from '../../../src/core/recordings/recording.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

async function replay(relativePath: string, withDriverKeys = true) {
  const loaded = readRecordingFile(join(ROOT, relativePath));
  const { pack } = packForRecording(loadDefaultRegistry({}), loaded, undefined);
  const result = await replayRecording(loaded.recording, { pack, keyInputAtS: withDriverKeys ? loaded.driverInputAtS : [] });
  return { loaded, states: result.transitions.map((t) => ({ t: t.t, state: t.state })) };
}

describe('no done without a turn (replayed recordings)', () => {
  it.each(['claude', 'codex', 'gemini'])('%s start-up: the answered start-up dialog settles to idle; the typed prompt ends in done', async (agent) => {
    const { loaded, states } = await replay(`recordings/${agent}/startup-80x24.cast`);
    const submitAtS = loaded.driverInputAtS.at(-1) as number;

    const beforePrompt = states.filter((s) => s.t < submitAtS).map((s) => s.state);
    const afterPrompt = states.filter((s) => s.t >= submitAtS).map((s) => s.state);

    expect(loaded.recording.events.some((e) => e.kind === 'i')).toBe(false);
    expect(beforePrompt).toContain('blocked');
    expect(beforePrompt).not.toContain('done');
    expect(beforePrompt.at(-1)).toBe('idle');
    expect(afterPrompt).toEqual(['working', 'done']);
  });

  it('without any keys known, the same recording never says done', async () => {
    const { states } = await replay('recordings/codex/startup-80x24.cast', false);

    expect(states.map((s) => s.state)).not.toContain('done');
  });

  it('OpenCode, keystrokes recorded as input: idle at the ready prompt, done only after the turn', async () => {
    const { loaded, states } = await replay('recordings/opencode/approve-80x24.cast');

    expect(loaded.recording.events.some((e) => e.kind === 'i')).toBe(true);
    expect(states.map((s) => s.state).slice(0, 6)).toEqual(['unknown', 'idle', 'working', 'blocked', 'working', 'done']);
  });

  it.each(['80x24', '120x40'])('Claude Code interrupted with Esc mid-answer (interrupt-%s): working, then idle, never done', async (size) => {
    // recordings/claude/interrupt-*.cast: the lab's driver pressed Esc 2–3.5 s after the first
    // streamed byte; Claude drew "⎿ Interrupted · What should Claude do instead?" and its prompt.
    const { loaded, states } = await replay(`recordings/claude/interrupt-${size}.cast`);

    expect(loaded.recording.events.some((e) => e.kind === 'i' && e.data === '\x1b')).toBe(true);
    expect(states.map((s) => s.state)).toEqual(['unknown', 'idle', 'working', 'idle']);
  });

  it('the same turn left to finish (simple-80x24) still ends in done', async () => {
    const { states } = await replay('recordings/claude/simple-80x24.cast');

    expect(states.map((s) => s.state)).toContain('done');
  });

  // A recording made without --record-input keeps each read as a marker (size and kind, no
  // keys): replayed, it must decide exactly as the same recording with its keys.
  it.each(['recordings/opencode/approve-80x24.cast', 'recordings/claude/interrupt-80x24.cast'])(
    '%s with its keys replaced by input markers replays to the same transitions',
    async (path) => {
      const loaded = readRecordingFile(join(ROOT, path));
      const { pack } = packForRecording(loadDefaultRegistry({}), loaded, undefined);
      const withMarkers: Recording = {
        ...loaded.recording,
        events: loaded.recording.events.map((e) => (e.kind === 'i' ? { t: e.t, kind: INPUT_MARKER_CODE, data: encodeInputMarker(Buffer.from(e.data, 'utf8')) } : e)),
      };
      const withKeys = await replayRecording(loaded.recording, { pack });
      const fromMarkers = await replayRecording(withMarkers, { pack });

      expect(withMarkers.events.some((e) => e.kind === 'i')).toBe(false);
      expect(fromMarkers.transitions.map((t) => t.state)).toContain(path.includes('interrupt') ? 'idle' : 'done');
      expect(fromMarkers.transitions).toEqual(withKeys.transitions);
    },
  );
});
