// Offline checks of the installer's fix for a dependency tree the registry cannot resolve as
// published (Letta Code: two dependencies missing, one pinned prerelease gone).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyInstallFix } from './install.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('install fix', () => {
  it('points each absent dependency at an empty local package and keeps the given overrides', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'capture-install-'));
    dirs.push(prefix);
    const pj: Record<string, unknown> = { overrides: { kept: '1.0.0' } };
    const flags = applyInstallFix({ overrides: { '@a/pinned': '2.0.0' }, absent: ['@a/gone'], legacyPeerDeps: true }, prefix, pj);
    expect(flags).toEqual(['--legacy-peer-deps']);
    expect(pj['overrides']).toEqual({ kept: '1.0.0', '@a/pinned': '2.0.0', '@a/gone': 'file:./absent/@a+gone' });
    const stub = JSON.parse(readFileSync(join(prefix, 'absent', '@a+gone', 'package.json'), 'utf8'));
    expect(stub.name).toBe('@a/gone');
  });

  it('changes nothing for an agent without one', () => {
    const pj: Record<string, unknown> = { name: 'p' };
    expect(applyInstallFix(undefined, '/nonexistent', pj)).toEqual([]);
    expect(pj).toEqual({ name: 'p' });
  });
});
