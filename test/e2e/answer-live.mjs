// A real agent CLI answered from outside (docs/answer.md): the capture lab's approve scenario
// runs the CLI wrapped by agentwrap in a real tmux pane, against the lab's mock model inside
// `unshare -n`; this script watches the pane's state directory and, as soon as the record
// offers the tool's permission dialog, runs `agentwrap answer <session> 1` and measures the time
// until the record says `working`. The lab's driver then sees the tool run without its own key
// (it waits like a person before pressing one) and goes on with the scenario.
//
//   flock /tmp/agentwrap-live.lock node test/e2e/answer-live.mjs [--agent claude] [--size 80x24]
//
// Prints one JSON line per answer; the recording goes to a temporary directory, not recordings/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
// The lab puts each pane's state directory under the temporary directory: a private one, so only
// this run's sessions are answered (other people's capture runs share /tmp).
process.env.AGENTWRAP_ANSWER_TMP ??= mkdtempSync(join(tmpdir(), 'aw-answer-live-'));
process.env.TMPDIR = process.env.AGENTWRAP_ANSWER_TMP;
const TMP = process.env.TMPDIR;
const INSIDE = process.env.AGENTWRAP_CAPTURE_NETNS === '1';
const answered = new Set();
let isBusy = false;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function sessions() {
  const out = [];
  for (const dir of readdirSync(TMP).filter((n) => n.startsWith('agentwrap-capture-pane-'))) {
    const root = join(TMP, dir, 'state');
    let files = [];
    try {
      files = readdirSync(join(root, 'sessions')).filter((f) => f.endsWith('.json'));
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        out.push({ root, key: file.slice(0, -'.json'.length), record: JSON.parse(readFileSync(join(root, 'sessions', file), 'utf8')) });
      } catch {
        // Being renamed into place: read on the next pass.
      }
    }
  }
  return out;
}

async function answerOffered() {
  if (isBusy) return;
  isBusy = true;
  try {
    for (const { root, key, record } of sessions()) {
      if (record.state !== 'blocked' || record.dialog === undefined || answered.has(`${key} ${record.dialog.digest}`)) continue;
      answered.add(`${key} ${record.dialog.digest}`);
      const t0 = Date.now();
      let said;
      try {
        said = execFileSync(process.execPath, [CLI, 'answer', key, '1'], { env: { ...process.env, AGENT_STATUS_DIR: root }, encoding: 'utf8' }).trim();
      } catch (error) {
        said = `refused: ${String(error.stderr).trim()}`;
      }
      let state = '';
      for (const deadline = Date.now() + 5000; Date.now() < deadline && state !== 'working'; await sleep(5)) {
        state = sessions().find((s) => s.key === key)?.record.state ?? '';
      }
      const { question, options } = record.dialog;
      process.stdout.write(`${JSON.stringify({ agent: record.source_cli, key, question, options, said, state, ms: Date.now() - t0 })}\n`);
    }
  } finally {
    isBusy = false;
  }
}

if (INSIDE) setInterval(() => void answerOffered(), 20).unref();
const args = process.argv.slice(2);
const given = (flag) => args.includes(flag);
if (!INSIDE) {
  if (!given('--agent')) args.push('--agent', 'claude');
  if (!given('--size')) args.push('--size', '80x24');
  args.push('--scenario', 'approve', '--habitat', 'tmux', '--no-eval', '--out', join(TMP, 'recordings'));
  process.argv.splice(2, process.argv.length, ...args);
}
await import('../capture/run.mjs');
