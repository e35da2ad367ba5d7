/** `agentwrap run [options] -- <command> [args…]`: run any command wrapped. */
import { RUN_USAGE, parseLaunchArgs } from '../argv.js';

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseLaunchArgs('run', args);
  if (parsed.kind === 'help') {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  // With status on: the live session (detection, records, control socket) attaches to the launch.
  const { runWithSession } = await import('../session-launch.js');
  return runWithSession(parsed);
}
