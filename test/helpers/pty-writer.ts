/**
 * A child for output-loss tests: writes a deterministic payload of N bytes in one go, then
 * exits at once. `expectedPtyBytes` is what a reader of the pty must get (the pty's ONLCR
 * turns each "\n" into "\r\n").
 */
import { writeSync } from 'node:fs';

const LINE = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()_+-=[]{};:,./<>?|~\n';

export function payload(size: number): Buffer {
  const buffer = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buffer[i] = LINE.charCodeAt(i % LINE.length);
  return buffer;
}

export function expectedPtyBytes(size: number): Buffer {
  return Buffer.from(payload(size).toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
}

/** Node code for `node -e` that writes payload(size) and exits immediately. */
export function writerScript(size: number): string {
  return `const L=${JSON.stringify(LINE)};const b=Buffer.alloc(${size});for(let i=0;i<${size};i++)b[i]=L.charCodeAt(i%L.length);require('fs').writeSync(1,b);process.exit(0)`;
}

// Runnable as a script too: `node pty-writer.js SIZE`.
if (process.argv[1]?.endsWith('pty-writer.js') === true) {
  writeSync(1, payload(Number(process.argv[2])));
  process.exit(0);
}
