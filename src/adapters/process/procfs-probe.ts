/**
 * The process-evidence source on Linux: the agent's own tree from procfs. It reads the agent's
 * stat, then its descendants through /proc/<pid>/task/<tid>/children, recursively. It never
 * scans all of /proc (the per-pane full scans of other tools are what burned 85 % CPU). All
 * interpretation is in core/detector/process.ts; this file only reads text.
 * A restricted /proc gives what it still can, per field: without the children files (a kernel
 * without CONFIG_PROC_CHILDREN) the agent's own CPU, state and foreground are still read and the
 * children are unknown; a child whose stat is hidden (hidepid, another user's process) is still
 * a live child, of unknown state. Without /proc, or with the agent itself hidden, the sample is
 * absent, never quiet.
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
import { PROCESS_EVIDENCE_KINDS, type ProcessCoverage } from '../../core/detector/process-coverage.js';
import type { ChildProcess, ProcessEvidence } from '../../core/types.js';
import { isPidAlive } from './alive.js';
import type { ProcessProbe } from './evidence-source.js';

/** Bounds one sample's walk: a fork bomb under the agent must not make every tick read thousands of files. */
export const MAX_TREE_PROCESSES = 256;

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

/** Where a stat could not be read: a hidden one (EACCES under hidepid=1) is still a process. */
const HIDDEN_CODES = new Set(['EACCES', 'EPERM']);

/**
 * Why the agent's own stat is not there: a /proc that hides it, no /proc, or the agent is gone
 * (then nothing is lost: there is nothing left to see).
 */
function whyRootIsMissing(procRoot: string, rootPid: number, isHidden: boolean): { readonly reason: string; readonly loss: ProcessCoverage | undefined } {
  const hiddenLoss = (why: string) => ({ reason: why, loss: { source: 'procfs' as const, missing: PROCESS_EVIDENCE_KINDS, why } });
  if (isHidden) return hiddenLoss(`${procRoot} hides process ${rootPid} from this user (hidepid)`);
  if (readIfPresent(`${procRoot}/self/stat`) === undefined) {
    return { reason: `no procfs at ${procRoot}`, loss: { source: 'procfs', missing: PROCESS_EVIDENCE_KINDS, why: `no /proc (nothing at ${procRoot}/self/stat)` } };
  }
  if (!isPidAlive(rootPid)) return { reason: `process ${rootPid} not found`, loss: undefined };
  return hiddenLoss(`${procRoot} does not show process ${rootPid} (hidepid, or a /proc of another pid namespace)`);
}

/**
 * The thread ids of each multi-threaded process as the last sample listed them, and as this one
 * does. Listing a task directory cost more than reading all its children files (~0.15 ms a
 * second for a Node agent's 11 threads on a loaded machine). The last list is reused while it
 * still holds: as many threads as the stat counts and every listed one still there means the
 * very same threads (the kernel hands out thread ids cyclically, so none is reused between
 * two samples); otherwise the directory is listed again.
 */
class ThreadLists {
  private last = new Map<number, readonly string[]>();
  private current = new Map<number, readonly string[]>();

  constructor(private readonly procRoot: string) {}

  /** A new sample: only the processes it walks are remembered for the next. */
  nextSample(): void {
    this.last = this.current;
    this.current = new Map();
  }

  /** Direct children of every thread of multi-threaded `pid`, whose stat counts `numThreads`. */
  childrenOf(pid: number, numThreads: number): number[] {
    const known = this.last.get(pid);
    if (known !== undefined && known.length === numThreads) {
      const lists = this.childrenOfThreads(pid, known);
      if (lists.every((list) => list !== undefined)) {
        this.current.set(pid, known);
        return lists.flat();
      }
    }
    let tids: string[];
    try {
      tids = readdirSync(`${this.procRoot}/${pid}/task`);
    } catch (error) {
      const code = errorCode(error);
      // The process exited between reading its parent's children file and now: it has no children.
      if (code === 'ENOENT' || code === 'ESRCH') return [];
      throw error;
    }
    this.current.set(pid, tids);
    return this.childrenOfThreads(pid, tids).flatMap((list) => list ?? []);
  }

  /** Each thread's children; undefined for a thread that is gone. */
  private childrenOfThreads(pid: number, tids: readonly string[]): (number[] | undefined)[] {
    return tids.map((tid) => {
      const text = readIfPresent(`${this.procRoot}/${pid}/task/${tid}/children`);
      return text === undefined ? undefined : parseChildrenList(text);
    });
  }
}

export function createProcfsProbe(rootPid: number, options: ProcessProbeOptions = {}): ProcessProbe {
  const procRoot = options.procRoot ?? '/proc';
  const clockTicksPerSec = options.clockTicksPerSec ?? LINUX_CLOCK_TICKS_PER_SEC;
  const maxProcesses = options.maxProcesses ?? MAX_TREE_PROCESSES;
  let cpu: CpuTracker = INITIAL_CPU_TRACKER;
  let hasChildrenFiles: boolean | undefined;
  let rootLoss: ProcessCoverage | undefined;

  /** Stats read by this sample's walk, so no process's stat is read twice in one sample. */
  let walked = new Map<number, ProcStat | undefined>();
  /** Processes of this sample's walk that exist but whose stat this user may not read. */
  let hidden = new Set<number>();
  const walkedStat = (pid: number): ProcStat | undefined => {
    if (walked.has(pid)) return walked.get(pid);
    let stat: ProcStat | undefined;
    try {
      const text = readIfPresent(`${procRoot}/${pid}/stat`);
      stat = text === undefined ? undefined : parseStat(text);
      // hidepid=2 makes another user's process vanish from /proc while kill(pid, 0) still finds it.
      if (text === undefined && pid !== rootPid && isPidAlive(pid)) hidden.add(pid);
    } catch (error) {
      if (!HIDDEN_CODES.has(errorCode(error) ?? '')) throw error;
      hidden.add(pid);
    }
    walked.set(pid, stat);
    return stat;
  };

  const threads = new ThreadLists(procRoot);

  /** Direct children of every thread of `pid` (a child belongs to the thread that forked it). */
  const readChildren = (pid: number): number[] => {
    const stat = walkedStat(pid);
    // Gone since its parent listed it, or hidden: no children to read.
    if (stat === undefined) return [];
    // One live thread in a live process is the leader itself (tid = pid): its children file is the
    // only one, so the task directory need not be listed. (A leader that exited before its other
    // threads leaves the process a zombie with a live thread, which takes the full path.)
    if (stat.numThreads === 1 && !isZombieState(stat.state)) {
      return parseChildrenList(readIfPresent(`${procRoot}/${pid}/task/${pid}/children`) ?? '');
    }
    return threads.childrenOf(pid, stat.numThreads);
  };

  const sampleOnce = (nowMs: number): ProcessEvidence => {
    if (!Number.isInteger(rootPid) || rootPid <= 0) return { sampled: false, reason: `no process id (${rootPid})` };
    walked = new Map();
    hidden = new Set();
    threads.nextSample();
    const root = walkedStat(rootPid);
    if (root === undefined) {
      const missing = whyRootIsMissing(procRoot, rootPid, hidden.has(rootPid));
      rootLoss = missing.loss;
      return { sampled: false, reason: missing.reason };
    }
    rootLoss = undefined;
    if (hasChildrenFiles === undefined && !isZombieState(root.state)) {
      // Checked once: the kernel either has CONFIG_PROC_CHILDREN or not, for the whole session.
      // (A zombie has no task directory, so its missing children file says nothing about the kernel.)
      hasChildrenFiles = readIfPresent(`${procRoot}/${rootPid}/task/${rootPid}/children`) !== undefined;
    }
    if (hasChildrenFiles === false) {
      // The agent's own stat still gives its CPU (and its reaped children's), state and foreground.
      const result = processEvidenceFrom(root, [], cpu, nowMs, clockTicksPerSec);
      cpu = result.cpu;
      return result.evidence.sampled ? { ...result.evidence, children: undefined } : result.evidence;
    }
    const descendantPids = descendantsFromChildren(readChildren, rootPid, maxProcesses);
    const descendants = descendantPids.map(walkedStat).filter((stat): stat is ProcStat => stat !== undefined);
    const result = processEvidenceFrom(root, descendants, cpu, nowMs, clockTicksPerSec);
    cpu = result.cpu;
    const unseen: ChildProcess[] = descendantPids.filter((pid) => hidden.has(pid)).map((pid) => ({ pid, comm: '?', state: '?' }));
    if (unseen.length === 0 || !result.evidence.sampled) return result.evidence;
    return { ...result.evidence, children: [...(result.evidence.children ?? []), ...unseen] };
  };

  return {
    source: 'procfs',
    sample(nowMs: number): ProcessEvidence {
      try {
        return sampleOnce(nowMs);
      } catch (error) {
        // Soft-fail law: a probe failure (an odd procfs) must not stop the session; the detector
        // reads it as absent evidence, and the reason travels to explain.
        return { sampled: false, reason: `probe failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    coverage(): ProcessCoverage {
      if (rootLoss !== undefined) return rootLoss;
      if (hasChildrenFiles === false) return { source: 'procfs', missing: ['children'], why: `${procRoot} without task children files (kernel without CONFIG_PROC_CHILDREN)` };
      return { source: 'procfs', missing: [], why: undefined };
    },
  };
}

/**
 * The CPU of `rootPid`'s process tree since the previous call, in cores; undefined on the first
 * call and when the tree cannot be read (no /proc). For the first-screen wait (launch/first-screen.ts).
 */
export function treeCpuRate(rootPid: number, options: ProcessProbeOptions = {}): () => number | undefined {
  const probe = createProcfsProbe(rootPid, options);
  return () => {
    const sample = probe.sample(performance.now());
    return sample.sampled ? sample.cpuRate : undefined;
  };
}
