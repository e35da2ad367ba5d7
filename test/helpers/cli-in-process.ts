/**
 * Runs an agentwrap command in the test's own process: `runCli` from src/cli/dispatch.ts with
 * the given environment, stdout and stderr captured, and the exit code main.ts would exit with.
 * For tests that check a command's output and exit code; a fresh `node` per command costs
 * 0.3-2 s on the shared 2-core machine, this costs milliseconds. Tests where the process itself
 * is the subject (signals, terminals, the bin's exit status, stdin) spawn the built CLI instead
 * (helpers/cli.ts).
 *
 * Each call starts from fresh modules (vi.resetModules), so state a command keeps per process
 * (the config file read once, user-config.ts) is per call, as it is per process. The
 * environment is replaced in place rather than by a new object, so libuv readers (os.homedir()
 * reads $HOME) see it too; vitest's own variables stay. Calls must not overlap: the
 * environment, cwd and the stdout/stderr writers are the process's.
 */
import { vi } from 'vitest';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  /** The whole environment the command sees (as spawnSync's `env`). */
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export async function runCliInProcess(args: readonly string[], options: InProcessOptions): Promise<CliResult> {
  const saved = { ...process.env };
  const savedCwd = process.cwd();
  const out: string[] = [];
  const err: string[] = [];
  const writeOut = process.stdout.write;
  const writeErr = process.stderr.write;
  replaceEnv(options.env);
  if (options.cwd !== undefined) process.chdir(options.cwd);
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    vi.resetModules();
    const { runCli, exitCodeForError } = await import('../../src/cli/dispatch.js');
    const code = await runCli(args).catch((error: unknown) => exitCodeForError(error));
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.chdir(savedCwd);
    replaceEnv(saved);
  }
}

/** Every variable but vitest's own is replaced, in the process's real environment. */
function replaceEnv(next: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) {
    if (!key.startsWith('VITEST') && !(key in next)) delete process.env[key];
  }
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined) process.env[key] = value;
  }
}

function capture(into: string[]): typeof process.stdout.write {
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((arg): arg is () => void => typeof arg === 'function');
    done?.();
    return true;
  }) as typeof process.stdout.write;
}
