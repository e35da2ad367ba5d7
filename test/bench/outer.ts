/**
 * The benchmark's stand-in for the user's terminal: a real pty (node-pty) whose output this
 * process drains and counts, so the program under test is wrapped for real (agentwrap sees a
 * TTY on stdin and stdout, as script(1) does). Resource figures come from GNU time(1) wrapped
 * around the program inside that pty: wall, user+sys of the whole tree, peak RSS.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as nodePty from 'node-pty';

export const GNU_TIME = '/usr/bin/time';
/** `%e %U %S %M`: elapsed seconds, user and system seconds of the whole tree, peak RSS (KiB). */
const TIME_FORMAT = '%e %U %S %M';

export interface TimedRun {
  readonly wallS: number;
  /** user + sys of everything the command ran (a wrapper and its child). */
  readonly cpuS: number;
  /** Peak RSS of the largest single process in the tree. */
  readonly rssMb: number;
  /** Bytes the outer terminal received. */
  readonly bytes: number;
  readonly output: Buffer | undefined;
}

export interface OuterOptions {
  readonly cols: number;
  readonly rows: number;
  readonly env: Record<string, string>;
  readonly cwd: string;
  /** Keep every output byte (for the loss check); otherwise only count them. */
  readonly keepOutput?: boolean;
}

function parseTime(path: string): { wallS: number; cpuS: number; rssMb: number } {
  // time(1) writes "Command exited with non-zero status N" above the figures on failure.
  const last = readFileSync(path, 'utf8').trim().split('\n').at(-1) ?? '';
  const [wall, user, sys, rss] = last.split(' ').map(Number);
  if (wall === undefined || user === undefined || sys === undefined || rss === undefined || [wall, user, sys, rss].some(Number.isNaN)) {
    throw new Error(`cannot read time(1) output in ${path}: ${last}`);
  }
  return { wallS: wall, cpuS: user + sys, rssMb: rss / 1024 };
}

/** The outer terminal every measured program runs in: a fresh node-pty that yields raw bytes. */
function spawnOuter(file: string, args: readonly string[], options: OuterOptions): nodePty.IPty {
  return nodePty.spawn(file, [...args], {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: options.env,
    encoding: null,
  });
}

/** Runs `argv` under time(1) in a fresh outer pty and drains it until the command exits. */
export function runTimed(argv: readonly string[], scratch: string, options: OuterOptions): Promise<TimedRun> {
  const timeFile = join(scratch, `time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  return new Promise((resolve, reject) => {
    const pty = spawnOuter(GNU_TIME, ['-f', TIME_FORMAT, '-o', timeFile, ...argv], options);
    let bytes = 0;
    const chunks: Buffer[] = [];
    pty.onData((data: Buffer | string) => {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      bytes += chunk.length;
      if (options.keepOutput === true) chunks.push(chunk);
    });
    pty.onExit(() => {
      try {
        const figures = parseTime(timeFile);
        rmSync(timeFile, { force: true });
        resolve({ ...figures, bytes, output: options.keepOutput === true ? Buffer.concat(chunks) : undefined });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** A long-running program in an outer pty, for latency and idle measurements. */
export interface OuterSession {
  readonly pty: nodePty.IPty;
  /** Resolves once `text` has appeared in the output. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Writes `byte` and resolves with the µs until it comes back (the next output containing it). */
  roundTrip(byte: string): Promise<number>;
  readonly exited: Promise<void>;
}

export function openSession(argv: readonly string[], options: OuterOptions): OuterSession {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('openSession: empty command');
  const pty = spawnOuter(file, args, options);
  let seen = '';
  let onData: ((chunk: string, atMs: number) => void) | undefined;
  pty.onData((data: Buffer | string) => {
    const atMs = performance.now();
    const text = typeof data === 'string' ? data : data.toString('latin1');
    seen = (seen + text).slice(-4096);
    onData?.(text, atMs);
  });
  const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
  return {
    pty,
    exited,
    waitFor(text, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        if (seen.includes(text)) {
          resolve();
          return;
        }
        const timer = setTimeout(() => {
          onData = undefined;
          reject(new Error(`timed out waiting for ${JSON.stringify(text)}; saw ${JSON.stringify(seen.slice(-300))}`));
        }, timeoutMs);
        onData = () => {
          if (!seen.includes(text)) return;
          clearTimeout(timer);
          onData = undefined;
          resolve();
        };
      });
    },
    roundTrip(byte) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          onData = undefined;
          reject(new Error('no echo within 5 s'));
        }, 5_000);
        let sentAtMs = 0;
        onData = (chunk, atMs) => {
          if (!chunk.includes(byte)) return;
          clearTimeout(timer);
          onData = undefined;
          resolve((atMs - sentAtMs) * 1000);
        };
        sentAtMs = performance.now();
        pty.write(byte);
      });
    },
  };
}

export function hasGnuTime(): boolean {
  return existsSync(GNU_TIME);
}
