// A stand-in for Claude Code's start (docs/launcher.md, "OSC 7501 program status"): it writes the
// OSC 7501 probe and then its DA1 query, and uses 7501 only if a 7501 reply (data starting with
// `?`) arrives before the DA1 reply. Then it writes a 7501 working and idle status (only if
// answered), a line of text, and its findings as JSON to the file named by its argument:
// { answeredFirst, replies (7501 replies seen by the DA1 reply), da1 (a DA1 reply came) }.
import { writeFileSync } from 'node:fs';

const resultFile = process.argv[2];
const DA1_REPLY = /\x1b\[\?[\d;]*c/;
const REPLY_7501 = '\x1b]7501;?';
let input = '';
let isReported = false;

function report(da1) {
  if (isReported) return;
  isReported = true;
  const da1At = input.search(DA1_REPLY);
  const before = da1At < 0 ? input : input.slice(0, da1At);
  const answeredFirst = before.includes(REPLY_7501);
  const replies = before.split(REPLY_7501).length - 1;
  if (answeredFirst) process.stdout.write('\x1b]7501;state=working:app=probe-agent\x1b\\');
  process.stdout.write('probe agent working\r\n');
  if (answeredFirst) process.stdout.write('\x1b]7501;state=idle:app=probe-agent\x07');
  writeFileSync(resultFile, JSON.stringify({ answeredFirst, replies, da1 }));
  process.stdout.write('probe agent done\r\n');
  process.stdin.setRawMode(false);
  process.exit(0);
}

process.stdin.setRawMode(true);
process.stdin.on('data', (data) => {
  input += data.toString('latin1');
  if (DA1_REPLY.test(input)) report(true);
});
process.stdout.write('\x1b]7501;?\x07\x1b[c');
// A terminal that answers neither: report what came.
setTimeout(() => report(false), 10_000).unref();
