/**
 * The probe against the real /proc of this machine: real processes, real stat files. Waiting
 * here is for processes to start or burn CPU, not a measurement of speed.
 */
import { spawn, type ChildProcess as NodeChild } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessProbe } from '../../src/adapters/process-probe.js';
import type { ProcessEvidence } from '../../src/core/types.js';

const hasProc = existsSync('/proc/self/stat');
const spawned: NodeChild[] = [];

function start(script: string): NodeChild {
  const proc = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
  spawned.push(proc);
  return proc;
}

function pidOf(proc: NodeChild): number {
  if (proc.pid === undefined) throw new Error('spawn gave no pid');
  return proc.pid;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Samples until `accept` holds or ~3 s pass; returns the last sample. */
async function sampleUntil(sample: (nowMs: number) => ProcessEvidence, accept: (e: ProcessEvidence) => boolean): Promise<ProcessEvidence> {
  let last = sample(performance.now());
  for (let i = 0; i < 60 && !accept(last); i += 1) {
    await pause(50);
    last = sample(performance.now());
  }
  return last;
}

afterEach(() => {
  for (const proc of spawned.splice(0)) {
    if (proc.pid === undefined) continue;
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch (error) {
      // The group already exited (the test's own kill, or the script finished): nothing to clean.
      if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
    }
  }
});

describe.skipIf(!hasProc)('process probe on /proc', () => {
  it('finds both sleep children of a shell, and only those', async () => {
    const shell = start('sleep 5 & sleep 5');
    const probe = createProcessProbe(pidOf(shell));

    const evidence = await sampleUntil(probe.sample, (e) => e.sampled && e.children.filter((c) => c.comm === 'sleep').length >= 2);

    expect(evidence.sampled).toBe(true);
    if (!evidence.sampled) return;
    expect(evidence.children.map((c) => c.comm)).toEqual(['sleep', 'sleep']);
    expect(evidence.isStopped).toBe(false);
    expect(createProcessProbe(pidOf(shell)).sample(0)).toMatchObject({ sampled: true, cpuRate: undefined });
  });

  it('measures a busy child as more than half a core', async () => {
    const shell = start('while :; do :; done & wait');
    const probe = createProcessProbe(pidOf(shell));
    await sampleUntil(probe.sample, (e) => e.sampled && e.children.length >= 1);
    probe.sample(performance.now());

    await pause(1000);
    const evidence = probe.sample(performance.now());

    expect(evidence.sampled).toBe(true);
    if (!evidence.sampled) return;
    expect(evidence.cpuRate).toBeGreaterThan(0.5);
  });

  it('sees a SIGSTOPped agent as stopped, and a quiet one at near zero CPU', async () => {
    const shell = start('sleep 5');
    const probe = createProcessProbe(pidOf(shell));
    await sampleUntil(probe.sample, (e) => e.sampled);
    process.kill(pidOf(shell), 'SIGSTOP');

    const evidence = await sampleUntil(probe.sample, (e) => e.sampled && e.isStopped);

    expect(evidence).toMatchObject({ sampled: true, isStopped: true, agentState: 'T', isZombie: false });
    if (evidence.sampled) expect(evidence.cpuRate ?? 0).toBeLessThan(0.05);
  });

  it('sees an exited, unreaped process as a zombie, both as a child and as the probed agent', async () => {
    const shell = start('sh -c "exit 0" & exec sleep 5');
    // The inner sh exits at once; its parent (now `sleep`, via exec) never reaps it.
    const probe = createProcessProbe(pidOf(shell));

    const evidence = await sampleUntil(probe.sample, (e) => e.sampled && e.children.some((c) => c.state === 'Z'));
    const zombiePid = evidence.sampled ? evidence.children[0]?.pid : undefined;
    const asAgent = createProcessProbe(zombiePid ?? -1).sample(0);

    expect(evidence.sampled && evidence.children.map((c) => c.state)).toEqual(['Z']);
    expect(asAgent).toMatchObject({ sampled: true, isZombie: true, agentState: 'Z', children: [] });
  });

  it('gives a clear, unsampled result for a pid that does not exist', () => {
    const evidence = createProcessProbe(2 ** 22 + 12_345).sample(0);

    expect(evidence).toEqual({ sampled: false, reason: `process ${2 ** 22 + 12_345} not found` });
  });

  it('reports a missing procfs as absent, not quiet', () => {
    const empty = mkdtempSync(join(tmpdir(), 'agentwrap-noproc-'));
    try {
      const evidence = createProcessProbe(process.pid, { procRoot: empty }).sample(0);

      expect(evidence).toEqual({ sampled: false, reason: `no procfs at ${empty}` });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
