/**
 * The keystroke round-trip probe: echoes every byte it reads straight back, in raw mode (so
 * the terminal's own echo and line editing are out of the way). Ctrl-D ends it.
 * Usage: node dist/test/bench/echo.js
 */
process.stdin.setRawMode(true);
process.stdout.write('echo-ready\r\n');
process.stdin.on('data', (data: Buffer) => {
  if (data.includes(0x04)) process.exit(0);
  process.stdout.write(data);
});
