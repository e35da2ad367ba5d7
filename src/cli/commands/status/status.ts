import type { CommandMain } from '../../dispatch.js';

const SUBCOMMANDS: Readonly<Record<string, () => Promise<{ main: CommandMain }>>> = {
  explain: () => import('./explain.js'),
  capture: () => import('./capture.js'),
};

/** `agentwrap status [explain|capture] …`; without a subcommand, the session list. */
export async function main(args: readonly string[]): Promise<number> {
  const [first, ...rest] = args;
  const load = first === undefined ? undefined : SUBCOMMANDS[first];
  if (load !== undefined) return (await load()).main(rest);
  return (await import('./list.js')).main(args);
}
