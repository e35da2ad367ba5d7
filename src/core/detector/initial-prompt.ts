/**
 * Whether an agent's command line carries a prompt, so that the start-up work is a turn
 * (`claude "fix the tests"` must still end in `done`). Per agent, from each CLI's own usage:
 * - claude: a positional argument (`claude "…"`), unless it names a subcommand.
 * - codex: a positional argument (`codex "…"`), unless it names a subcommand (`resume`, …).
 * - gemini: `-i`/`--prompt-interactive "…"` (a positional prompt or `-p` runs one-shot,
 *   without the interactive screen).
 * - opencode: `--prompt "…"` (a positional argument is the project directory).
 * Options that take a value are skipped with it, so `claude --model opus` has no prompt.
 * Any other agent (or `agentwrap run`): no prompt is assumed; its first turn starts with input.
 */

interface PromptShape {
  /** A positional argument that is not a subcommand is the prompt. */
  readonly positional: boolean;
  /** Options whose value is the prompt. */
  readonly promptOptions: readonly string[];
  /** Options that take a separate value (skipped together with it). */
  readonly valueOptions: readonly string[];
  readonly subcommands: readonly string[];
}

const SHAPES: Readonly<Record<string, PromptShape>> = {
  claude: {
    positional: true,
    promptOptions: [],
    valueOptions: [
      '--model', '--fallback-model', '--permission-mode', '--session-id', '--add-dir', '--allowedTools', '--allowed-tools',
      '--disallowedTools', '--disallowed-tools', '--mcp-config', '--append-system-prompt', '--system-prompt', '--settings',
      '--output-format', '--input-format', '--agents', '--setting-sources', '--plugin-dir', '--debug-file', '--agent',
    ],
    subcommands: ['mcp', 'config', 'update', 'doctor', 'install', 'migrate-installer', 'setup-token', 'plugin'],
  },
  codex: {
    positional: true,
    promptOptions: [],
    valueOptions: ['-m', '--model', '-p', '--profile', '-c', '--config', '-s', '--sandbox', '-a', '--ask-for-approval', '-C', '--cd', '-i', '--image', '--add-dir', '--local-provider', '--enable', '--disable'],
    subcommands: ['exec', 'e', 'login', 'logout', 'mcp', 'mcp-server', 'app-server', 'completion', 'sandbox', 'debug', 'apply', 'a', 'resume', 'fork', 'cloud', 'features', 'help'],
  },
  gemini: {
    positional: false,
    promptOptions: ['-i', '--prompt-interactive'],
    valueOptions: ['-m', '--model', '-p', '--prompt', '--approval-mode', '-e', '--extensions', '--include-directories', '--allowed-tools', '--allowed-mcp-server-names', '-o', '--output-format', '-r', '--resume'],
    subcommands: [],
  },
  opencode: {
    positional: false,
    promptOptions: ['--prompt'],
    valueOptions: ['-m', '--model', '-s', '--session', '--agent', '--port', '--hostname', '--log-level'],
    subcommands: [],
  },
};

/** Whether `args` (after the command name) give `agent` a prompt to start on. */
export function hasCommandLinePrompt(agent: string, args: readonly string[]): boolean {
  const shape = SHAPES[agent];
  if (shape === undefined) return false;
  for (let k = 0; k < args.length; k++) {
    const arg = args[k] as string;
    if (arg === '--') return shape.positional && k + 1 < args.length && (args[k + 1] as string).trim() !== '';
    const [name, inlineValue] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (shape.promptOptions.includes(name)) {
      const value = inlineValue ?? args[k + 1];
      return value !== undefined && value.trim() !== '';
    }
    if (arg.startsWith('-')) {
      if (inlineValue === undefined && shape.valueOptions.includes(name)) k += 1;
      continue;
    }
    // The first positional argument decides: a subcommand, or the prompt.
    return shape.positional && !shape.subcommands.includes(arg) && arg.trim() !== '';
  }
  return false;
}
