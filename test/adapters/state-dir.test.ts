import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkRecordPath,
  checkStateRootForReading,
  currentUid,
  ensurePrivateDir,
  ensureStateDirs,
  resolveStateRoot,
  StateDirError,
} from '../../src/adapters/state-dir.js';

let base: string;
const uid = currentUid();

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'aw-statedir-'));
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function refusal(run: () => unknown): StateDirError {
  try {
    run();
  } catch (error) {
    if (error instanceof StateDirError) return error;
    throw error;
  }
  throw new Error('expected a StateDirError, got none');
}

describe('resolveStateRoot', () => {
  it.each([
    ['AGENT_STATUS_DIR first', { AGENT_STATUS_DIR: '/a/b', XDG_RUNTIME_DIR: '/run/user/1' }, '/a/b'],
    ['then XDG_RUNTIME_DIR/agent-status', { XDG_RUNTIME_DIR: '/run/user/1' }, '/run/user/1/agent-status'],
    ['then ~/.local/state/agent-status', {}, '/home/u/.local/state/agent-status'],
    ['an empty AGENT_STATUS_DIR counts as unset', { AGENT_STATUS_DIR: '', XDG_RUNTIME_DIR: '/run/user/1' }, '/run/user/1/agent-status'],
    ['a relative XDG_RUNTIME_DIR is invalid and ignored', { XDG_RUNTIME_DIR: 'run' }, '/home/u/.local/state/agent-status'],
  ])('%s', (_name, env, expected) => {
    expect(resolveStateRoot(env, '/home/u')).toBe(expected);
  });
});

describe('ensureStateDirs', () => {
  it('creates the root (with missing parents), sessions/ and providers/ as 0700 even under a loose umask', () => {
    const root = join(base, 'deep', 'agent-status');
    const previous = process.umask(0o002);
    try {
      const layout = ensureStateDirs(root, uid);

      expect([mode(root), mode(layout.sessionsDir), mode(layout.providersDir)]).toEqual([0o700, 0o700, 0o700]);
    } finally {
      process.umask(previous);
    }
  });

  it('accepts an existing root readable by others but not writable by them', () => {
    const root = join(base, 'agent-status');
    mkdirSync(root, { mode: 0o755 });
    chmodSync(root, 0o755);

    expect(() => ensureStateDirs(root, uid)).not.toThrow();
  });

  it('refuses a symlinked root, naming the path and the reason', () => {
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    const root = join(base, 'link');
    symlinkSync(real, root);

    const error = refusal(() => ensureStateDirs(root, uid));

    expect(error.message).toContain(root);
    expect(error.reason).toMatch(/symbolic link/);
  });

  it('refuses a symlinked sessions/ directory', () => {
    const root = join(base, 'agent-status');
    mkdirSync(root, { mode: 0o700 });
    mkdirSync(join(base, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(base, 'elsewhere'), join(root, 'sessions'));

    expect(refusal(() => ensureStateDirs(root, uid)).path).toBe(join(root, 'sessions'));
  });

  it('refuses a group-writable root', () => {
    const root = join(base, 'agent-status');
    mkdirSync(root);
    chmodSync(root, 0o770);

    expect(refusal(() => ensureStateDirs(root, uid)).reason).toMatch(/writable by group or others \(mode 0770\)/);
  });

  it('refuses a world-writable sessions/ directory', () => {
    const root = join(base, 'agent-status');
    mkdirSync(join(root, 'sessions'), { recursive: true, mode: 0o700 });
    chmodSync(join(root, 'sessions'), 0o707);

    expect(refusal(() => ensureStateDirs(root, uid)).reason).toMatch(/writable/);
  });

  it('refuses a directory owned by another user', () => {
    const root = join(base, 'agent-status');
    mkdirSync(root, { mode: 0o700 });
    // Checking against a different expected owner works for any user; as root we can also chown.
    const other = (uid ?? 0) + 1;
    if (uid === 0) chownSync(root, 65534, 65534);

    const error = refusal(() => ensureStateDirs(root, uid === 0 ? 0 : other));

    expect(error.reason).toMatch(/owned by another user/);
  });

  it('refuses a regular file where the root should be', () => {
    const root = join(base, 'agent-status');
    writeFileSync(root, 'x');

    expect(refusal(() => ensureStateDirs(root, uid)).reason).toBe('not a directory');
  });
});

describe('ensurePrivateDir strict', () => {
  it('refuses a directory readable by others when strict', () => {
    const dir = join(base, 'sockets');
    mkdirSync(dir);
    chmodSync(dir, 0o755);

    expect(refusal(() => ensurePrivateDir(dir, { uid, strict: true })).reason).toMatch(/accessible by group or others/);
  });
});

describe('checkRecordPath', () => {
  it('accepts a missing file and a regular file, refuses a symlink', () => {
    const file = join(base, 'a.json');
    const link = join(base, 'b.json');
    writeFileSync(file, '{}');
    symlinkSync(file, link);

    expect(() => checkRecordPath(join(base, 'missing.json'))).not.toThrow();
    expect(() => checkRecordPath(file)).not.toThrow();
    expect(refusal(() => checkRecordPath(link)).reason).toMatch(/symbolic link/);
  });
});

describe('checkStateRootForReading', () => {
  it('is quiet for a missing root and names a symlinked one', () => {
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'link'));

    expect(checkStateRootForReading(join(base, 'missing'), uid)).toBeUndefined();
    expect(checkStateRootForReading(join(base, 'link'), uid)?.message).toContain(join(base, 'link'));
  });
});
