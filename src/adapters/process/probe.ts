/**
 * Samples the agent's own process tree from /proc: the agent's stat, then its descendants
 * through /proc/<pid>/task/<tid>/children, recursively. It never scans all of /proc (the
 * per-pane full scans of other tools are what burned 85 % CPU). All interpretation is in
 * core/detector/process.ts; this file only reads text. Without /proc, or without the children files
 * (a kernel built without CONFIG_PROC_CHILDREN), the sample is absent, never quiet.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import {
  descendantsFromChildren,
  LINUX_CLOCK_TICKS_PER_SEC,
  parseChildrenList,
  parseStat,
  processEvidenceFrom,
  INITIAL_CPU_TRACKER,
  isZombieState,
  type CpuTracker,
  type ProcStat,
} from '../../core/detector/process.js';
import type { ProcessEvidence } from '../../core/types.js';

/** Bounds one sample's walk: a fork bomb under the agent must not make every tick read thousands of files. */
export const MAX_TREE_PROCESSES = 256;

export interface ProcessProbe {
  /** One sample at `nowMs` (session clock); keeps the CPU sample for the next call's rate. */
  sample(nowMs: number): ProcessEvidence;
}

export interface ProcessProbeOptions {
  /** Where procfs is mounted; tests may point elsewhere. */
  readonly procRoot?: string;
  readonly clockTicksPerSec?: number;
  readonly maxProcesses?: number;
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * One buffer for every small /proc read: a stat line is ~300 bytes and a children list a few
 * bytes per child. A file that fills it is read again whole (readFileSync).
 */
const READ_BUFFER = Buffer.allocUnsafe(16 * 1024);

function readSmallFile(path: string): string {
  const fd = openSync(path, 'r');
  let length = 0;
  try {
    for (;;) {
      const read = readSync(fd, READ_BUFFER, length, READ_BUFFER.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === READ_BUFFER.length) return readFileSync(path, 'utf8');
    }
  } finally {
    closeSync(fd);
  }
  // procfs text is ASCII but for a process name (comm), which may be UTF-8.
  return READ_BUFFER.toString('utf8', 0, length);
}

/** Reads a file, or undefined when it vanished (ENOENT/ESRCH: the process exited mid-read). */
function readIfPresent(path: string): string | undefined {
  try {
    return readSmallFile(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    throw error;
  }
}

export function createProcessProbe(rootPid: number, options: ProcessProbeOptions = {}): ProcessProbe {
  const procRoot = options.procRoot ?? '/proc';
  const clockTicksPerSec = options.clockTicksPerSec ?? LINUX_CLOCK_TICKS_PER_SEC;
  const maxProcesses = options.maxProcesses ?? MAX_TREE_PROCESSES;
  let cpu: CpuTracker = INITIAL_CPU_TRACKER;
  let hasChildrenFiles: boolean | undefined;

  const readStat = (pid: number): ProcStat | undefined => {
    const text = readIfPresent(`${procRoot}/${pid}/stat`);
    return text === undefined ? undefined : parseStat(text);
  };

  /** Stats read by this sample's walk, so no process's stat is read twice in one sample. */
  let walked = new Map<number, ProcStat | undefined>();
  const walkedStat = (pid: number): ProcStat | undefined => {
    if (walked.has(pid)) return walked.get(pid);
    const stat = readStat(pid);
    walked.set(pid, stat);
    return stat;
  };

  /** Direct children of every thread of `pid` (a child belongs to the thread that forked it). */
  const readChildren = (pid: number): number[] => {
    const stat = walkedStat(pid);
    // Gone since its parent listed it: it has no children.
    if (stat === undefined) return [];
    // One live thread in a live process is the leader itself (tid = pid): its children file is the
    // only one, so the task directory need not be listed. (A leader that exited before its other
    // threads leaves the process a zombie with a live thread, which takes the full path.)
    if (stat.numThreads === 1 && !isZombieState(stat.state)) {
      return parseChildrenList(readIfPresent(`${procRoot}/${pid}/task/${pid}/children`) ?? '');
    }
    let tids: string[];
    try {
      tids = readdirSync(`${procRoot}/${pid}/task`);
    } catch (error) {
      const code = errorCode(error);
      // The process exited between reading its parent's children file and now: it has no children.
      if (code === 'ENOENT' || code === 'ESRCH') return [];
      throw error;
    }
    return tids.flatMap((tid) => parseChildrenList(readIfPresent(`${procRoot}/${pid}/task/${tid}/children`) ?? ''));
  };

  const sampleOnce = (nowMs: number): ProcessEvidence => {
    if (!Number.isInteger(rootPid) || rootPid <= 0) return { sampled: false, reason: `no process id (${rootPid})` };
    walked = new Map();
    const root = walkedStat(rootPid);
    if (root === undefined) {
      const hasProc = readIfPresent(`${procRoot}/self/stat`) !== undefined;
      return { sampled: false, reason: hasProc ? `process ${rootPid} not found` : `no procfs at ${procRoot}` };
    }
    if (hasChildrenFiles === undefined && !isZombieState(root.state)) {
      // Checked once: the kernel either has CONFIG_PROC_CHILDREN or not, for the whole session.
      // (A zombie has no task directory, so its missing children file says nothing about the kernel.)
      hasChildrenFiles = readIfPresent(`${procRoot}/${rootPid}/task/${rootPid}/children`) !== undefined;
    }
    if (hasChildrenFiles === false) {
      return { sampled: false, reason: `${procRoot}/<pid>/task/<tid>/children is missing (kernel without CONFIG_PROC_CHILDREN)` };
    }
    const descendantPids = descendantsFromChildren(readChildren, rootPid, maxProcesses);
    const descendants = descendantPids.map(walkedStat).filter((stat): stat is ProcStat => stat !== undefined);
    const result = processEvidenceFrom(root, descendants, cpu, nowMs, clockTicksPerSec);
    cpu = result.cpu;
    const evidence = result.evidence;
    return evidence;
  };

  return {
    sample(nowMs: number): ProcessEvidence {
      try {
        return sampleOnce(nowMs);
      } catch (error) {
        // Soft-fail law: a probe failure (EACCES under hardening, an odd procfs) must not stop the
        // session; the detector reads it as absent evidence, and the reason travels to explain.
        return { sampled: false, reason: `probe failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

/**
 * The CPU of `rootPid`'s process tree since the previous call, in cores; undefined on the first
 * call and when the tree cannot be read (no /proc). For the first-screen wait (launch/first-screen.ts).
 */
export function treeCpuRate(rootPid: number, options: ProcessProbeOptions = {}): () => number | undefined {
  const probe = createProcessProbe(rootPid, options);
  return () => {
    const sample = probe.sample(performance.now());
    return sample.sampled ? sample.cpuRate : undefined;
  };
}
