/**
 * Pure reading of `ps` output, the process evidence where there is no /proc (macOS): one line
 * per process with the columns PS_COLUMNS asks for. The adapter (adapters/process/ps-probe.ts)
 * runs ps; the tree, CPU rate and foreground are derived here as from /proc (process.ts).
 */
import { descendantsFromParents, processEvidenceFrom, type CpuTracker, type ProcStat } from './process.js';
import type { ProcessEvidence } from '../types.js';

/** The `-o` columns, in order; comm last, as a command name may hold spaces. Both BSD and procps ps know them. */
export const PS_COLUMNS = 'pid=,ppid=,pgid=,tpgid=,state=,time=,comm=';

/** ps's CPU time is read in hundredths of a second, the resolution macOS prints. */
export const PS_TICKS_PER_SEC = 100;

export interface PsRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly tpgid: number;
  /** The state's first letter in /proc's vocabulary (BSD's I idle reads S, U uninterruptible reads D). */
  readonly state: string;
  /** CPU time, user + system, in PS_TICKS_PER_SEC ticks. */
  readonly cpuTicks: number;
  readonly comm: string;
}

/**
 * `[dd-][hh:]mm:ss[.cc]` → ticks (macOS prints `0:01.23` and `123:45.67`; procps `00:00:01` and
 * `1-02:03:04`). Undefined for anything else.
 */
export function parsePsTime(text: string): number | undefined {
  const match = /^(?:(\d+)-)?((?:\d+:){1,2}\d+(?:\.\d+)?)$/.exec(text);
  if (match === null || match[2] === undefined) return undefined;
  const days = Number(match[1] ?? 0);
  const seconds = match[2].split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
  return Math.round((days * 86_400 + seconds) * PS_TICKS_PER_SEC);
}

const BSD_STATE_AS_PROC: Readonly<Record<string, string>> = { I: 'S', U: 'D' };

/** One line of `ps -o PS_COLUMNS` output, or undefined for a header, a blank or a malformed line. */
export function parsePsLine(line: string): PsRow | undefined {
  const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(line);
  if (match === null) return undefined;
  const [, pid, ppid, pgid, tpgid, stateText, time, comm] = match;
  const cpuTicks = parsePsTime(time ?? '');
  const letter = stateText?.[0];
  if (cpuTicks === undefined || letter === undefined || comm === undefined) return undefined;
  return {
    pid: Number(pid),
    ppid: Number(ppid),
    pgid: Number(pgid),
    tpgid: Number(tpgid),
    state: BSD_STATE_AS_PROC[letter] ?? letter,
    cpuTicks,
    // macOS prints the executable's path; /proc's comm is the name alone.
    comm: comm.trim().split('/').pop() ?? comm.trim(),
  };
}

export function parsePsOutput(text: string): PsRow[] {
  return text.split('\n').flatMap((line) => parsePsLine(line) ?? []);
}

/** A ps row in the shape process.ts reads (no reaped-children CPU, thread count or start time in ps). */
function asStat(row: PsRow): ProcStat {
  return {
    pid: row.pid,
    comm: row.comm,
    state: row.state,
    ppid: row.ppid,
    pgrp: row.pgid,
    session: 0,
    ttyNr: 0,
    tpgid: row.tpgid,
    utime: row.cpuTicks,
    stime: 0,
    cutime: 0,
    cstime: 0,
    numThreads: 1,
    starttime: 0,
  };
}

/**
 * The evidence for `rootPid`'s tree from one ps listing of every process, or an unsampled result
 * when the root is not in it. A child that exits takes its CPU out of the sum (ps has no reaped
 * children's time), which cpuRate reads as unknown for that window, never as negative.
 */
export function processEvidenceFromPs(
  rows: readonly PsRow[],
  rootPid: number,
  cpu: CpuTracker,
  nowMs: number,
  maxProcesses: number,
): { readonly evidence: ProcessEvidence; readonly cpu: CpuTracker } {
  const root = rows.find((row) => row.pid === rootPid);
  if (root === undefined) return { evidence: { sampled: false, reason: `process ${rootPid} not in ps output` }, cpu };
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const descendants = descendantsFromParents(rows, rootPid, maxProcesses).flatMap((pid) => {
    const row = byPid.get(pid);
    return row === undefined ? [] : [asStat(row)];
  });
  return processEvidenceFrom(asStat(root), descendants, cpu, nowMs, PS_TICKS_PER_SEC);
}
