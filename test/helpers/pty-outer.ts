/**
 * A stand-in for the user's terminal in end-to-end tests: a real node-pty running a shell
 * command, whose output is collected so a test can wait for text and read `stty` results.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StringDecoder } from 'node:string_decoder';
import * as nodePty from 'node-pty';
import { takeInternals } from '../../src/adapters/pty/node-pty-internals.js';
import { OutputFanout, ReadTail } from '../../src/adapters/pty/read-tail.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built CLI; `npm test` builds before running vitest. */
export const CLI = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

export interface OuterTerminal {
  readonly pty: nodePty.IPty;
  /** Everything the outer terminal received so far, decoded as UTF-8. */
  output(): string;
  /** Resolves once `pattern` appears in the output (after `from`), or rejects after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  readonly exited: Promise<{ exitCode: number; signal: number | undefined }>;
}

export function openOuterTerminal(
  command: string,
  options: { cols?: number; rows?: number; env?: Record<string, string> } = {},
): OuterTerminal {
  const pty = nodePty.spawn('/bin/sh', ['-c', command], {
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    cwd: REPO_ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    encoding: null,
  });
  // Decoded as it arrives (a character split across chunks kept whole): re-joining and
  // re-decoding everything on each 20 ms poll made a test's own waiting quadratic in the
  // output, megabytes of copying per poll on a flood, and the slowest part under load.
  const decoder = new StringDecoder('utf8');
  let text = '';
  const received = new OutputFanout();
  received.listeners.add((data) => {
    text += decoder.write(data);
  });
  pty.onData((data: string | Buffer) => received.dispatch(typeof data === 'string' ? Buffer.from(data) : data));
  // node-pty drops the tail of a program that exits while this thread is busy (its 200 ms exit
  // timer, libuv's early EOF): the test then waits for a line that was written. The same fix
  // as agentwrap's own pty (read-tail.ts); test/helpers/pty-outer.test.ts fails without it.
  const { socket, masterFd } = takeInternals(pty);
  new ReadTail(socket, masterFd, received);
  const exited = new Promise<{ exitCode: number; signal: number | undefined }>((resolveExit) => {
    pty.onExit(({ exitCode, signal }) => resolveExit({ exitCode, signal }));
  });
  const output = (): string => text;
  return {
    pty,
    output,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      const matches = (): boolean => (typeof pattern === 'string' ? output().includes(pattern) : pattern.test(output()));
      return new Promise((resolveWait, reject) => {
        const started = Date.now();
        const poll = (): void => {
          if (matches()) resolveWait(output());
          else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${String(pattern)}; got:\n${output()}`));
          else setTimeout(poll, 20);
        };
        poll();
      });
    },
  };
}

/** Single-quotes a word for /bin/sh. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
