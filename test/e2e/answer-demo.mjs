// Answer and prompt from anywhere, shown end to end (docs/answer.md): a tmux server of its own
// with three wrapped demo agents (one blocked on its permission dialog, one thinking, one idle),
// `agentwrap status --watch` in a fourth pane and `agentwrap dashboard` behind headless Chromium.
// The blocked one is answered three times, once each from `agentwrap answer`, from the watch
// pane (tmux send-keys "1") and from the web page (a click on its first option button, through
// the Chrome DevTools protocol), and each time the script measures how long the session's
// record takes to say `working` after the answer was given. Then a stale answer: the dialog it
// was meant for has been answered and another one shows; it is refused, says what shows now,
// and the session stays blocked on the new dialog.
//
//   flock /tmp/agentwrap-heavy.lock node --experimental-websocket test/e2e/answer-demo.mjs [--json]
//
// Needs a built dist/ (npx tsc -p tsconfig.json), tmux and chromium. Prints one line per step and
// the measured latencies; exits 1 when a step fails or an answer took longer than 1 s.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const SOCKET = `aw-answer-${process.pid}`;
const LIMIT_MS = 1000;
const asJson = process.argv.includes('--json');
const base = mkdtempSync(join(tmpdir(), 'aw-answer-e2e-'));
const stateDir = join(base, 'status');
const env = { ...process.env, AGENT_STATUS_DIR: stateDir };
const cleanups = [];

const say = (line) => {
  if (!asJson) process.stdout.write(`${line}\n`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (...args) => execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

function records() {
  let names = [];
  try {
    names = readdirSync(join(stateDir, 'sessions')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return [{ ...JSON.parse(readFileSync(join(stateDir, 'sessions', name), 'utf8')), key: name.slice(0, -'.json'.length) }];
    } catch {
      return [];
    }
  });
}
const recordOf = (pane) => records().find((r) => r.tmux?.pane === pane);

async function until(what, probe, timeoutMs = 30_000, pollMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** ms from `t0` until the pane's record says working (polled every 5 ms: the measurement's resolution). */
async function workingAfter(pane, t0) {
  await until(`${pane} working`, () => recordOf(pane)?.state === 'working', 10_000, 5);
  return Date.now() - t0;
}

const capture = (pane) => tmux('capture-pane', '-p', '-t', pane);

/** Types a prompt into a demo pane as a person would: the text, then Enter once it shows. */
async function prompt(pane, text) {
  tmux('send-keys', '-t', pane, '-l', text);
  await until(`${pane} echoing the prompt`, () => capture(pane).includes(text), 10_000);
  tmux('send-keys', '-t', pane, 'Enter');
}

async function blockedWithDialog(pane) {
  return until(`${pane} blocked with its dialog`, () => {
    const r = recordOf(pane);
    return r?.state === 'blocked' && r.dialog !== undefined ? r : undefined;
  });
}

/** Back to idle for the next round: the demo's turn ends (done), then the record is acked. */
async function settle(pane, key) {
  await until(`${pane} done`, () => ['done', 'idle'].includes(recordOf(pane)?.state), 30_000);
  execFileSync(process.execPath, [CLI, 'ack', key], { env });
  await until(`${pane} idle`, () => recordOf(pane)?.state === 'idle', 10_000);
}

// ── headless Chromium over the DevTools protocol ──────────────────────────────────────────────

async function openBrowser(url) {
  const chrome = spawn('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-port=0', `--user-data-dir=${join(base, 'chromium')}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => chrome.kill('SIGKILL'));
  let stderr = '';
  chrome.stderr.on('data', (chunk) => (stderr += chunk));
  const wsUrl = await until('chromium DevTools', () => /DevTools listening on (ws:\/\/\S+)/.exec(stderr)?.[1], 30_000);
  const port = new URL(wsUrl).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r, j) => {
    ws.onopen = r;
    ws.onerror = j;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  const call = (method, params = {}) =>
    new Promise((r) => {
      id += 1;
      pending.set(id, r);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async (expression) => (await call('Runtime.evaluate', { expression, returnByValue: true })).result?.result?.value;
  await call('Page.navigate', { url });
  cleanups.push(() => ws.close());
  return { evaluate };
}

// ── the run ───────────────────────────────────────────────────────────────────────────────────

async function main() {
  const results = { answers: [], stale: undefined };
  const demo = `exec ${q(process.execPath)} ${q(CLI)} demo`;
  tmux('new-session', '-d', '-s', 'answer', '-x', '220', '-y', '60', '-e', `AGENT_STATUS_DIR=${stateDir}`, demo);
  cleanups.push(() => tmux('kill-server'));
  const panes = [tmux('display-message', '-p', '-t', 'answer', '#{pane_id}').trim()];
  for (const command of [demo, `${demo} --speed 0.1`]) panes.push(tmux('split-window', '-P', '-F', '#{pane_id}', '-t', 'answer', '-e', `AGENT_STATUS_DIR=${stateDir}`, command).trim());
  const watch = tmux('split-window', '-P', '-F', '#{pane_id}', '-t', 'answer', '-e', `AGENT_STATUS_DIR=${stateDir}`, `exec ${q(process.execPath)} ${q(CLI)} status --watch`).trim();
  tmux('select-layout', '-t', 'answer', 'tiled');
  const [target, idle, thinking] = panes;
  for (const pane of panes) await until(`${pane} started`, () => capture(pane).includes('for shortcuts'));
  await until('three records', () => records().length === 3 && records().every((r) => r.state === 'idle'));
  const targetRecord = recordOf(target);
  const targetKey = targetRecord.session_id;
  await prompt(thinking, 'long thinking please');
  say(`tmux -L ${SOCKET}: demo agents in ${panes.join(', ')}, status --watch in ${watch}; state directory ${stateDir}`);

  const dashboard = spawn(process.execPath, [CLI, 'dashboard', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => dashboard.kill());
  let dashOut = '';
  dashboard.stdout.on('data', (c) => (dashOut += c));
  const dashUrl = await until('the dashboard URL', () => /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(dashOut)?.[0]);
  const browser = await openBrowser(dashUrl);

  /** Gives the answer one way; returns what was done. The clock starts just before the answer leaves. */
  const answerBy = {
    'agentwrap answer': async () => {
      const t0 = Date.now();
      return { t0, detail: execFileSync(process.execPath, [CLI, 'answer', targetKey, '1'], { env, encoding: 'utf8' }).trim() };
    },
    'status --watch': async () => {
      await until('the watch pane offering the dialog', () => capture(watch).includes('? Do you want to run ls -la?'), 10_000);
      const t0 = Date.now();
      tmux('send-keys', '-t', watch, '1');
      return { t0, detail: 'tmux send-keys 1 into the watch pane' };
    },
    'web dashboard': async () => {
      // Select the blocked session's row, as a person would; its buttons appear with the record's dialog.
      const deadline = Date.now() + 10_000;
      const row = `document.querySelector('tr[data-key="${targetRecord.key}"]')`;
      while (!(await browser.evaluate(`(${row} && ${row}.click(), !!document.getElementById('option-1') && !document.getElementById('act').hidden)`))) {
        if (Date.now() > deadline) throw new Error('no option button on the page');
        await sleep(20);
      }
      const t0 = Date.now();
      const label = await browser.evaluate(`(function(){ var b = document.getElementById('option-1'); b.click(); return b.textContent; })()`);
      return { t0, detail: `clicked "${label}" in headless Chromium` };
    },
  };
  for (const [way, answer] of Object.entries(answerBy)) {
    await prompt(target, 'run the tests');
    await blockedWithDialog(target);
    const { t0, detail } = await answer();
    const ms = await workingAfter(target, t0);
    results.answers.push({ way, ms, ok: ms <= LIMIT_MS });
    say(`${way}: ${detail} → working after ${ms} ms`);
    await settle(target, targetKey);
  }

  // A stale answer: meant for the ls dialog, given while the rm dialog shows.
  await prompt(target, 'run the tests');
  const first = await blockedWithDialog(target);
  execFileSync(process.execPath, [CLI, 'answer', targetKey, '1'], { env });
  await settle(target, targetKey);
  await prompt(target, 'delete the build');
  const second = await blockedWithDialog(target);
  let refusal = '';
  try {
    execFileSync(process.execPath, [CLI, 'answer', targetKey, '1', '--dialog', first.dialog.digest], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    refusal = String(error.stderr).trim();
  }
  await sleep(1500);
  const after = recordOf(target);
  const stale = { refused: refusal !== '', message: refusal, still_blocked: after?.state === 'blocked' && after.dialog?.digest === second.dialog.digest };
  results.stale = stale;
  say(`stale answer (for "${first.dialog.question}" while "${second.dialog.question}" shows): ${stale.refused ? 'refused' : 'SENT'}; 1.5 s later ${stale.still_blocked ? 'still blocked on the new dialog' : 'NOT blocked on it'}`);
  say(`  ${refusal}`);
  say(`others: ${idle} ${recordOf(idle)?.state}, ${thinking} ${recordOf(thinking)?.state}`);
  const ok = results.answers.every((a) => a.ok) && stale.refused && stale.still_blocked;
  if (asJson) process.stdout.write(`${JSON.stringify(results)}\n`);
  return ok ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`answer-demo: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  for (const cleanup of cleanups.reverse()) {
    try {
      cleanup();
    } catch {
      // Already gone.
    }
  }
  await sleep(300);
  rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
process.exit(code);
