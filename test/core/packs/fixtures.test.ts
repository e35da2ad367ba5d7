/**
 * The fixture sweep: every `fixtures/<agent>/<expected>_<slug>.txt` must be classified as its
 * name says by the bundled pack for that agent. Adding a case means adding a file.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PackRegistry, sweepFixtures } from '../../../src/app/pack-registry.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const registry = PackRegistry.load({ bundledDir: join(ROOT, 'packs'), userDir: undefined });
const results = sweepFixtures(join(ROOT, 'fixtures'), (agent) => registry.packForAgent(agent)?.compiled);

describe('bundled fixtures', () => {
  it('exist', () => {
    expect(results.length).toBeGreaterThan(0);
  });

  it.each(results.map((r) => [r.name, r] as const))('%s', (_name, result) => {
    expect(result.passed, result.summary).toBe(true);
  });
});
