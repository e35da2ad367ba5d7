/**
 * The one argument parser of the CLI, over node:util parseArgs (strict: an unknown option is a
 * UsageError naming it). Every command declares a `CommandSpec` (its usage text and options)
 * and calls `parseCommand`, which also answers `-h`/`--help` with the usage, the same way for
 * every command. The launch forms (argv.ts) read parseArgs' tokens instead, because everything
 * after the agent name must reach the agent untouched.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
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

/** parseArgs with the command's name on every error; `-h`/`--help` are known (and ignored). */
export function parseFlags<T extends FlagSpec>(command: string, args: readonly string[], options: T): ParsedCommand<T> {
  try {
    const parsed = parseArgs({ args: [...args], options: { ...HELP_OPTION, ...options }, allowPositionals: true, strict: true });
    const { help: _help, ...values } = parsed.values as Values<T> & { help?: boolean };
    return { values: values as Values<T>, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A numeric flag value, or a UsageError naming the flag. */
export function numberFlag(command: string, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`${command}: --${name} wants a number, got "${value}"`);
  return n;
}
