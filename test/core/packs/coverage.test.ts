/**
 * Every bundled pack has at least one fixture for each state its rules can produce (working,
 * blocked, idle), so no rule family ships without a screen that proves it fires.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PackRegistry } from '../../../src/app/pack-registry.js';
import { parseFixtureName } from '../../../src/core/packs/fixture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const registry = PackRegistry.load({ bundledDir: join(ROOT, 'packs'), userDir: undefined });

function fixtureStates(agent: string): Set<string> {
  const dir = join(ROOT, 'fixtures', agent);
  if (!existsSync(dir)) return new Set();
  return new Set(readdirSync(dir).flatMap((name) => parseFixtureName(name)?.expected ?? []));
}

describe('pack coverage', () => {
  it('every bundled pack file loads', () => {
    const broken = registry.entries().filter((e) => e.status !== 'live' && e.status !== 'replaced');

    expect(broken.map((e) => `${e.path}: ${e.problems.join('; ')}`)).toEqual([]);
    expect(registry.packs().length).toBeGreaterThan(0);
  });

  it.each(registry.packs().map((p) => [p.agent, p] as const))('%s has a fixture for each state its rules claim', (agent, pack) => {
    const claimed = new Set(pack.compiled.rules.map((r) => r.rule.state).filter((s) => s !== 'freeze'));
    const have = fixtureStates(agent);

    const missing = [...claimed].filter((state) => !have.has(state)).sort();

    expect(missing, `fixtures/${agent}/ lacks ${missing.map((s) => `${s}_*.txt`).join(', ')}`).toEqual([]);
  });
});
