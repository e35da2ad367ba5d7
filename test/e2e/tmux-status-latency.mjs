#!/usr/bin/env node
/**
 * How fast the tmux status line shows a wrapped agent's state, and that tmux runs nothing to
 * show it (docs/signals.md, "The tmux status line, measured").
 *
 * Three wrapped demo agents (`agentwrap demo`) in one tmux server of its own (`tmux -L sig`,
 * no config file), status-right made of tmux format loops over the pane options agentwrap sets
 * (@agent_state, @agent_reason; no `#(…)`), `status-interval 0` so nothing redraws on a timer.
 * A client is attached in a pty and read through a headless terminal: its bottom row is the
 * status line as a person sees it. Each round types a prompt into every pane (`hello`: working →
 * done; `run`: working → blocked, answered with 1, → working → done; `edit`: working → blocked,
 * answered with Esc → idle). For every transition, the delay runs from the record's
 * `state_since` (when agentwrap published it) to the attached client's status line showing it.
 * Meanwhile every process on the machine is sampled every 20 ms: the tmux server's children must
 * stay the three panes, and the only agentwrap processes the three wrappers.
 *
 *   node test/e2e/tmux-status-latency.mjs [--rounds N] [--speed S] [--json]
 *
 * Needs `npx tsc -p tsconfig.json` first (it runs dist/), and tmux. Run it under
 * `flock /tmp/agentwrap-heavy.lock`. Prints per-transition delays, then the summary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import xterm from '@xterm/headless';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const SOCKET = 'sig';
const STATUS = '#{W:#{P:#{?@agent_state,#{pane_id}=#{@agent_state}#{?@agent_reason,:#{@agent_reason},} ,}}}';
const COLS = 160;
const ROWS = 45;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const rounds = Number(option('--rounds', '3'));
const speed = option('--speed', '4');
const asJson = args.includes('--json');
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npx tsc -p tsconfig.json first`);

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const tmux = (...rest) => spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...rest], { encoding: 'utf8' });
async function until(check, what, timeoutMs = 60_000) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
const quote = (text) => `'${String(text).replace(/'/g, `'\\''`)}'`;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor((sorted.length - 1) / 2)];
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** pid → {ppid, cmd} of every process now. */
function processes() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      table.set(Number(name), { ppid, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

const dir = mkdtempSync(join(tmpdir(), 'agentwrap-tmux-latency-'));
const stateDir = join(dir, 'state');
let watcher;
const cleanup = () => {
  watcher?.kill();
  tmux('kill-server');
  // The wrappers remove their records as they end, after the server's hangup: wait for them.
  for (let k = 0; k < 50; k += 1) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      spawnSync('sleep', ['0.1']);
    }
  }
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

tmux('kill-server');
const demo = `env AGENT_STATUS_DIR=${quote(stateDir)} AGENTWRAP_DEMO_SPEED=${quote(speed)} ${quote(process.execPath)} ${quote(CLI)} demo`;
const env = { ...process.env };
delete env.TMUX;
delete env.TMUX_PANE;
if (spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', 'new-session', '-d', '-s', 'sig', '-x', String(COLS), '-y', String(ROWS), demo], { env }).status !== 0) {
  throw new Error('tmux new-session failed');
}
tmux('set-option', '-g', 'status-interval', '0');
tmux('set-option', '-g', 'status-right-length', '300');
tmux('set-option', '-g', 'status-right', STATUS);
for (let k = 0; k < 2; k++) tmux('split-window', '-v', '-t', 'sig', demo);
tmux('select-layout', '-t', 'sig', 'even-vertical');
const panes = tmux('list-panes', '-t', 'sig', '-F', '#{pane_id}').stdout.trim().split('\n');
const serverPid = Number(tmux('display-message', '-p', '#{pid}').stdout.trim());

// The attached client: every change of its bottom row, with when it was parsed.
const screen = new xterm.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
const seen = [];
const client = pty.spawn('tmux', ['-L', SOCKET, 'attach', '-t', 'sig'], { cols: COLS, rows: ROWS, env: { ...env, TERM: 'xterm-256color' } });
client.onData((data) => {
  screen.write(data, () => {
    const row = screen.buffer.active.getLine(ROWS - 1)?.translateToString(true) ?? '';
    if (row !== seen.at(-1)?.row) seen.push({ atMs: Date.now(), row });
  });
});

// Transitions as the records say: (pane, state, state_since), polled fast (the time is the record's own).
const transitions = [];
const lastOf = new Map();
const paneOfFile = new Map();
function pollRecords() {
  const sessions = join(stateDir, 'sessions');
  if (!existsSync(sessions)) return;
  for (const file of readdirSync(sessions).filter((name) => name.endsWith('.json'))) {
    let record;
    try {
      record = JSON.parse(readFileSync(join(sessions, file), 'utf8'));
    } catch {
      continue;
    }
    const pane = record.tmux?.pane;
    if (pane === undefined) continue;
    paneOfFile.set(file, { pane, wrapper: record.wrapper_pid });
    const key = `${record.state}@${record.state_since}`;
    if (lastOf.get(file) === key) continue;
    lastOf.set(file, key);
    transitions.push({ pane, state: record.state, reason: record.reason, sinceMs: record.state_since });
  }
}

// Processes: the tmux server's children, and every agentwrap CLI process, over the whole run.
const serverChildren = new Set();
const agentwrapPids = new Map();
function sampleProcesses() {
  const table = processes();
  for (const [pid, { ppid, cmd }] of table) {
    if (ppid === serverPid) serverChildren.add(`${pid} ${cmd.slice(0, 60)}`);
    if (cmd.includes(CLI) && !cmd.startsWith('tmux ')) agentwrapPids.set(pid, { ppid, cmd: cmd.slice(0, 80) });
  }
}
const poller = setInterval(pollRecords, 5);
const sampler = setInterval(sampleProcesses, 20);

// `agentwrap events` too: its `t` is when the session announced the change (the wall clock at
// publication), which shows how much of the delay is before the tmux call.
const events = [];
watcher = spawn(process.execPath, [CLI, 'events'], { env: { ...env, AGENT_STATUS_DIR: stateDir }, stdio: ['ignore', 'pipe', 'ignore'] });
let pendingLine = '';
watcher.stdout.on('data', (data) => {
  pendingLine += data.toString('utf8');
  const lines = pendingLine.split('\n');
  pendingLine = lines.pop() ?? '';
  for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
});

const shows = (pane, state, fromMs) => seen.some((entry) => entry.atMs >= fromMs && new RegExp(`${pane}=${state}[ :]`).test(entry.row));
await until(() => panes.every((pane) => shows(pane, 'idle', 0)), 'three idle agents in the status line');

const [first, second, third] = panes;
/** The pane's state in the status line as it stands now. */
const current = (pane) => new RegExp(`${pane}=(\\w+)`).exec(seen.at(-1)?.row ?? '')?.[1];
for (let round = 0; round < rounds; round += 1) {
  // Every pane back at its prompt first: the demo takes a prompt only when idle.
  await until(() => panes.every((pane) => ['idle', 'done'].includes(current(pane) ?? '')), 'three idle agents');
  await sleep(300);
  const startedAt = Date.now();
  tmux('send-keys', '-t', first, 'hello', 'Enter');
  tmux('send-keys', '-t', second, 'run', 'Enter');
  tmux('send-keys', '-t', third, 'edit', 'Enter');
  await until(() => shows(second, 'blocked', startedAt) && shows(third, 'blocked', startedAt), 'two dialogs');
  await sleep(300);
  tmux('send-keys', '-t', second, '1');
  tmux('send-keys', '-t', third, 'Escape');
  await until(() => shows(first, 'done', startedAt) && shows(second, 'done', startedAt) && shows(third, '(idle|done)', startedAt + 300), 'the turns to end');
  await sleep(500);
  // done → idle once seen: the next prompt counts as looking.
}
await sleep(300);
pollRecords();
clearInterval(poller);
clearInterval(sampler);
sampleProcesses();

watcher.kill();
const sessionOfPane = new Map([...paneOfFile].map(([file, v]) => [v.pane, file.replace(/\.json$/, '')]));
const measured = [];
for (const t of transitions) {
  // A session's first record (unknown, before anything was published) is no change: nothing is set.
  if (t.state === 'unknown') continue;
  const shown = seen.find((entry) => entry.atMs >= t.sinceMs - 50 && new RegExp(`${t.pane}=${t.state}[ :]`).test(entry.row));
  const announced = events
    .filter((e) => e.session === sessionOfPane.get(t.pane) && e.to === t.state && Math.abs(e.t - t.sinceMs) < 1_000)
    .sort((a, b) => Math.abs(a.t - t.sinceMs) - Math.abs(b.t - t.sinceMs))[0];
  measured.push({
    ...t,
    shownMs: shown === undefined ? null : Math.round(shown.atMs - t.sinceMs),
    announcedMs: announced === undefined ? null : Math.round(announced.t - t.sinceMs),
  });
}
const delays = measured.map((m) => m.shownMs).filter((ms) => ms !== null);
const announcedDelays = measured.map((m) => m.announcedMs).filter((ms) => ms !== null);
const fromAnnounced = measured.filter((m) => m.shownMs !== null && m.announcedMs !== null).map((m) => m.shownMs - m.announcedMs);
const wrappers = [...paneOfFile.values()].map((v) => v.wrapper);
const summary = {
  date: new Date().toISOString(),
  rounds,
  transitions: measured.length,
  shown: delays.length,
  since_to_status_line_ms: { median: median(delays), p95: percentile(delays, 95), max: delays.length === 0 ? null : Math.max(...delays) },
  since_to_announced_ms: { median: median(announcedDelays), max: announcedDelays.length === 0 ? null : Math.max(...announcedDelays) },
  announced_to_status_line_ms: { median: median(fromAnnounced), p95: percentile(fromAnnounced, 95), max: fromAnnounced.length === 0 ? null : Math.max(...fromAnnounced) },
  // Every process the tmux server started during the run: the three panes and nothing else.
  tmux_server_children: [...serverChildren],
  // agentwrap processes other than the three wrappers and this script's `agentwrap events`, by
  // parent: a wrapper's own forks on their way to exec `tmux set-option` are not tmux's doing.
  other_agentwrap_processes: {
    started_by_tmux: [...agentwrapPids].filter(([pid, v]) => v.ppid === serverPid && !wrappers.includes(pid)).length,
    forks_of_the_wrappers: [...agentwrapPids].filter(([, v]) => wrappers.includes(v.ppid)).length,
    other: [...agentwrapPids].filter(([pid, v]) => !wrappers.includes(pid) && !wrappers.includes(v.ppid) && v.ppid !== serverPid && pid !== watcher.pid).map(([pid, v]) => `${pid} (parent ${v.ppid}) ${v.cmd}`),
  },
};
client.kill();
if (asJson) console.log(JSON.stringify({ summary, measured }, null, 2));
else {
  for (const m of measured) console.log(`${m.pane} ${m.state}${m.reason === undefined ? '' : `:${m.reason}`}: announced ${m.announcedMs ?? '?'} ms, status line ${m.shownMs ?? 'never'} ms after state_since`);
  console.log(JSON.stringify(summary, null, 2));
}
process.exit(0);
