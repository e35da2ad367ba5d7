/** CPU and memory of a running process from /proc, for the idle and scale benchmarks. */
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSample {
  /** utime + stime from /proc/<pid>/stat, in seconds (clock-tick resolution). */
  readonly statS: number;
  /** Sum over all threads of /proc/<pid>/task/<tid>/schedstat run time, in seconds (ns resolution). */
  readonly schedS: number;
  readonly rssMb: number;
}

const CLOCK_TICKS_PER_SEC = 100;
const MB = 1024 * 1024;

export function sampleCpu(pid: number): CpuSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state is index 0, utime 11, stime 12, rss (pages) 21.
  const statS = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SEC;
  const rssMb = (Number(fields[21]) * 4096) / MB;
  let schedNs = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      schedNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is in the process's total.
    }
  }
  return { statS, schedS: schedNs / 1e9, rssMb };
}

export interface MemorySample {
  /** Pages only this process wrote (its heap, stacks, copies): what each more session costs. */
  readonly privateDirtyMb: number;
  /** Proportional set size: private pages plus its share of pages shared with other processes. */
  readonly pssMb: number;
}

/** Private dirty and PSS of a running process, from /proc/<pid>/smaps_rollup (Linux 4.14+). */
export function sampleMemory(pid: number): MemorySample {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  return { privateDirtyMb: kb('Private_Dirty') / 1024, pssMb: kb('Pss') / 1024 };
}
