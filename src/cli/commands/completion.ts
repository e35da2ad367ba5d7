/**
 * `agentwrap completion bash|zsh|fish`: prints the completion script for that shell
 * (completion-scripts.ts). `agentwrap __complete sessions|agents` is what those scripts call
 * for live values; it prints one name per line and is silent on every failure, because a
 * completion must never scribble on the user's command line.
 */
import { isPidAlive, resolveOnPath, resolveStateRoot } from '../../app/platform.js';
import { loadDefaultRegistry } from '../../app/pack-registry.js';
import { readSessionsReport } from '../../app/sessions/store.js';
import { completionScript, SHELLS, type Shell } from '../completion-scripts.js';
import { COMMANDS } from '../command-table.js';
import { UsageError } from '../errors.js';
import { parseCommand } from '../flags.js';

const HELP = `usage: agentwrap completion bash|zsh|fish

Prints the shell completion script. Load it for this shell:
  bash:  source <(agentwrap completion bash)
  zsh:   source <(agentwrap completion zsh)      (after compinit)
  fish:  agentwrap completion fish | source
or save it where your shell looks (docs/config.md "Shell completion").
`;

function isShell(word: string): word is Shell {
  return (SHELLS as readonly string[]).includes(word);
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand({ name: 'completion', usage: HELP, options: COMMANDS.completion.options }, args);
  if (parsed === undefined) return 0;
  const { positionals } = parsed;
  const [shell, ...extra] = positionals;
  if (shell === undefined || !isShell(shell)) throw new UsageError(`completion needs a shell: ${SHELLS.join(', ')}${shell === undefined ? '' : ` (not "${shell}")`}`);
  if (extra.length > 0) throw new UsageError(`completion: unexpected argument ${extra[0] ?? ''}`);
  process.stdout.write(completionScript(shell));
  return 0;
}

/** Keys of live agentwrap sessions, as `ack` and `status explain` accept them. */
export function liveSessionNames(env: NodeJS.ProcessEnv): string[] {
  const report = readSessionsReport(resolveStateRoot(env), Date.now(), isPidAlive);
  return report.sessions.filter((s) => s.kind === 'agentwrap').map((s) => s.key);
}

/** Command names of packs (bundled and user) that are on PATH: what `agentwrap <agent>` can run. */
export function agentsOnPath(env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>();
  for (const pack of loadDefaultRegistry(env).packs()) {
    for (const command of pack.compiled.pack.commands) {
      if (resolveOnPath(command, env['PATH']) !== undefined) names.add(command);
    }
  }
  return [...names].sort();
}

/** The hidden `__complete` command: never fails loudly. */
export async function completeMain(args: readonly string[]): Promise<number> {
  try {
    const names = args[0] === 'sessions' ? liveSessionNames(process.env) : args[0] === 'agents' ? agentsOnPath(process.env) : [];
    if (names.length > 0) process.stdout.write(`${names.join('\n')}\n`);
  } catch {
    // A completion that cannot list anything offers nothing; an error here would land on the prompt.
  }
  return 0;
}
