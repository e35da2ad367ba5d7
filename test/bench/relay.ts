/**
 * The plain node-pty relay: the baseline agentwrap's passthrough is compared with. The command
 * runs in a pty the size of this terminal; output goes to stdout, input to the pty, nothing
 * else (no mirror, no taps, no exit drain). Usage: node dist/test/bench/relay.js CMD [ARGS…]
 */
import { spawnSync } from 'node:child_process';
import * as nodePty from 'node-pty';

const [file, ...args] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: relay.js CMD [ARGS…]\n');
  process.exit(2);
}
const stdin = process.stdin;
const stdout = process.stdout;
const isTty = stdin.isTTY === true && stdout.isTTY === true;
const saved = isTty ? spawnSync('stty', ['-g'], { stdio: [0, 'pipe', 'inherit'], encoding: 'utf8' }).stdout.trim() : '';
if (isTty) {
  stdin.setRawMode(true);
  // Like script(1) and agentwrap: full raw mode, so bytes reach the screen untranslated.
  spawnSync('stty', ['-opost'], { stdio: [0, 'inherit', 'inherit'] });
}
const pty = nodePty.spawn(file, args, {
  name: process.env['TERM'] ?? 'xterm',
  cols: stdout.columns ?? 80,
  rows: stdout.rows ?? 24,
  cwd: process.cwd(),
  env: { ...process.env } as Record<string, string>,
  encoding: null,
});
pty.onData((data: Buffer | string) => {
  stdout.write(data);
});
stdin.on('data', (data: Buffer) => pty.write(data.toString('latin1')));
pty.onExit(({ exitCode }) => {
  if (isTty) {
    stdin.setRawMode(false);
    spawnSync('stty', [saved], { stdio: [0, 'inherit', 'inherit'] });
  }
  process.exit(exitCode);
});
