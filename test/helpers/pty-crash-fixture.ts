/**
 * Run from the built tree (dist/test/helpers/pty-crash-fixture.js) inside an outer pty: wraps
 * an agent that turns on the alternate screen and hides the cursor, then crashes agentwrap
 * itself with an uncaught exception once the agent is up.
 */
import { launchWrapped } from '../../src/app/launch/launch.js';

const session = launchWrapped({
  file: '/bin/sh',
  args: ['-c', 'printf "\\033[?1049h\\033[?25l"; echo AGENT=$$ READY; sleep 20'],
});
let output = '';
session.onOutput((chunk) => {
  output += chunk.toString();
  if (output.includes('READY')) {
    setTimeout(() => {
      throw new Error('boom inside agentwrap');
    }, 50);
  }
});
