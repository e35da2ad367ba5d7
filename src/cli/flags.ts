/**
 * Flag parsing for the subcommands, over node:util parseArgs (strict: an unknown option is a
 * UsageError naming it). The launch forms have their own parser (argv.ts) because everything
 * after the agent name must reach the agent untouched.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<T extends FlagSpec>(
  command: string,
  args: readonly string[],
  options: T,
): { values: ReturnType<typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>>['values']; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: parsed.values, positionals: parsed.positionals };
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
