/**
 * Pure reading of /proc data: stat lines, the process tree, CPU rate, foreground ownership. The
 * adapter (adapters/process/procfs-probe.ts) only reads files and hands their text here, so all of it is
 * testable with synthetic input.
 */
import { CPU_RATE_MIN_WINDOW_MS } from '../policy.js';
import type { ChildProcess, ProcessEvidence } from '../types.js';

/**
 * Clock ticks per second for /proc CPU times. `getconf CLK_TCK` is 100 on every Linux ABI in
 * use (the kernel's USER_HZ is fixed at 100 for userspace); spawning getconf per probe would cost
 * more than the whole sample, so the probe assumes this unless told otherwise.
 */
export const LINUX_CLOCK_TICKS_PER_SEC = 100;

/** The fields of /proc/<pid>/stat the detector uses (see proc(5); field numbers 1-based). */
export interface ProcStat {
  readonly pid: number;
  readonly comm: string;
  /** (3) R running, S sleeping, D disk sleep, T stopped, t tracing stop, Z zombie, X dead, I idle. */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly ttyNr: number;
  /** (8) Foreground process group of the controlling terminal; -1 without one. */
  readonly tpgid: number;
  readonly utime: number;
  readonly stime: number;
  /** (16, 17) CPU of waited-for children: when a child is reaped its time moves here, so tree sums stay continuous. */
  readonly cutime: number;
  readonly cstime: number;
  readonly numThreads: number;
  readonly starttime: number;
}

/**
 * Parses one /proc/<pid>/stat line. `comm` sits in parentheses and may itself contain spaces and
 * parentheses (a process can name itself `a) (b`), so it runs from the first `(` to the LAST `)`.
 * Returns undefined for anything that is not a well-formed stat line.
 */
export function parseStat(line: string): ProcStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 1 || close < open) return undefined;
  const pid = Number(line.slice(0, open).trim());
  const rest = line.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const field = (n: number): number => Number(rest[n - 3]);
  const state = rest[0];
  if (!Number.isInteger(pid) || pid <= 0 || state === undefined || rest.length < 20) return undefined;
  const stat: ProcStat = {
    pid,
    comm: line.slice(open + 1, close),
    state,
    ppid: field(4),
    pgrp: field(5),
    session: field(6),
    ttyNr: field(7),
    tpgid: field(8),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    numThreads: field(20),
    starttime: field(22),
  };
  const numbers = [stat.ppid, stat.pgrp, stat.tpgid, stat.utime, stat.stime, stat.cutime, stat.cstime];
  return numbers.every(Number.isFinite) ? stat : undefined;
}

/** Parses the text of /proc/<pid>/task/<tid>/children: space-separated pids. */
export function parseChildrenList(text: string): number[] {
  return text
    .split(/\s+/)
    .filter((word) => word !== '')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/**
 * All descendants of `rootPid` from (pid, ppid) pairs, breadth first, excluding the root. Cycles
 * (impossible in a consistent snapshot, possible across a racy read with pid reuse) are cut, and
 * at most `limit` pids are returned.
 */
export function descendantsFromParents(
  pairs: readonly { readonly pid: number; readonly ppid: number }[],
  rootPid: number,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const { pid, ppid } of pairs) {
    const list = childrenOf.get(ppid);
    if (list === undefined) childrenOf.set(ppid, [pid]);
    else list.push(pid);
  }
  return descendantsFromChildren((pid) => childrenOf.get(pid) ?? [], rootPid, limit);
}

/** All descendants of `rootPid`, breadth first, given each pid's direct children (e.g. from the children files). */
export function descendantsFromChildren(
  childrenOf: (pid: number) => readonly number[],
  rootPid: number,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const seen = new Set<number>([rootPid]);
  const out: number[] = [];
  const queue: number[] = [rootPid];
  for (let head = 0; head < queue.length && out.length < limit; head += 1) {
    const pid = queue[head];
    if (pid === undefined) break;
    for (const child of childrenOf(pid)) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** Total CPU ticks of a set of processes, reaped children included. */
export function treeCpuTicks(stats: readonly ProcStat[]): number {
  return stats.reduce((sum, s) => sum + s.utime + s.stime + s.cutime + s.cstime, 0);
}

export interface CpuSample {
  readonly totalTicks: number;
  readonly atMs: number;
}

/**
 * CPU rate in cores (1 = one full core) between two samples. Undefined on the first sample, when
 * time did not advance, or when the total went down (a descendant exited and was reaped outside
 * the tree, taking its ticks along): the true rate is then unknown, and unknown is not zero.
 */
export function cpuRate(
  previous: CpuSample | undefined,
  totalTicks: number,
  nowMs: number,
  clockTicksPerSec: number = LINUX_CLOCK_TICKS_PER_SEC,
): { readonly rate: number | undefined; readonly sample: CpuSample } {
  const sample = { totalTicks, atMs: nowMs };
  if (previous === undefined) return { rate: undefined, sample };
  const elapsedMs = nowMs - previous.atMs;
  const deltaTicks = totalTicks - previous.totalTicks;
  if (elapsedMs <= 0 || deltaTicks < 0) return { rate: undefined, sample };
  return { rate: deltaTicks / clockTicksPerSec / (elapsedMs / 1000), sample };
}

/** The CPU baseline a probe keeps between samples, and the rate it last measured. */
export interface CpuTracker {
  readonly baseline: CpuSample | undefined;
  readonly lastRate: number | undefined;
}

export const INITIAL_CPU_TRACKER: CpuTracker = { baseline: undefined, lastRate: undefined };

/**
 * The tree's CPU rate, measured over at least CPU_RATE_MIN_WINDOW_MS. Samples closer together
 * (a quiet recheck 100 ms after the tick) repeat the last rate instead of measuring: at 100
 * ticks/s one stray tick in a 10 ms window would read as a full core of "busy".
 */
export function trackCpu(
  tracker: CpuTracker,
  totalTicks: number,
  nowMs: number,
  clockTicksPerSec: number = LINUX_CLOCK_TICKS_PER_SEC,
): { readonly rate: number | undefined; readonly tracker: CpuTracker } {
  if (tracker.baseline !== undefined && nowMs - tracker.baseline.atMs < CPU_RATE_MIN_WINDOW_MS && nowMs >= tracker.baseline.atMs) {
    return { rate: tracker.lastRate, tracker };
  }
  const { rate, sample } = cpuRate(tracker.baseline, totalTicks, nowMs, clockTicksPerSec);
  return { rate, tracker: { baseline: sample, lastRate: rate } };
}

/**
 * Whether the process's group owns its terminal's foreground. Undefined when it has no
 * controlling terminal (tpgid ≤ 0): not knowing is not "background".
 */
export function isForegroundGroup(stat: Pick<ProcStat, 'pgrp' | 'tpgid'>): boolean | undefined {
  if (stat.tpgid <= 0) return undefined;
  return stat.tpgid === stat.pgrp;
}

export function isStoppedState(state: string): boolean {
  return state === 'T' || state === 't';
}

export function isZombieState(state: string): boolean {
  return state === 'Z' || state === 'X';
}

/**
 * One ProcessEvidence from the agent's stat and its descendants' stats (already read), plus the
 * CPU tracker. Returns the next tracker for the caller to keep.
 */
export function processEvidenceFrom(
  root: ProcStat,
  descendants: readonly ProcStat[],
  cpu: CpuTracker,
  nowMs: number,
  clockTicksPerSec: number = LINUX_CLOCK_TICKS_PER_SEC,
): { readonly evidence: ProcessEvidence; readonly cpu: CpuTracker } {
  const { rate, tracker } = trackCpu(cpu, treeCpuTicks([root, ...descendants]), nowMs, clockTicksPerSec);
  const children: ChildProcess[] = descendants.map((s) => ({ pid: s.pid, comm: s.comm, state: s.state }));
  return {
    evidence: {
      sampled: true,
      cpuRate: rate,
      children,
      agentState: root.state,
      isStopped: isStoppedState(root.state),
      isZombie: isZombieState(root.state),
      isForeground: isForegroundGroup(root),
      atMs: nowMs,
    },
    cpu: tracker,
  };
}
