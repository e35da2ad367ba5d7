import { CliError } from '../errors.js';

// Placeholder until this command lands; it says so instead of pretending to work.
export async function main(_args: readonly string[]): Promise<number> {
  throw new CliError('`status-explain` is not implemented yet', { exitCode: 2 });
}
