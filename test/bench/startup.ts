/**
 * Start-up overhead: the time from exec to the agent's first output byte, the program run bare
 * (directly in the outer pty), through script(1), through `node -e` printing it (Node's own
 * start-up, the floor of anything written in Node), and through agentwrap (the `agentwrap`
 * command, as users start it): `run --no-hooks`, and as `agentwrap claude` with hooks on
 * (Claude's settings file written, a hook plan made) for a stand-in named `claude` on PATH.
 * The stand-in prints its marker at once, so everything above bare is what runs before the
 * agent's own start. Variants interleave round by round; medians, and the median of each
 * round's own difference to bare.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as nodePty from 'node-pty';

const MARK = 'AGENT-FIRST-BYTE';
const CAP_MS = 20_000;

export type StartupVariant = 'bare' | 'script' | 'node -e' | 'agentwrap run --no-hooks' | 'agentwrap claude (hooks on)';
export const STARTUP_VARIANTS: readonly StartupVariant[] = ['bare', 'script', 'node -e', 'agentwrap run --no-hooks', 'agentwrap claude (hooks on)'];

export interface StartupResult {
  readonly variant: StartupVariant;
  readonly medianMs: number;
  /** Median over rounds of (this variant − bare) in the same round. */
  readonly addedMs: number;
  /** Median over rounds of this variant / bare in the same round. */
  readonly ratio: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor(sorted.length / 2)] ?? Number.NaN);
}

/** Milliseconds from the spawn to the marker in the outer pty's output. */
function firstByteMs(argv: readonly string[], env: Record<string, string>, cwd: string): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    const pty = nodePty.spawn(argv[0] ?? '', argv.slice(1), { name: 'xterm-256color', cols: 120, rows: 40, cwd, env });
    let output = '';
    let at: number | undefined;
    const cap = setTimeout(() => pty.kill('SIGKILL'), CAP_MS);
    pty.onData((data) => {
      output += data;
      if (at === undefined && output.includes(MARK)) at = performance.now() - start;
    });
    pty.onExit(() => {
      clearTimeout(cap);
      resolve(at ?? CAP_MS);
    });
  });
}

export async function measureStartup(options: { agentwrap: string; scratch: string; env: Record<string, string>; rounds: number }): Promise<StartupResult[]> {
  const bin = join(options.scratch, 'startup-bin');
  mkdirSync(bin, { recursive: true });
  const agent = join(bin, 'claude');
  writeFileSync(agent, `#!/bin/sh\nprintf '${MARK}\\n'\n`);
  chmodSync(agent, 0o755);
  const home = join(options.scratch, 'startup-home');
  mkdirSync(home, { recursive: true });
  const env = { ...options.env, PATH: `${bin}:${options.env['PATH'] ?? ''}`, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const argvOf: Record<StartupVariant, string[]> = {
    bare: [agent],
    script: ['script', '-qfc', agent, '/dev/null'],
    'node -e': [process.execPath, '-e', `process.stdout.write('${MARK}\\n')`],
    'agentwrap run --no-hooks': [options.agentwrap, 'run', '--no-hooks', '--', agent],
    'agentwrap claude (hooks on)': [options.agentwrap, 'claude'],
  };
  const runs = new Map<StartupVariant, number[]>(STARTUP_VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < options.rounds; round++) {
    // The order turns every round, so no variant always follows the same one.
    for (let k = 0; k < STARTUP_VARIANTS.length; k++) {
      const variant = STARTUP_VARIANTS[(round + k) % STARTUP_VARIANTS.length] as StartupVariant;
      runs.get(variant)?.push(await firstByteMs(argvOf[variant], env, home));
    }
  }
  const bare = runs.get('bare') ?? [];
  return STARTUP_VARIANTS.map((variant) => {
    const ms = runs.get(variant) ?? [];
    return {
      variant,
      medianMs: median(ms),
      addedMs: median(ms.map((x, i) => x - (bare[i] ?? Number.NaN))),
      ratio: median(ms.map((x, i) => x / (bare[i] ?? Number.NaN))),
    };
  });
}
