/**
 * The ps source (macOS's process evidence) against this machine's real ps: procps reads the same
 * columns as BSD ps. Waiting here is for ps and the processes to answer, not a measurement.
 */
import { spawn, type ChildProcess as NodeChild } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openProcessProbe, type ProcessProbe } from '../../../src/adapters/process/evidence-source.js';
import { createPsProbe } from '../../../src/adapters/process/ps-probe.js';
import type { ProcessEvidence } from '../../../src/core/types.js';

const PS = ['/bin/ps', '/usr/bin/ps'].find((path) => existsSync(path));
const spawned: NodeChild[] = [];
const dirs: string[] = [];
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  for (const proc of spawned.splice(0)) if (proc.pid !== undefined) process.kill(-proc.pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Samples every 50 ms until `accept` holds or ~5 s pass; returns the last sample. */
async function sampleUntil(probe: ProcessProbe, accept: (e: ProcessEvidence) => boolean): Promise<ProcessEvidence> {
  let last = probe.sample(performance.now());
  for (let i = 0; i < 100 && !accept(last); i += 1) {
    await pause(50);
    last = probe.sample(performance.now());
  }
  return last;
}

/** A stand-in ps: a shell script that counts its runs in `runs` and then does `body`. */
function fakePs(body: string): { path: string; runs: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'agentwrap-fakeps-'));
  dirs.push(dir);
  const path = join(dir, 'ps');
  writeFileSync(path, `#!/bin/sh\necho run >> ${dir}/runs\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => (existsSync(join(dir, 'runs')) ? readFileSync(join(dir, 'runs'), 'utf8').split('\n').length - 1 : 0) };
}

/** Linux's ps reads /proc itself: without /proc it has nothing to list. */
const canPsList = PS !== undefined && (process.platform !== 'linux' || existsSync('/proc/self/stat'));

describe.skipIf(!canPsList)('ps probe on this machine', () => {
  it('finds both sleep children of a shell from the ps listing', async () => {
    const shell = spawn('sh', ['-c', 'sleep 5 & sleep 5'], { stdio: 'ignore', detached: true });
    spawned.push(shell);
    const probe = createPsProbe({ pid: shell.pid ?? -1 }, { psPath: PS ?? '' });

    const evidence = await sampleUntil(probe, (e) => e.sampled && (e.children ?? []).filter((c) => c.comm === 'sleep').length >= 2);

    expect(evidence).toMatchObject({ sampled: true, agentState: 'S' });
    expect(evidence.sampled && evidence.children?.map((c) => c.comm)).toEqual(['sleep', 'sleep']);
    expect(probe.coverage()).toEqual({ source: 'ps', missing: [], why: undefined });
  });

  it('finds the agent as the first child of the job-control helper when its pid is not known', async () => {
    // The helper stands in for adapters/pty's job-control shell: its one child is the "agent".
    const helper = spawn('sh', ['-c', 'sh -c "sleep 5 & sleep 5"; :'], { stdio: 'ignore', detached: true });
    spawned.push(helper);
    const probe = createPsProbe({ firstChildOf: helper.pid ?? -1 }, { psPath: PS ?? '' });

    const evidence = await sampleUntil(probe, (e) => e.sampled && (e.children ?? []).length >= 2);

    expect(evidence.sampled && evidence.children?.map((c) => c.comm)).toEqual(['sleep', 'sleep']);
  });
});

describe('ps probe bounds', () => {
  it('never runs a second ps while one is running: samples meanwhile return the last listing', async () => {
    const ps = fakePs('sleep 1');
    const probe = createPsProbe({ pid: process.pid }, { psPath: ps.path });

    const first = probe.sample(0);
    for (let i = 1; i <= 5; i += 1) probe.sample(i * 1000);
    await sampleUntil(probe, () => ps.runs() >= 1);

    expect(first).toEqual({ sampled: false, reason: 'the first ps listing is not back yet' });
    expect(ps.runs()).toBe(1);
  });

  it('kills a ps that hangs and reads its sample as absent, with every kind missing', async () => {
    const ps = fakePs('exec sleep 30');
    const probe = createPsProbe({ pid: process.pid }, { psPath: ps.path, timeoutMs: 200 });

    const evidence = await sampleUntil(probe, (e) => !e.sampled && e.reason !== 'the first ps listing is not back yet');

    expect(evidence.sampled ? '' : evidence.reason).toMatch(/failed/);
    expect(probe.coverage().missing).toEqual(['cpu', 'children', 'agent-state', 'foreground']);
  });

  it('cuts off a listing larger than its byte bound instead of reading it all', async () => {
    const ps = fakePs('yes "  1 0 1 -1 S 0:00.00 filler"');
    const probe = createPsProbe({ pid: process.pid }, { psPath: ps.path, maxBytes: 64 * 1024 });

    const evidence = await sampleUntil(probe, (e) => !e.sampled && e.reason !== 'the first ps listing is not back yet');

    expect(evidence.sampled ? '' : evidence.reason).toMatch(/maxBuffer/);
  });
});

describe('choosing the process evidence source', () => {
  it('on Linux without /proc reports the evidence as unavailable, saying why', () => {
    const empty = mkdtempSync(join(tmpdir(), 'agentwrap-noproc-'));
    dirs.push(empty);
    const probe = openProcessProbe({ pid: process.pid }, { platform: 'linux', procRoot: empty, path: process.env['PATH'] });

    expect(probe.sample(0)).toEqual({ sampled: false, reason: `no /proc (nothing at ${empty}/self/stat): process evidence unavailable` });
    expect(probe.coverage()).toMatchObject({ source: 'none', missing: ['cpu', 'children', 'agent-state', 'foreground'] });
  });

  it.skipIf(PS === undefined)('elsewhere without /proc uses ps', () => {
    const empty = mkdtempSync(join(tmpdir(), 'agentwrap-noproc-'));
    dirs.push(empty);

    expect(openProcessProbe({ pid: process.pid }, { platform: 'darwin', procRoot: empty, path: process.env['PATH'] }).source).toBe('ps');
  });

  it.skipIf(!existsSync('/proc/self/stat'))('uses /proc where it is there', () => {
    expect(openProcessProbe({ pid: process.pid }).source).toBe('procfs');
  });
});
