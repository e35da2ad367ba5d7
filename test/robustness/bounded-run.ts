/**
 * Runs the real CLI on hostile input under a time and memory cap, the way the hostile-input
 * suites judge it: it must end by itself within `timeoutMs` and never pass `maxRssKiB` of peak
 * resident memory. Peak memory is the kernel's high-water mark (VmHWM), read every 50 ms while
 * the process lives; a process past either cap is killed at once (so a regression costs the
 * machine half a gigabyte and twenty seconds, not nine gigabytes) and the result says why.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI } from './harness.js';

export const HOSTILE_TIME_CAP_MS = 20_000;
export const HOSTILE_MEMORY_CAP_KIB = 500 * 1024;

export interface BoundedRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The highest VmHWM seen, in KiB. */
  readonly peakKiB: number;
  readonly elapsedMs: number;
  /** Why the run was stopped by this harness, if it was. */
  readonly killedFor: 'time' | 'memory' | undefined;
}

export interface BoundedRunOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly maxRssKiB?: number;
  /** Ends the run (SIGTERM) once stdout contains this, for commands that follow forever. */
  readonly stopWhenStdout?: RegExp;
}

function highWaterKiB(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    // Gone between two polls: the last reading stands.
    return undefined;
  }
}

export function runCliBounded(args: readonly string[], options: BoundedRunOptions = {}): Promise<BoundedRun> {
  const timeoutMs = options.timeoutMs ?? HOSTILE_TIME_CAP_MS;
  const maxRssKiB = options.maxRssKiB ?? HOSTILE_MEMORY_CAP_KIB;
  const startedMs = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let peakKiB = 0;
  let killedFor: BoundedRun['killedFor'];
  const stop = (reason: NonNullable<BoundedRun['killedFor']>): void => {
    killedFor ??= reason;
    child.kill('SIGKILL');
  };
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    peakKiB = Math.max(peakKiB, highWaterKiB(child.pid) ?? 0);
    if (peakKiB > maxRssKiB) stop('memory');
    else if (Date.now() - startedMs > timeoutMs) stop('time');
  }, 50);
  child.stdout.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    if (options.stopWhenStdout?.test(Buffer.concat(stdout).toString('utf8')) === true) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (status) => {
      clearInterval(poll);
      resolve({
        status,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        peakKiB,
        elapsedMs: Date.now() - startedMs,
        killedFor,
      });
    });
  });
}

/** Control bytes (C0 but newline and tab, DEL, C1): none may reach the user's terminal raw. */
export const RAW_CONTROL_BYTE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

/** The three promises of a hostile input, as one expectation-friendly summary. */
export function boundsOf(run: BoundedRun): { killedFor: BoundedRun['killedFor']; withinMemory: boolean; rawControl: boolean } {
  return { killedFor: run.killedFor, withinMemory: run.peakKiB <= HOSTILE_MEMORY_CAP_KIB, rawControl: RAW_CONTROL_BYTE.test(run.stdout + run.stderr) };
}
