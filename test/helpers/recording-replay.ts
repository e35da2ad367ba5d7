/**
 * Replays committed recordings the way `agentwrap eval` does (optionally with every screen rule
 * of the pack off) and lists a CLI's recordings, for the tests that hold a score on them.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDefaultRegistry } from '../../src/app/pack-registry.js';
import { packForRecording, readRecordingFile, withoutPackScreenRules } from '../../src/app/recording/files.js';
import { replayRecording } from '../../src/app/recording/replay.js';
import { scoreRecordings, type ScoreInput } from '../../src/core/recordings/score.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const registry = loadDefaultRegistry({});

/** One recording (a path relative to the repository) replayed through its pack. */
export async function replayCommitted(relativePath: string, noScreenRules = false) {
  const loaded = readRecordingFile(join(REPO_ROOT, relativePath));
  const { pack } = packForRecording(registry, loaded, undefined);
  const result = await replayRecording(loaded.recording, { pack: noScreenRules ? withoutPackScreenRules(pack) : pack, keyInputAtS: loaded.driverInputAtS });
  return { loaded, transitions: result.transitions, durationS: result.durationS };
}

/** Every `.cast` under `dir` (relative to the repository), depth first. */
export function castsUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return castsUnder(path);
    return entry.name.endsWith('.cast') ? [path] : [];
  });
}

/** `files` replayed with every screen rule off, ready for scoreRecordings. */
export async function signalOnlyInputs(files: readonly string[], agent: string): Promise<ScoreInput[]> {
  const inputs: ScoreInput[] = [];
  for (const file of files) {
    const { loaded, transitions, durationS } = await replayCommitted(file, true);
    inputs.push({ file, agent, labels: loaded.labels ?? [], published: transitions, durationS });
  }
  return inputs;
}

/** The score of `files` replayed with every screen rule off, as `eval --no-screen-rules` gives it. */
export async function signalOnlyScore(files: readonly string[], agent: string) {
  return scoreRecordings(await signalOnlyInputs(files, agent)).total;
}
