/**
 * An agent that only shows a spinner: one status line redrawn 10 times a second, the way a
 * thinking agent's footer animates. Usage: node dist/test/bench/spinner.js [FPS]
 */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const fps = Number(process.argv[2] ?? '10');
const startedMs = Date.now();
let frame = 0;
process.stdout.write('\x1b[2J\x1b[H> refactor the parser\r\n\r\n');
setInterval(() => {
  const seconds = Math.floor((Date.now() - startedMs) / 1000);
  process.stdout.write(`\r\x1b[2K\x1b[33m${SPINNER[frame % SPINNER.length] ?? '*'}\x1b[0m Thinking… (${seconds}s · esc to interrupt)`);
  frame += 1;
}, 1000 / fps);
