/**
 * Shared pieces of the robustness suite: the built CLI run as a user would (in a real outer
 * terminal, with its raw output bytes kept), a private state root per test, reading a
 * process's memory from /proc, and a second (non-root) user for permission tests.
 */
import { execFile, execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nodePty from 'node-pty';
import { afterAll } from 'vitest';
import { CLI, ROOT } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';

export { CLI, ROOT };
export { shellQuote } from '../helpers/pty-outer.js';

export const HOSTILE_AGENT = join(ROOT, 'test', 'robustness', 'hostile-agent.mjs');

/** A fresh 0700 state root under /tmp (readable by a second user only when a test opens it). */
export function freshStateRoot(prefix = 'aw-robust-'): { dir: string; root: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return { dir, root: join(dir, 'state') };
}

export interface StateRoot {
  readonly dir: string;
  readonly root: string;
  /** AGENT_STATUS_DIR at the root, HOME in the scratch directory. */
  readonly env: Record<string, string>;
}

/**
 * For one test file: a maker of fresh private state roots, and an afterAll that closes the
 * terminals left open and runs the cleanups (scratch directories, and any the tests add).
 */
export function stateRoots(prefix: string): { readonly make: () => StateRoot; readonly cleanups: Array<() => void> } {
  const cleanups: Array<() => void> = [];
  afterAll(async () => {
    await closeTerminals();
    for (const cleanup of cleanups.reverse()) cleanup();
  });
  const make = (): StateRoot => {
    const { dir, root } = freshStateRoot(prefix);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { dir, root, env: { AGENT_STATUS_DIR: root, HOME: dir } };
  };
  return { make, cleanups };
}

export interface RawTerminal {
  readonly pty: nodePty.IPty;
  /** Every byte received so far. */
  bytes(): Buffer;
  text(): string;
  readonly received: () => number;
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  readonly exited: Promise<{ exitCode: number; signal: number | undefined }>;
}

const openTerminals = new Set<nodePty.IPty>();

/**
 * Hangs up every terminal a test opened and did not see exit: a failed test must not leave a
 * wrapper running (it would recreate the state directory the test is about to delete).
 */
export async function closeTerminals(): Promise<void> {
  const exits = [...openTerminals].map(
    (pty) =>
      new Promise<void>((resolve) => {
        pty.onExit(() => resolve());
        pty.kill('SIGKILL');
        setTimeout(resolve, 2_000).unref();
      }),
  );
  openTerminals.clear();
  await Promise.all(exits);
}

/** A real terminal (node-pty) running `file args`, keeping the raw bytes it receives. */
export function openRawTerminal(
  file: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cols?: number; rows?: number } = {},
): RawTerminal {
  const pty = nodePty.spawn(file, [...args], {
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    encoding: null,
  });
  const chunks: Buffer[] = [];
  let total = 0;
  let joined: Buffer | undefined;
  pty.onData((data: string | Buffer) => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    chunks.push(chunk);
    total += chunk.length;
    joined = undefined;
  });
  const bytes = (): Buffer => (joined ??= Buffer.concat(chunks));
  /** The bytes from `offset` on, joining only the chunks that hold them. */
  const bytesFrom = (offset: number): Buffer => {
    let start = total;
    let first = chunks.length;
    while (first > 0 && start > offset) start -= (chunks[--first] as Buffer).length;
    return Buffer.concat(chunks.slice(first)).subarray(offset - start);
  };
  openTerminals.add(pty);
  const exited = new Promise<{ exitCode: number; signal: number | undefined }>((resolve) => {
    pty.onExit(({ exitCode, signal }) => {
      openTerminals.delete(pty);
      resolve({ exitCode, signal });
    });
  });
  return {
    pty,
    bytes,
    text: () => bytes().toString('utf8'),
    received: () => total,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      const started = Date.now();
      // Only the newest bytes are searched on each poll: a flood of megabytes stays cheap.
      let searchedUpTo = 0;
      return new Promise((resolve, reject) => {
        // A string is looked for in the new bytes only (and a pattern's length before them):
        // joining the whole output on every poll was quadratic, the test's own CPU under a flood.
        const poll = (): void => {
          const end = total;
          const found =
            typeof pattern === 'string'
              ? end > searchedUpTo && bytesFrom(Math.max(0, searchedUpTo - Buffer.byteLength(pattern))).includes(pattern)
              : pattern.test(bytes().toString('utf8'));
          searchedUpTo = end;
          if (found) resolve();
          else if (Date.now() - started > timeoutMs) {
            reject(new Error(`timed out waiting for ${String(pattern)}; last output:\n${bytes().subarray(-2000).toString('utf8')}`));
          } else setTimeout(poll, 25);
        };
        poll();
      });
    },
  };
}

/** `node dist/src/cli/main.js args…` in a real terminal. */
export function openCliTerminal(args: readonly string[], env: Record<string, string>, size: { cols?: number; rows?: number } = {}): RawTerminal {
  return openRawTerminal(process.execPath, [CLI, ...args], { env, ...size });
}

/** Runs the CLI without a terminal (status, explain…) and returns exit code and output. */
export function runCli(args: readonly string[], env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
}

/** The same, without blocking this process (needed when this process serves the session). */
export function runCliAsync(args: readonly string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status: code, stdout, stderr });
    });
  });
}

export interface StatusJson {
  readonly sessions: readonly { key: string; agentwrap: boolean; state: string | null; record: Record<string, unknown> }[];
  readonly warnings: readonly string[];
}

/**
 * `status --json` as an observer, run in-process (helpers/cli-in-process.ts): polled every
 * 200 ms, a node per poll was most of the CPU these tests spent while the wrapper under test
 * needed it. load.test.ts runs the real process where that is the point.
 */
export async function statusJson(env: Record<string, string>): Promise<StatusJson> {
  const result = await runCliInProcess(['status', '--json'], { env: { ...process.env, ...env } });
  if (result.code !== 0) throw new Error(`status --json exited ${String(result.code)}: ${result.stderr}`);
  return JSON.parse(result.stdout) as StatusJson;
}

/** Polls `status --json` until `predicate` holds. */
export async function waitForStatus(env: Record<string, string>, predicate: (status: StatusJson) => boolean, timeoutMs = 20_000): Promise<StatusJson> {
  const started = Date.now();
  for (;;) {
    const status = await statusJson(env);
    if (predicate(status)) return status;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for status; last: ${JSON.stringify(status)}`);
    await sleep(200);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Peak and current resident memory of a process, in KiB, from /proc/PID/status. */
export function memoryKiB(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export const IS_ROOT = process.getuid?.() === 0;

/** A second, unprivileged user for permission tests (created once, kept: tests may run again). */
export const SECOND_USER = 'aw-robust';

export function ensureSecondUser(): { uid: number; gid: number } | undefined {
  if (!IS_ROOT) return undefined;
  const lookup = (): { uid: number; gid: number } | undefined => {
    const result = spawnSync('id', ['-u', SECOND_USER], { encoding: 'utf8' });
    if (result.status !== 0) return undefined;
    const gid = Number(execFileSync('id', ['-g', SECOND_USER], { encoding: 'utf8' }).trim());
    return { uid: Number(result.stdout.trim()), gid };
  };
  const existing = lookup();
  if (existing !== undefined) return existing;
  const created = spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', SECOND_USER], { encoding: 'utf8' });
  if (created.status !== 0 && lookup() === undefined) return undefined;
  return lookup();
}

/** argv that runs `command…` as the second user (runuser keeps the environment given to it). */
export function asSecondUser(command: readonly string[]): string[] {
  return ['runuser', '-u', SECOND_USER, '--', ...command];
}

/** Control characters, escape and bidi controls a record title must never contain. */
export const UNSAFE_TITLE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]/u;
