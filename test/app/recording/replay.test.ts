/**
 * Replay determinism: the same recording gives the same published transitions every time, and
 * however its output is cut into chunks (inside escape sequences, inside surrogate pairs).
 * Runs over every committed recording, with the pack replay would choose for it.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDefaultRegistry } from '../../../src/app/pack-registry.js';
import { findRecordings, packForRecording, readRecordingFile } from '../../../src/app/recording/files.js';
import { replayRecording } from '../../../src/app/recording/replay.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const RECORDINGS = findRecordings([join(ROOT, 'recordings')]);

/** A seeded generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts a string at random code-unit positions: escape sequences and surrogate pairs get split. */
function randomSplitter(seed: number): (data: string) => string[] {
  const next = random(seed);
  return (data) => {
    const pieces: string[] = [];
    let at = 0;
    while (at < data.length) {
      const size = 1 + Math.floor(next() * 24);
      pieces.push(data.slice(at, at + size));
      at += size;
    }
    return pieces;
  };
}

describe('replay', () => {
  it('has committed recordings to replay', () => {
    expect(RECORDINGS.length).toBeGreaterThan(0);
  });

  it.each(RECORDINGS.map((path) => [path.slice(ROOT.length + 1), path] as const))(
    '%s replays to identical transitions twice and under random chunking',
    async (_name, path) => {
      const registry = loadDefaultRegistry({});
      const loaded = readRecordingFile(path);
      const { pack } = packForRecording(registry, loaded, undefined);

      const first = await replayRecording(loaded.recording, { pack });
      const second = await replayRecording(loaded.recording, { pack });
      const chunked = await replayRecording(loaded.recording, { pack, splitOutput: randomSplitter(path.length) });

      expect(first.transitions.length).toBeGreaterThan(0);
      expect(second.transitions).toEqual(first.transitions);
      expect(chunked.transitions).toEqual(first.transitions);
    },
  );
});
