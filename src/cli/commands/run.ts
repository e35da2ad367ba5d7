/** `agentwrap run [options] -- <command> [args…]`: run any command wrapped. */
import { LAUNCH_USAGE, parseLaunchArgs } from '../argv.js';
import { launchAndWait } from './launch.js';

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseLaunchArgs('run', args);
  if (parsed.kind === 'help') {
    process.stdout.write(LAUNCH_USAGE);
    return 0;
  }
  return launchAndWait(parsed);
}
