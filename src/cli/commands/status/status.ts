import type { CommandMain } from '../../dispatch.js';
import { UsageError } from '../../errors.js';

const SUBCOMMANDS: Readonly<Record<string, () => Promise<{ main: CommandMain }>>> = {
  explain: () => import('./explain.js'),
  capture: () => import('./capture.js'),
};

/** `agentwrap status [explain|capture] …`; without a subcommand, the session list. */
export async function main(args: readonly string[]): Promise<number> {
  const [first, ...rest] = args;
  const load = first === undefined ? undefined : SUBCOMMANDS[first];
  if (load !== undefined) {
    return (await load()).main(rest).catch((error: unknown) => {
      // A usage error without a hint of its own points at its subcommand's help.
      if (error instanceof UsageError && error.hint === undefined) error.hint = `agentwrap status ${first ?? ''} --help`;
      throw error;
    });
  }
  return (await import('./list.js')).main(args);
}
