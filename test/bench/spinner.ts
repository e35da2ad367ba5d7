/**
 * An agent that only shows a spinner: one status line redrawn 10 times a second, the way a
 * thinking agent's footer animates. Usage: node dist/test/bench/spinner.js [FPS]
 *
 * `p` on stdin pauses it: the spinner line gives way to a prompt box and the screen goes quiet,
 * as an agent waiting for its user does; `r` resumes it. The lines are the demo agent's, so under
 * `--pack demo` the session is working while it spins and idle while paused: the scale benchmark
 * makes the same sessions spin, sit idle, and change state on demand.
 */
const SPINNER = ['·', '✢', '✳', '✶', '✻', '✽'];
const PROMPT_BOX = `${'─'.repeat(40)}\r\n> \r\n${'─'.repeat(40)}\r\n  ? for shortcuts`;
const fps = Number(process.argv[2] ?? '10');
const startedMs = Date.now();
let frame = 0;
let timer: NodeJS.Timeout | undefined;

function spin(): void {
  if (timer === undefined) process.stdout.write('\x1b[3;1H\x1b[J');
  timer ??= setInterval(() => {
    const seconds = Math.floor((Date.now() - startedMs) / 1000);
    process.stdout.write(`\r\x1b[2K\x1b[33m${SPINNER[frame % SPINNER.length] ?? '*'}\x1b[0m Thinking… (${seconds}s · esc to interrupt)`);
    frame += 1;
  }, 1000 / fps);
}

function pause(): void {
  if (timer !== undefined) clearInterval(timer);
  timer = undefined;
  process.stdout.write(`\x1b[3;1H\x1b[J${PROMPT_BOX}`);
}

process.stdout.write('\x1b[2J\x1b[H> refactor the parser\r\n\r\n');
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', (data: Buffer) => {
  const text = data.toString('latin1');
  if (text.includes('\u0003')) process.exit(0);
  if (text.includes('p')) pause();
  if (text.includes('r')) spin();
});
spin();
