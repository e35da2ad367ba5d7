/**
 * Pure parsing of the two launch forms:
 *   agentwrap [options] <agent> [args…]
 *   agentwrap run [options] -- <command> [args…]
 * agentwrap's options come first; everything after the agent name (or after `--`) belongs to
 * the agent, untouched, even words like `--record` or `--help`.
 */
import { parseArgs } from 'node:util';
import { LAUNCH_TABLE_OPTIONS } from './command-table.js';
import { UsageError } from './errors.js';
import { closest } from './flags.js';

export type LaunchForm = 'agent' | 'run';

export interface LaunchFlags {
  /** --record FILE: asciicast v2 recording of the session. */
  readonly record: string | undefined;
  /** --record-input: also record keystrokes (needs --record). */
  readonly recordInput: boolean;
  /** --pack AGENT: use this agent's pack instead of the one picked by the command name. */
  readonly pack: string | undefined;
  /** --notify / --no-notify: terminal notification on blocked and done; undefined: the config decides. */
  readonly notify: boolean | undefined;
  /** --on-state CMD: run CMD on blocked and done. */
  readonly onState: string | undefined;
  /** false with --no-hooks, true with --hooks; undefined: the config decides (default on). */
  readonly hooks: boolean | undefined;
  /** --no-record: no automatic recording into the config's record_dir for this run. */
  readonly noRecord: boolean;
}

export interface LaunchRequest {
  readonly kind: 'launch';
  readonly form: LaunchForm;
  /** The executable as typed: a name to look up on PATH, or a path. */
  readonly command: string;
  readonly args: readonly string[];
  readonly flags: LaunchFlags;
}

export type LaunchArgs = LaunchRequest | { readonly kind: 'help'; readonly form: LaunchForm };

/** The launch options, as `agentwrap --help` and `agentwrap run --help` both list them. */
export const LAUNCH_OPTIONS_HELP = `options (before the agent name; everything after it goes to the agent untouched):
  --record FILE.cast   record the session (asciicast v2)
  --record-input       also record keystrokes (they can hold secrets)
  --pack AGENT         use this agent's pack instead of the one chosen by the command name
  --notify             notification on blocked and done: the terminal's (OSC 9/777) and the desktop's
                       (notify-send); --no-notify: not this run
  --on-state CMD       run CMD on blocked and done
  --no-hooks           do not install agentwrap's reporter hooks for this run (--hooks: do)
  --no-record          no automatic recording into record_dir (config.toml) for this run
defaults for these come from ~/.config/agentwrap/config.toml (docs/config.md); a flag wins.
`;

export const RUN_USAGE = `usage: agentwrap run [options] -- <cmd> [args…]   run any command wrapped

${LAUNCH_OPTIONS_HELP}`;

export const LAUNCH_USAGE = `usage:
  agentwrap [options] <agent> [args…]        run an agent CLI (claude, codex, opencode…) wrapped
  agentwrap run [options] -- <cmd> [args…]   run any command wrapped

${LAUNCH_OPTIONS_HELP}`;

const LAUNCH_OPTIONS = { ...LAUNCH_TABLE_OPTIONS, help: { type: 'boolean', short: 'h' } } as const;

type LaunchOption = keyof typeof LAUNCH_OPTIONS;

/** Options that contradict each other: given together, the user meant one of them. */
const OPPOSITE_OPTIONS: readonly (readonly [LaunchOption, LaunchOption])[] = [
  ['notify', 'no-notify'],
  ['hooks', 'no-hooks'],
  ['record', 'no-record'],
];

function isLaunchOption(name: string): name is LaunchOption {
  return Object.hasOwn(LAUNCH_OPTIONS, name);
}

/**
 * parseArgs reads the whole line (it cannot stop at the first positional), so its tokens are
 * walked up to the agent name (or `--`): the options before it are agentwrap's, the rest is the
 * agent's, whatever parseArgs made of it. Not strict, so an unknown option comes back as a
 * token and gets a message saying where agentwrap's options go.
 */
export function parseLaunchArgs(form: LaunchForm, argv: readonly string[]): LaunchArgs {
  const what = form === 'run' ? 'the command' : 'the agent name';
  const hint = form === 'run' ? 'agentwrap run --help' : 'agentwrap --help';
  const { tokens } = parseArgs({ args: [...argv], options: LAUNCH_OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const values = new Map<LaunchOption, string | true>();
  let index = argv.length;
  let hasSeparator = false;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      hasSeparator = true;
      index = token.index + 1;
      break;
    }
    if (token.kind === 'positional') {
      index = token.index;
      break;
    }
    if (!isLaunchOption(token.name)) {
      const near = closest(token.name, Object.keys(LAUNCH_TABLE_OPTIONS));
      throw new UsageError(
        near === undefined
          ? `unknown option ${token.rawName}: agentwrap's options go before ${what}, the ones after it go to it`
          : `unknown option ${token.rawName}; did you mean --${near}?`,
        { hint },
      );
    }
    if (token.name === 'help') return { kind: 'help', form };
    const spelled = `--${token.name}`;
    if (LAUNCH_OPTIONS[token.name].type === 'string') {
      if (token.value === undefined) throw new UsageError(`${spelled} needs a value`, { hint });
      if (token.value === '') throw new UsageError(`${spelled} needs a non-empty value`, { hint });
    } else if (token.inlineValue === true) {
      throw new UsageError(`${spelled} takes no value`, { hint });
    }
    if (values.has(token.name)) throw new UsageError(`${spelled} given twice`, { hint });
    values.set(token.name, token.value ?? true);
  }
  const text = (name: LaunchOption): string | undefined => {
    const value = values.get(name);
    return typeof value === 'string' ? value : undefined;
  };

  const command = argv[index];
  if (command === undefined) {
    throw new UsageError(form === 'run' ? `run: no command given${hasSeparator ? ' after --' : ''}` : 'no agent given', { hint });
  }
  if (command === '') throw new UsageError(`${what} is empty`, { hint });
  if (values.has('record-input') && !values.has('record')) {
    throw new UsageError('--record-input needs --record FILE', { hint });
  }
  for (const [a, b] of OPPOSITE_OPTIONS) {
    if (values.has(a) && values.has(b)) throw new UsageError(`--${a} and --${b} contradict each other; give one`, { hint });
  }
  return {
    kind: 'launch',
    form,
    command,
    args: argv.slice(index + 1),
    flags: {
      record: text('record'),
      recordInput: values.has('record-input'),
      pack: text('pack'),
      notify: values.has('notify') ? true : values.has('no-notify') ? false : undefined,
      onState: text('on-state'),
      hooks: values.has('hooks') ? true : values.has('no-hooks') ? false : undefined,
      noRecord: values.has('no-record'),
    },
  };
}

/**
 * Where the first word after agentwrap's leading options is (skipping each option's value), or
 * undefined when there is none or a `--` comes first: `--record b.cast demo` → 2.
 */
export function leadingCommandIndex(argv: readonly string[]): number | undefined {
  const { tokens } = parseArgs({ args: [...argv], options: LAUNCH_OPTIONS, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') return undefined;
    if (token.kind === 'positional') return token.index;
  }
  return undefined;
}
