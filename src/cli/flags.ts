/**
 * The one argument parser of the commands. Every command takes its options from its entry in
 * the command table (command-table.ts) and its usage text from its own module, and calls
 * `parseCommand`, which also answers `-h`/`--help` with the usage, the same way for every
 * command. The launch forms (argv.ts) read parseArgs' tokens too, because everything after the
 * agent name must reach the agent untouched.
 *
 * parseArgs runs non-strict and its tokens are checked here, so every mistake is agentwrap's own
 * one-line message (`status: unknown option --jsno; did you mean --json?`) and never Node's
 * parser text, and a value that starts with `-` reaches the command, which says what is wrong
 * with it (`--host -oProxyCommand=x` is refused as not a host name, docs/publishing.md).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { editDistance } from '../core/text/edit-distance.js';
import { UsageError } from './errors.js';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec<T extends FlagSpec> {
  /** As typed after `agentwrap`, e.g. `status explain`: starts every usage error. */
  readonly name: string;
  /** Printed for `--help`; starts with `usage:`. */
  readonly usage: string;
  readonly options: T;
}

type Values<T extends FlagSpec> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>['values'];

export interface ParsedCommand<T extends FlagSpec> {
  readonly values: Values<T>;
  readonly positionals: string[];
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Parses `args` for `spec`; undefined when `-h`/`--help` was given (the usage is then written
 * to stdout and the command returns 0). Anything after `--` is positional.
 */
export function parseCommand<T extends FlagSpec>(spec: CommandSpec<T>, args: readonly string[]): ParsedCommand<T> | undefined {
  // Help wins over every other mistake on the line: `status explain --bogus --help` helps.
  if (isHelpAsked(args)) {
    process.stdout.write(spec.usage);
    return undefined;
  }
  return parseFlags(spec.name, args, spec.options);
}

/** `-h` or `--help` before any `--`. */
export function isHelpAsked(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '-h' || arg === '--help') return true;
  }
  return false;
}

/** The closest of `known` to `word` (at most two edits away), for a did-you-mean. */
export function closest(word: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word, name);
    if (distance <= 2 && distance < word.length && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * The command's options read from `args`, each mistake a UsageError naming the command and
 * pointing at its `--help`. `-h`/`--help` are known (and ignored). A repeated option that is
 * not `multiple` keeps its last value, as parseArgs does.
 */
export function parseFlags<T extends FlagSpec>(command: string, args: readonly string[], options: T): ParsedCommand<T> {
  const known: FlagSpec = { ...HELP_OPTION };
  for (const [name, option] of Object.entries(options)) {
    known[name] = { type: option.type, ...(option.short === undefined ? {} : { short: option.short }), ...(option.multiple === true ? { multiple: true } : {}) };
  }
  const hint = `agentwrap ${command} --help`;
  const fail = (message: string): UsageError => new UsageError(`${command}: ${message}`, { hint });
  const { tokens } = parseArgs({ args: [...args], options: known, allowPositionals: true, strict: false, tokens: true });
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option' || token.name === 'help') continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (option === undefined) {
      const near = closest(token.name, Object.keys(options));
      throw fail(`unknown option ${token.rawName}${near === undefined ? '' : `; did you mean --${near}?`}`);
    }
    if (option.type === 'boolean') {
      if (token.inlineValue === true) throw fail(`--${token.name} takes no value`);
      values[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw fail(`--${token.name} needs a value`);
    // `--out --json` took the next option for a value: the value was forgotten.
    if (token.inlineValue === false && token.value.startsWith('--') && Object.hasOwn(options, token.value.slice(2).split('=')[0] ?? '')) {
      throw fail(`--${token.name} needs a value, not the option ${token.value}`);
    }
    const previous = values[token.name];
    values[token.name] = option.multiple === true ? [...(Array.isArray(previous) ? previous : []), token.value] : token.value;
  }
  return { values: values as Values<T>, positionals };
}

/** A numeric flag value, or a UsageError naming the flag. */
export function numberFlag(command: string, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`${command}: --${name} wants a number, got "${value}"`, { hint: `agentwrap ${command} --help` });
  return n;
}
