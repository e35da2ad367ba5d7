/**
 * `record_dir`: a recording holds everything the agent printed, secrets included, so it is made
 * only where the user alone can reach it. Another local user's directory (even one only they
 * can write), a symlink, a shared directory are refused; each recording is a new 0600 file
 * under a name nobody can guess in advance, so nothing planted at the name is ever used.
 */
import { chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareAutoRecording } from '../../../src/app/recording/record-dir.js';
import { ensureSecondUser, IS_ROOT } from '../../robustness/harness.js';

const WALL = '2026-12-07T19:00:00.000Z';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-record-dir-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('where recordings may go', () => {
  it('refuses a record_dir that is a symlink, even to a private directory of the user', () => {
    const real = join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(dir, 'link');
    symlinkSync(real, link);

    const prepared = prepareAutoRecording(link, 5, 'claude', WALL, 1234);

    expect(prepared).toEqual({ ok: false, reason: `record_dir ${link} is a symbolic link; not recording there (name the real directory)` });
    expect(readdirSync(real)).toEqual([]);
  });

  it.skipIf(!IS_ROOT)('refuses a directory another local user owns, though only they can write it', () => {
    const other = ensureSecondUser();
    if (other === undefined) throw new Error('could not create the second user');
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    chownSync(theirs, other.uid, other.gid);

    const prepared = prepareAutoRecording(theirs, 5, 'claude', WALL, 1234, 0);

    expect(prepared).toEqual({ ok: false, reason: `record_dir ${theirs} belongs to uid ${other.uid}, not you; not recording there` });
    expect(readdirSync(theirs)).toEqual([]);
  });
});

describe('the recording file', () => {
  it('is created new and 0600 under a name with 48 random bits, never the same twice', () => {
    const recordings = join(dir, 'recordings');

    const first = prepareAutoRecording(recordings, 5, 'claude', WALL, 1234);
    const second = prepareAutoRecording(recordings, 5, 'claude', WALL, 1234);

    if (!first.ok || !second.ok) throw new Error(`not prepared: ${JSON.stringify([first, second])}`);
    expect(first.path).toMatch(/\/claude-20261207T190000Z-1234-[0-9a-f]{12}\.cast$/);
    expect(second.path).not.toBe(first.path);
    expect(statSync(recordings).mode & 0o777).toBe(0o700);
    for (const path of [first.path, second.path]) {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(path).size).toBe(0);
    }
  });
});
