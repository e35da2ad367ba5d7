/**
 * Process evidence from what the machine offers, behind one interface: Linux procfs
 * (procfs-probe.ts, falling back per field where /proc is restricted), `ps` where there is no
 * /proc but ps exists (macOS: ps-probe.ts), or nothing (Linux without /proc: node alone cannot
 * see another process's CPU, children or state). Each probe says what it can give (coverage),
 * and `doctor` and `status explain` say what is missing and what that costs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PROCESS_EVIDENCE_KINDS, type ProcessCoverage, type ProcessEvidenceSourceName } from '../../core/detector/process-coverage.js';
import type { ProcessEvidence } from '../../core/types.js';
import { createProcfsProbe } from './procfs-probe.js';
import { createPsProbe, findPs } from './ps-probe.js';

export interface ProcessProbe {
  readonly source: ProcessEvidenceSourceName;
  /** One sample at `nowMs` (session clock); keeps the CPU sample for the next call's rate. */
  sample(nowMs: number): ProcessEvidence;
  /** What this source gives on this machine, as far as its samples so far have shown. */
  coverage(): ProcessCoverage;
}

/**
 * Whose tree to sample: the agent's pid, or the first child of the job-control helper (the
 * agent) where nothing else can tell the agent's pid (no /proc: adapters/pty reads it there).
 */
export type ProcessRoot = { readonly pid: number } | { readonly firstChildOf: number };

export interface MachineProcessView {
  readonly platform: NodeJS.Platform;
  /** Where procfs is mounted; tests may point elsewhere. */
  readonly procRoot: string;
  /** PATH to look for ps on. */
  readonly path: string | undefined;
}

export function thisMachine(env: NodeJS.ProcessEnv = process.env): MachineProcessView {
  return { platform: process.platform, procRoot: '/proc', path: env['PATH'] };
}

/** A source that sees nothing: every sample is absent, saying why. */
function unavailableProbe(why: string): ProcessProbe {
  return {
    source: 'none',
    sample: () => ({ sampled: false, reason: `${why}: process evidence unavailable` }),
    coverage: () => ({ source: 'none', missing: PROCESS_EVIDENCE_KINDS, why }),
  };
}

/** Whether procfs is there (the agent's pid is then read from it, and its tree sampled from it). */
export function hasProcfs(machine: MachineProcessView = thisMachine()): boolean {
  return existsSync(`${machine.procRoot}/self/stat`);
}

/**
 * The best source for `root` here. ps is only used off Linux: Linux's ps reads /proc itself,
 * so without /proc it has nothing to show either. Procfs is only opened on a known pid.
 */
export function openProcessProbe(root: ProcessRoot, machine: MachineProcessView = thisMachine()): ProcessProbe {
  if (hasProcfs(machine)) {
    if ('pid' in root) return createProcfsProbe(root.pid, { procRoot: machine.procRoot });
    return unavailableProbe('the agent\'s pid is not known');
  }
  if (machine.platform === 'linux') return unavailableProbe(`no /proc (nothing at ${machine.procRoot}/self/stat)`);
  const psPath = findPs(machine.path);
  if (psPath === undefined) return unavailableProbe('no /proc and no ps');
  return createPsProbe(root, { psPath });
}

/** The mount options of procfs at `/proc` ("rw,relatime,hidepid=invisible"), or undefined. */
export function procMountOptions(procRoot = '/proc'): string | undefined {
  try {
    const mounts = readFileSync(`${procRoot}/self/mountinfo`, 'utf8');
    // "36 25 0:21 / /proc rw,relatime - proc proc rw,hidepid=2": the super options come last. The
    // last /proc mount listed is the one on top (a namespace's own /proc over the host's).
    const line = mounts
      .split('\n')
      .filter((entry) => entry.split(' ')[4] === '/proc' && entry.includes(' - proc '))
      .pop();
    return line?.split(' - proc ')[1]?.split(' ')[1];
  } catch {
    // No /proc, or a /proc without mountinfo: nothing to say about its options.
    return undefined;
  }
}

/**
 * What process evidence a session would have here, for `doctor`: agentwrap's own process
 * sampled as a session samples its agent (procfs), or the source chosen without running it (ps).
 */
export function machineProcessCoverage(machine: MachineProcessView = thisMachine()): ProcessCoverage {
  const probe = openProcessProbe({ pid: process.pid }, machine);
  if (probe.source === 'procfs') probe.sample(0);
  return probe.coverage();
}
