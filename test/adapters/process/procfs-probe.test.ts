/**
 * The probe against the real /proc of this machine: real processes, real stat files. Waiting
 * here is for processes to start or burn CPU, not a measurement of speed.
 */
import { spawn, type ChildProcess as NodeChild } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcfsProbe } from '../../../src/adapters/process/procfs-probe.js';
import type { ProcessEvidence } from '../../../src/core/types.js';

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
    const probe = createProcfsProbe(pidOf(shell));

    const evidence = await sampleUntil((now) => probe.sample(now), (e) => e.sampled && (e.children ?? []).filter((c) => c.comm === 'sleep').length >= 2);

    expect(evidence.sampled).toBe(true);
    if (!evidence.sampled) return;
    expect(evidence.children?.map((c) => c.comm)).toEqual(['sleep', 'sleep']);
    expect(evidence.isStopped).toBe(false);
    expect(createProcfsProbe(pidOf(shell)).sample(0)).toMatchObject({ sampled: true, cpuRate: undefined });
  });

  // A busy loop's share of a core depends on what else runs (two busy loops beside the suite
  // leave it well under half a core on 2 cores); that it registers as busy at all is the point.
  it('measures a busy child as using CPU', async () => {
    const shell = start('while :; do :; done & wait');
    const probe = createProcfsProbe(pidOf(shell));
    await sampleUntil((now) => probe.sample(now), (e) => e.sampled && (e.children ?? []).length >= 1);
    probe.sample(performance.now());

    await pause(1000);
    const evidence = probe.sample(performance.now());

    expect(evidence.sampled).toBe(true);
    if (!evidence.sampled) return;
    expect(evidence.cpuRate).toBeGreaterThan(0.05);
  });

  it('sees a SIGSTOPped agent as stopped, and a quiet one at near zero CPU', async () => {
    const shell = start('sleep 5');
    const probe = createProcfsProbe(pidOf(shell));
    await sampleUntil((now) => probe.sample(now), (e) => e.sampled);
    process.kill(pidOf(shell), 'SIGSTOP');

    const evidence = await sampleUntil((now) => probe.sample(now), (e) => e.sampled && e.isStopped);

    expect(evidence).toMatchObject({ sampled: true, isStopped: true, agentState: 'T', isZombie: false });
    if (evidence.sampled) expect(evidence.cpuRate ?? 0).toBeLessThan(0.05);
  });

  it('sees an exited, unreaped process as a zombie, both as a child and as the probed agent', async () => {
    const shell = start('sh -c "exit 0" & exec sleep 5');
    // The inner sh exits at once; its parent (now `sleep`, via exec) never reaps it.
    const probe = createProcfsProbe(pidOf(shell));

    const evidence = await sampleUntil((now) => probe.sample(now), (e) => e.sampled && e.children?.some((c) => c.state === 'Z') === true);
    const zombiePid = evidence.sampled ? evidence.children?.[0]?.pid : undefined;
    const asAgent = createProcfsProbe(zombiePid ?? -1).sample(0);

    expect(evidence.sampled && evidence.children?.map((c) => c.state)).toEqual(['Z']);
    expect(asAgent).toMatchObject({ sampled: true, isZombie: true, agentState: 'Z', children: [] });
  });

  it('finds a child forked by a thread other than the main one (worker thread)', async () => {
    // The child hangs off the worker's task (/proc/<pid>/task/<worker tid>/children), so the walk
    // must list every thread of a multi-threaded process, not only the leader's children file.
    const script = [
      "const { Worker } = require('node:worker_threads');",
      "new Worker(\"require('node:child_process').spawn('sleep', ['5'], { stdio: 'ignore' }); setInterval(() => {}, 1000);\", { eval: true });",
      'setInterval(() => {}, 1000);',
    ].join(' ');
    const node = spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached: true });
    spawned.push(node);
    const probe = createProcfsProbe(pidOf(node));

    const evidence = await sampleUntil((now) => probe.sample(now), (e) => e.sampled && e.children?.some((c) => c.comm === 'sleep') === true);

    expect(evidence.sampled && evidence.children?.map((c) => c.comm)).toEqual(['sleep']);
  });

  it('gives a clear, unsampled result for a pid that does not exist', () => {
    const evidence = createProcfsProbe(2 ** 22 + 12_345).sample(0);

    expect(evidence).toEqual({ sampled: false, reason: `process ${2 ** 22 + 12_345} not found` });
  });

  it('reports a missing procfs as absent, not quiet', () => {
    const empty = mkdtempSync(join(tmpdir(), 'agentwrap-noproc-'));
    try {
      const evidence = createProcfsProbe(process.pid, { procRoot: empty }).sample(0);

      expect(evidence).toEqual({ sampled: false, reason: `no procfs at ${empty}` });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

/** A stat line as the kernel writes it; fields 3 (state) and 20 (num_threads) are the ones that matter here. */
function statLine(pid: number, ppid: number, state: string, threads: number): string {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime prio nice threads itreal starttime
  return `${pid} (fake) ${state} ${ppid} ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 ${threads} 0 100 0 0\n`;
}

describe('process probe on a fake procfs', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function fakeProcess(pid: number, ppid: number, state: string, tasks: Record<number, number[]>): void {
    mkdirSync(join(root, String(pid), 'task'), { recursive: true });
    writeFileSync(join(root, String(pid), 'stat'), statLine(pid, ppid, state, Object.keys(tasks).length));
    for (const [tid, children] of Object.entries(tasks)) {
      mkdirSync(join(root, String(pid), 'task', tid), { recursive: true });
      writeFileSync(join(root, String(pid), 'task', tid, 'children'), children.map((c) => `${c} `).join(''));
    }
  }

  it('reads a single-threaded process through its own children file, and every thread of a multi-threaded one', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    fakeProcess(100, 1, 'S', { 100: [], 101: [200] }); // two threads: the child hangs off thread 101
    fakeProcess(200, 100, 'S', { 200: [300] }); // one thread
    fakeProcess(300, 200, 'R', { 300: [] });
    // A stray task the kernel would not show for a one-thread process, with a live child: proof
    // that the one-thread process's task directory is not listed.
    mkdirSync(join(root, '200', 'task', '999'), { recursive: true });
    writeFileSync(join(root, '200', 'task', '999', 'children'), '400 ');
    fakeProcess(400, 200, 'S', { 400: [] });

    const evidence = createProcfsProbe(100, { procRoot: root }).sample(0);

    expect(evidence.sampled && evidence.children?.map((c) => c.pid)).toEqual([200, 300]);
  });

  it('lists a process\'s threads again only when they changed: the same count with one replaced is still walked', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    fakeProcess(100, 1, 'S', { 100: [], 101: [] });
    fakeProcess(200, 100, 'S', { 200: [] });
    const probe = createProcfsProbe(100, { procRoot: root });
    expect(probe.sample(0)).toMatchObject({ sampled: true, children: [] });

    // A stray task the stat does not count (it still says two threads), with a live child: the
    // second sample reads the two threads it listed before and does not list the directory again.
    mkdirSync(join(root, '100', 'task', '102'), { recursive: true });
    writeFileSync(join(root, '100', 'task', '102', 'children'), '200 ');
    expect(probe.sample(1_000)).toMatchObject({ sampled: true, children: [] });

    // Thread 101 exited and 103 started, with a child: the count is the same, the list is not.
    rmSync(join(root, '100', 'task', '101'), { recursive: true });
    rmSync(join(root, '100', 'task', '102'), { recursive: true });
    mkdirSync(join(root, '100', 'task', '103'), { recursive: true });
    writeFileSync(join(root, '100', 'task', '103', 'children'), '200 ');
    const evidence = probe.sample(2_000);

    expect(evidence.sampled && evidence.children?.map((c) => c.pid)).toEqual([200]);
  });

  it('lists every task of a zombie leader whose last thread still runs', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    fakeProcess(100, 1, 'S', { 100: [200] });
    // The leader exited before its other thread: the process shows as a zombie with one thread.
    mkdirSync(join(root, '200', 'task', '201'), { recursive: true });
    writeFileSync(join(root, '200', 'stat'), statLine(200, 100, 'Z', 1));
    writeFileSync(join(root, '200', 'task', '201', 'children'), '300 ');
    fakeProcess(300, 200, 'S', { 300: [] });

    const evidence = createProcfsProbe(100, { procRoot: root }).sample(0);

    expect(evidence.sampled && evidence.children?.map((c) => c.pid)).toEqual([200, 300]);
  });

  it('without the children files still reads the agent\'s own CPU, state and foreground, and calls the children unknown', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    mkdirSync(join(root, 'self'), { recursive: true });
    writeFileSync(join(root, 'self', 'stat'), statLine(1, 0, 'S', 1));
    // A kernel without CONFIG_PROC_CHILDREN: the task directory has no children file.
    mkdirSync(join(root, '100', 'task', '100'), { recursive: true });
    writeFileSync(join(root, '100', 'stat'), statLine(100, 1, 'T', 1));
    const probe = createProcfsProbe(100, { procRoot: root });

    const evidence = probe.sample(0);

    expect(evidence).toMatchObject({ sampled: true, agentState: 'T', isStopped: true, children: undefined });
    expect(probe.coverage()).toMatchObject({ source: 'procfs', missing: ['children'] });
  });

  it('keeps a child whose stat it may not read (hidepid) as a live child of unknown state', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    // This test's own pid stands for the hidden child: alive, but absent from this /proc.
    fakeProcess(100, 1, 'S', { 100: [process.pid, 2 ** 22 + 4321] });

    const evidence = createProcfsProbe(100, { procRoot: root }).sample(0);

    // The other listed pid is gone (not alive): it is not a child any more.
    expect(evidence.sampled && evidence.children).toEqual([{ pid: process.pid, comm: '?', state: '?' }]);
  });

  it('names an agent that /proc hides as hidden, with every kind of evidence missing, not as gone', () => {
    root = mkdtempSync(join(tmpdir(), 'agentwrap-fakeproc-'));
    fakeProcess(1, 0, 'S', { 1: [] });
    mkdirSync(join(root, 'self'));
    writeFileSync(join(root, 'self', 'stat'), statLine(1, 0, 'S', 1));
    const probe = createProcfsProbe(process.pid, { procRoot: root });

    const evidence = probe.sample(0);

    expect(evidence).toEqual({ sampled: false, reason: `${root} does not show process ${process.pid} (hidepid, or a /proc of another pid namespace)` });
    expect(probe.coverage().missing).toEqual(['cpu', 'children', 'agent-state', 'foreground']);
  });
});
