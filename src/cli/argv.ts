/**
 * Pure parsing of the two launch forms:
 *   agentwrap [options] <agent> [args…]
 *   agentwrap run [options] -- <command> [args…]
 * agentwrap's options come first; everything after the agent name (or after `--`) belongs to
 * the agent, untouched, even words like `--record` or `--help`.
 */
import { UsageError } from './errors.js';

export type LaunchForm = 'agent' | 'run';

export interface LaunchFlags {
  /** --record FILE: asciicast v2 recording of the session. */
  readonly record: string | undefined;
  /** --record-input: also record keystrokes (needs --record). */
  readonly recordInput: boolean;
  /** --pack AGENT: use this agent's pack instead of the one picked by the command name. */
  readonly pack: string | undefined;
  /** --notify: terminal notification on blocked and done. */
  readonly notify: boolean;
  /** --on-state CMD: run CMD on blocked and done. */
  readonly onState: string | undefined;
  /** false with --no-hooks: do not install agentwrap's reporter hooks for this run. */
  readonly hooks: boolean;
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
  --notify             notification on blocked and done: the terminal's (OSC 9/777) and the desktop's (notify-send)
  --on-state CMD       run CMD on blocked and done
  --no-hooks           do not install agentwrap's reporter hooks for this run
`;

export const LAUNCH_USAGE = `usage:
  agentwrap [options] <agent> [args…]        run an agent CLI (claude, codex, opencode…) wrapped
  agentwrap run [options] -- <cmd> [args…]   run any command wrapped

${LAUNCH_OPTIONS_HELP}`;

type ValueOption = '--record' | '--pack' | '--on-state';
type FlagOption = '--record-input' | '--notify' | '--no-hooks';
const VALUE_OPTIONS: readonly ValueOption[] = ['--record', '--pack', '--on-state'];
const FLAG_OPTIONS: readonly FlagOption[] = ['--record-input', '--notify', '--no-hooks'];

function isValueOption(name: string): name is ValueOption {
  return (VALUE_OPTIONS as readonly string[]).includes(name);
}

function isFlagOption(name: string): name is FlagOption {
  return (FLAG_OPTIONS as readonly string[]).includes(name);
}

export function parseLaunchArgs(form: LaunchForm, argv: readonly string[]): LaunchArgs {
  const values = new Map<ValueOption, string>();
  const flags = new Set<FlagOption>();
  const what = form === 'run' ? 'the command' : 'the agent name';
  let index = 0;
  let hasSeparator = false;
  while (index < argv.length) {
    const word = argv[index] as string;
    if (word === '--') {
      hasSeparator = true;
      index += 1;
      break;
    }
    if (word === '-h' || word === '--help') return { kind: 'help', form };
    if (!word.startsWith('-') || word === '-') break;
    const equals = word.indexOf('=');
    const name = equals >= 0 ? word.slice(0, equals) : word;
    if (isValueOption(name)) {
      let value: string | undefined;
      if (equals >= 0) {
        value = word.slice(equals + 1);
        index += 1;
      } else {
        value = argv[index + 1];
        index += 2;
      }
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      if (value === '') throw new UsageError(`${name} needs a non-empty value`);
      if (values.has(name)) throw new UsageError(`${name} given twice`);
      values.set(name, value);
      continue;
    }
    if (isFlagOption(name)) {
      if (equals >= 0) throw new UsageError(`${name} takes no value`);
      if (flags.has(name)) throw new UsageError(`${name} given twice`);
      flags.add(name);
      index += 1;
      continue;
    }
    throw new UsageError(`unknown option ${name} (agentwrap's options go before ${what}; the ones after it go to it)`);
  }

  const command = argv[index];
  if (command === undefined) {
    throw new UsageError(
      form === 'run'
        ? `run: no command given (agentwrap run [options] -- <command> [args…])${hasSeparator ? ' after --' : ''}`
        : 'no agent given (agentwrap [options] <agent> [args…])',
    );
  }
  if (command === '') throw new UsageError(`${what} is empty`);
  if (flags.has('--record-input') && !values.has('--record')) {
    throw new UsageError('--record-input needs --record FILE');
  }
  return {
    kind: 'launch',
    form,
    command,
    args: argv.slice(index + 1),
    flags: {
      record: values.get('--record'),
      recordInput: flags.has('--record-input'),
      pack: values.get('--pack'),
      notify: flags.has('--notify'),
      onState: values.get('--on-state'),
      hooks: !flags.has('--no-hooks'),
    },
  };
}
