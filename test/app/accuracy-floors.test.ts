/**
 * Locks in detection quality: every committed recording is replayed through the live pipeline
 * and scored against its labels, and each agent's totals must stay at or above the floors in
 * recordings/accuracy-floors.json (the one place they are kept).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateRecordings } from '../../src/cli/commands/eval.js';
import { ROOT } from '../helpers/cli.js';

interface Floor {
  readonly accuracy: number;
  readonly blocked_recall: number;
  readonly max_spurious: number;
  readonly max_p95_ms: number;
}

const RECORDINGS = join(ROOT, 'recordings');
const FLOORS = JSON.parse(readFileSync(join(RECORDINGS, 'accuracy-floors.json'), 'utf8')) as Record<string, Floor | string>;
const AGENTS = readdirSync(RECORDINGS).filter((name) => statSync(join(RECORDINGS, name)).isDirectory());

describe('accuracy floors over the committed recordings', () => {
  it('has a floor for every agent with recordings', () => {
    for (const agent of AGENTS) expect(typeof FLOORS[agent], `recordings/accuracy-floors.json has no floor for ${agent}`).toBe('object');
  });

  it.each(AGENTS)('%s stays at or above its floors', async (agent) => {
    const floor = FLOORS[agent] as Floor;

    const { report } = await evaluateRecordings([join(RECORDINGS, agent)], { env: {} });

    expect(report.files.length).toBeGreaterThan(0);
    const total = report.total;
    expect(measured(total.accuracy, `${agent} accuracy`)).toBeGreaterThanOrEqual(floor.accuracy);
    expect(measured(total.per_state.blocked.recall, `${agent} blocked recall`)).toBeGreaterThanOrEqual(floor.blocked_recall);
    expect(total.spurious_transitions).toBeLessThanOrEqual(floor.max_spurious);
    expect(measured(total.latency_ms.p95, `${agent} p95 latency`)).toBeLessThanOrEqual(floor.max_p95_ms);
  });
});

/**
 * A floor is a claim about a measured number: a metric the recordings cannot measure (no
 * blocked labels, no transitions) fails here instead of passing whatever the detector does.
 */
function measured(value: number | null | undefined, what: string): number {
  if (value === null || value === undefined) throw new Error(`${what}: not measured (null); the recordings give no sample for it, so the floor would test nothing`);
  return value;
}
