/**
 * The one error boundary: parse the first word, hand the rest to a command module, map errors
 * to messages and exit codes. It only exports; main.ts (the process entry) runs it and is the
 * one place that calls process.exit, so tests can run a command in-process.
 */
import { LAUNCH_OPTIONS_HELP, leadingCommandIndex } from './argv.js';
import { forTerminal } from '../core/text/sanitize.js';
import { COMMANDS, findCommand } from './command-table.js';
import { CliError, printDiagnostic, UsageError } from './errors.js';
import { closest } from './flags.js';

/** A command receives the arguments after its own name and resolves to an exit code. */
export type CommandMain = (args: readonly string[]) => Promise<number>;

const MODULES: Readonly<Record<string, () => Promise<{ main: CommandMain }>>> = {
  run: () => import('./commands/run.js'),
  status: () => import('./commands/status/status.js'),
  ack: () => import('./commands/ack.js'),
  answer: () => import('./commands/answer.js'),
  send: async () => ({ main: (await import('./commands/answer.js')).sendMain }),
  events: () => import('./commands/events.js'),
  dashboard: () => import('./commands/dashboard.js'),
  report: () => import('./commands/report.js'),
  'report-metadata': () => import('./commands/report-metadata.js'),
  replay: () => import('./commands/replay.js'),
  eval: () => import('./commands/eval.js'),
  packs: () => import('./commands/packs.js'),
  demo: () => import('./commands/demo.js'),
  doctor: () => import('./commands/doctor.js'),
  completion: () => import('./commands/completion.js'),
  __complete: async () => ({ main: (await import('./commands/completion.js')).completeMain }),
};

/**
 * Commands that do not read the config file here: hooks (`report*`) run on every agent event
 * and inherit the session's environment; doctor and completions read it their own way.
 */
const WITHOUT_CONFIG: ReadonlySet<string> = new Set(['report', 'report-metadata', 'doctor', 'completion', '__complete']);

export const USAGE = `usage:
  agentwrap [options] <agent> [args…]        run an agent CLI (claude, codex, opencode…) wrapped
  agentwrap run [options] -- <cmd> [args…]   run any command wrapped
  agentwrap status [--json|--watch|--format tmux] [--host H]… [--state-dir DIR]…
  agentwrap status explain <session>|--file SCREEN [--agent A] [--json]
  agentwrap status capture <session> [--out DIR]
  agentwrap ack <session>
  agentwrap answer <session> <option> [--host H]   choose an option of a blocked session's dialog
  agentwrap send <session> <text…> [--force] [--host H]   type a prompt into a waiting session
  agentwrap events [--host H]…
  agentwrap dashboard [--port N]              live web dashboard on 127.0.0.1 (prints its URL)
  agentwrap report <event> [--session ID] [--json PAYLOAD|-]
  agentwrap report-metadata key=value… [--ttl-ms N]
  agentwrap replay FILE.cast [--timeline|--json|--explain-at S|--screen-at S]
  agentwrap eval PATH… [--json] [--report FILE.html] [--min-accuracy X]
  agentwrap packs list | lint [FILE…] | test
  agentwrap demo [--auto] [--record FILE.cast]
  agentwrap doctor [--json]                  what agentwrap sees here and what is wrong
  agentwrap completion bash|zsh|fish         shell completions (source <(agentwrap completion bash))
  agentwrap help <command>                   that command's usage, as <command> --help
  agentwrap --version

${LAUNCH_OPTIONS_HELP}`;

export async function runCli(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    if (rest.length > 0) return runCli(helpArgs(rest));
    process.stdout.write(USAGE);
    return first === undefined ? 2 : 0;
  }
  if (first === '-V' || first === '--version') {
    const { versionLine } = await import('./version.js');
    process.stdout.write(`${versionLine(process.env)}\n`);
    return 0;
  }
  // agentwrap's options before a command are that command's: `agentwrap --record b.cast demo`
  // is `agentwrap demo --record b.cast`, and a command that does not take one says so.
  const index = first.startsWith('-') ? leadingCommandIndex(argv) : undefined;
  const word = index === undefined ? undefined : argv[index];
  if (index !== undefined && word !== undefined && Object.hasOwn(MODULES, word)) {
    return runCli([word, ...argv.slice(0, index), ...argv.slice(index + 1)]);
  }
  if (!WITHOUT_CONFIG.has(first)) {
    const { applyUserConfig } = await import('./user-config.js');
    await applyUserConfig(process.env, (text) => process.stderr.write(text));
  }
  const load = Object.hasOwn(MODULES, first) ? MODULES[first] : undefined;
  if (load !== undefined) {
    const { main } = await load();
    return main(rest).catch((error: unknown) => {
      // A usage error without a hint of its own points at its command's help.
      if (error instanceof UsageError && error.hint === undefined) error.hint = `agentwrap ${first} --help`;
      throw error;
    });
  }
  // Anything else is the launch form: `agentwrap [options] <agent> [args…]`.
  const { main } = await import('./commands/launch.js');
  return main(argv);
}

/** `help status explain` → `status explain --help`; a word that is no command is a usage error. */
function helpArgs(words: readonly string[]): string[] {
  const [name] = words;
  if (name === 'help' || name === '-h' || name === '--help') return ['--help'];
  if (name === undefined || findCommand([name]) === undefined) {
    const near = closest(name ?? '', Object.keys(COMMANDS));
    throw new UsageError(`help: no command "${name ?? ''}"${near === undefined ? '' : `; did you mean ${near}?`}`, { hint: 'agentwrap --help' });
  }
  return [...words, '--help'];
}

/** Maps errors to one line on stderr and an exit code; a bug keeps its stack. */
export function exitCodeForError(error: unknown): number {
  // Messages quote what they failed on (a recording's header, a session's reply): printDiagnostic
  // and forTerminal keep its escape sequences off the user's terminal.
  if (error instanceof UsageError) {
    printDiagnostic(`${error.message} (see ${error.hint ?? 'agentwrap --help'})`);
    return 2;
  }
  if (error instanceof CliError) {
    printDiagnostic(error.message);
    return error.exitCode;
  }
  process.stderr.write(`agentwrap: internal error: ${forTerminal(error instanceof Error ? (error.stack ?? error.message) : String(error), { multiline: true })}\n`);
  return 70;
}
