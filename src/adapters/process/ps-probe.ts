/**
 * The process-evidence source without /proc (macOS): one `ps -A` listing per sample, read by
 * core/detector/ps-output.ts. ps runs asynchronously and at most one at a time, so a sample
 * never waits for it: each call returns the last listing that came back and starts the next
 * one if none is running. The live loop samples about once a second (app/live/process-source.ts),
 * so ps is spawned at most once per tick, from the event loop, never on the passthrough (the
 * relay thread, or the event-loop relay between two chunks). Each run is bounded in time and
 * bytes: a hung ps is killed, a huge process table is cut off, and either reads as absent.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { INITIAL_CPU_TRACKER, type CpuTracker } from '../../core/detector/process.js';
import { PROCESS_EVIDENCE_KINDS, type ProcessCoverage } from '../../core/detector/process-coverage.js';
import { parsePsOutput, processEvidenceFromPs, PS_COLUMNS, type PsRow } from '../../core/detector/ps-output.js';
import type { ProcessEvidence } from '../../core/types.js';
import { resolveOnPath } from '../agent-version.js';
import type { ProcessProbe, ProcessRoot } from './evidence-source.js';
import { MAX_TREE_PROCESSES } from './procfs-probe.js';

/** A ps that has not answered in this long is killed; the sample stays absent. */
export const PS_TIMEOUT_MS = 2000;
/** ~100 bytes a process: room for ~10 000 processes, far more than a laptop runs. */
export const PS_MAX_BYTES = 1024 * 1024;

/** ps where the system keeps it, or on PATH. */
export function findPs(path: string | undefined): string | undefined {
  return ['/bin/ps', '/usr/bin/ps'].find((candidate) => existsSync(candidate)) ?? resolveOnPath('ps', path);
}

/**
 * One process's state letter from ps (`T` stopped…), or undefined when ps fails or the process is
 * gone: for the job-control helper's stop watch where /proc cannot tell (adapters/pty/job-control.ts).
 */
export function processStateFromPs(pid: number, psPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile(psPath, ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8', timeout: PS_TIMEOUT_MS, maxBuffer: 4096, killSignal: 'SIGKILL' }, (error, stdout) =>
        resolve(error === null ? stdout.trim()[0] : undefined),
      );
    } catch {
      // A spawn that throws (EAGAIN) leaves the state unknown, as a failed ps does.
      resolve(undefined);
    }
  });
}

export interface PsProbeOptions {
  readonly psPath: string;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly maxProcesses?: number;
}

/** The agent's pid in a listing: the root's own, or the first child of the job-control helper. */
function rootPidIn(rows: readonly PsRow[], root: ProcessRoot): number | undefined {
  if ('pid' in root) return root.pid;
  return rows.find((row) => row.ppid === root.firstChildOf)?.pid;
}

export function createPsProbe(root: ProcessRoot, options: PsProbeOptions): ProcessProbe {
  // Once found, the agent is followed for good (a later child of the helper is not the agent).
  let agentRoot: ProcessRoot = root;
  let isRunning = false;
  let latest: ProcessEvidence = { sampled: false, reason: 'the first ps listing is not back yet' };
  let failure: string | undefined;
  let cpu: CpuTracker = INITIAL_CPU_TRACKER;

  const finish = (startedAtMs: number, error: Error | null, stdout: string): void => {
    isRunning = false;
    if (error !== null) {
      failure = `${options.psPath} failed: ${error.message.split('\n')[0] ?? error.message}`;
      latest = { sampled: false, reason: failure };
      return;
    }
    failure = undefined;
    const rows = parsePsOutput(stdout);
    const rootPid = rootPidIn(rows, agentRoot);
    if (rootPid === undefined) {
      latest = { sampled: false, reason: `the agent (first child of ${'firstChildOf' in agentRoot ? agentRoot.firstChildOf : '?'}) not started yet` };
      return;
    }
    agentRoot = { pid: rootPid };
    const result = processEvidenceFromPs(rows, rootPid, cpu, startedAtMs, options.maxProcesses ?? MAX_TREE_PROCESSES);
    cpu = result.cpu;
    latest = result.evidence;
  };

  const start = (nowMs: number): void => {
    isRunning = true;
    try {
      execFile(
        options.psPath,
        ['-A', '-o', PS_COLUMNS],
        // LC_ALL=C: the decimal point of the time column is a dot, not the locale's comma.
        { encoding: 'utf8', timeout: options.timeoutMs ?? PS_TIMEOUT_MS, maxBuffer: options.maxBytes ?? PS_MAX_BYTES, killSignal: 'SIGKILL', env: { ...process.env, LC_ALL: 'C' } },
        (error, stdout) => finish(nowMs, error, stdout),
      );
    } catch (error) {
      // Soft-fail law: a spawn that throws (EAGAIN, bad path) is absent evidence, not a crash.
      finish(nowMs, error instanceof Error ? error : new Error(String(error)), '');
    }
  };

  return {
    source: 'ps',
    sample(nowMs: number): ProcessEvidence {
      if (!isRunning) start(nowMs);
      return latest;
    },
    coverage(): ProcessCoverage {
      if (failure !== undefined) return { source: 'ps', missing: PROCESS_EVIDENCE_KINDS, why: failure };
      return { source: 'ps', missing: [], why: undefined };
    },
  };
}
