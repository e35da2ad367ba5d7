import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectAgentVersion, resolveOnPath, versionOfExecutable } from '../../src/adapters/agent-version.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentwrap-version-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function executable(path: string): void {
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
}

describe('detectAgentVersion', () => {
  it('follows the npm bin symlink to the package.json of the package behind it', () => {
    const pkg = join(root, 'lib', 'node_modules', '@anthropic-ai', 'claude-code');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@anthropic-ai/claude-code', version: '2.1.7' }));
    executable(join(pkg, 'cli.js'));
    const bin = join(root, 'bin');
    mkdirSync(bin);
    symlinkSync(join(pkg, 'cli.js'), join(bin, 'claude'));

    const found = detectAgentVersion('claude', { PATH: `/nonexistent:${bin}` });

    expect(found).toEqual({ version: '2.1.7', source: join(pkg, 'package.json'), executable: join(pkg, 'cli.js') });
  });

  it('reads a version-named directory of a native install', () => {
    const dir = join(root, 'versions', '2.0.14');
    mkdirSync(dir, { recursive: true });
    executable(join(dir, 'claude'));

    expect(versionOfExecutable(join(dir, 'claude'))?.version).toBe('2.0.14');
  });

  it('finds nothing for a command that is not on PATH or not executable', () => {
    writeFileSync(join(root, 'plain'), 'x');

    expect(resolveOnPath('plain', root)).toBeUndefined();
    expect(detectAgentVersion('nowhere', { PATH: root })).toBeUndefined();
  });
});
