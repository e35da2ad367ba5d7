/**
 * The live dashboard's cost and latency with many sessions, measured the way people run it:
 * N wrapped demo agents in windows of one tmux server, `agentwrap status --watch` in another.
 *
 *   npm run build && flock /tmp/agentwrap-heavy.lock node dist/test/bench/dashboard.js [--sessions 20] [--seconds 30] [--json]
 *
 * run.ts (`npm run bench`, `--only=dashboard`) runs it with --json: the figures as one JSON
 * line at the end (DashboardResult).
 *
 * Phase 1 (idle): every agent waits at its prompt; the dashboard's CPU over the window.
 * Phase 2 (busy): half the agents work (long prompts: a 10 fps spinner, title changes), and
 * the selected one streams its screen into the preview; CPU again.
 * Phase 3 (latency): agents are sent prompts that end in a permission dialog; each transition
 * the dashboard draws is traced (AGENTWRAP_DASHBOARD_TRACE): publish time in the agent's
 * wrapper → the frame written, both on this machine's clock.
 * CPU is utime+stime of the dashboard process from /proc, as % of one core.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(argv[i + 1]);
};
const SESSIONS = option('sessions', 20);
const SECONDS = option('seconds', 30);
const SOCKET = `dashboard-bench-${process.pid}`;
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

const state = mkdtempSync(join(tmpdir(), 'dashboard-bench-state-'));
const trace = join(state, 'trace.ndjson');
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([n]) => n !== 'TMUX' && n !== 'TMUX_PANE')), AGENT_STATUS_DIR: state };

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', env }).trimEnd();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

async function cpuPercent(pid: number, seconds: number): Promise<number> {
  const startTicks = cpuTicks(pid);
  const start = performance.now();
  await sleep(seconds * 1000);
  const ticks = cpuTicks(pid) - startTicks;
  return (100 * ticks) / CLK_TCK / ((performance.now() - start) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** What --json prints: CPU % of one core per phase, and publish → frame delays in ms. */
export interface DashboardResult {
  readonly sessions: number;
  readonly seconds: number;
  readonly idlePct: number;
  readonly busyPct: number;
  readonly delaysMs: readonly number[];
}

async function main(): Promise<void> {
  const demo = `AGENTWRAP_DEMO_SPEED=0.5 exec ${process.execPath} ${CLI} demo`;
  const panes = [tmux('new-session', '-d', '-P', '-F', '#{pane_id}', '-s', 'bench', '-x', '140', '-y', '50', demo)];
  for (let i = 1; i < SESSIONS; i++) panes.push(tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'bench', demo));
  const records = (): number => (existsSync(join(state, 'sessions')) ? readdirSync(join(state, 'sessions')).filter((f) => f.endsWith('.json')).length : 0);
  await waitFor(() => records() === SESSIONS, `${SESSIONS} session records`);
  await sleep(3_000);

  tmux('new-window', '-t', 'bench', `AGENTWRAP_DASHBOARD_TRACE=${trace} exec ${process.execPath} ${CLI} status --watch`);
  const dashboardPid = Number(tmux('display', '-p', '#{pane_pid}'));
  await waitFor(() => tmux('capture-pane', '-p').includes(`${SESSIONS} sessions`), 'the dashboard');
  await sleep(3_000);

  const idle = await cpuPercent(dashboardPid, SECONDS);
  console.log(`idle: ${SESSIONS} sessions at their prompt, dashboard ${idle.toFixed(2)}% of a core over ${SECONDS} s`);

  // Half of them think for a long time (12 s at speed 1, 24 s here), spinner at 10 fps.
  const busy = panes.slice(0, Math.floor(SESSIONS / 2));
  for (const pane of busy) tmux('send-keys', '-t', pane, 'a long task', 'Enter');
  await sleep(2_000);
  const working = await cpuPercent(dashboardPid, Math.min(SECONDS, 20));
  console.log(`busy: ${busy.length} of ${SESSIONS} working (spinners, the selected one previewed), dashboard ${working.toFixed(2)}% of a core`);
  // The summary (first line) counts working sessions until the last long task ended.
  await waitFor(() => !(tmux('capture-pane', '-p').split('\n')[0] ?? '').includes('working'), 'the long tasks to end', 90_000);

  // Latency: prompts that end in a permission dialog (working → blocked), answered (→ working → done).
  rmSync(trace, { force: true });
  for (const pane of panes.slice(0, 10)) {
    tmux('send-keys', '-t', pane, 'please run it', 'Enter');
    await sleep(700);
  }
  await sleep(8_000);
  for (const pane of panes.slice(0, 10)) {
    tmux('send-keys', '-t', pane, '1');
    await sleep(500);
  }
  await sleep(8_000);
  const lines = existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n') : [];
  const delays = lines.map((line) => JSON.parse(line) as { published_at: number; drawn_at: number }).map((e) => e.drawn_at - e.published_at);
  console.log(
    `latency: ${delays.length} transitions drawn, publish → frame median ${median(delays).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms`,
  );
  if (argv.includes('--json')) {
    const result: DashboardResult = { sessions: SESSIONS, seconds: SECONDS, idlePct: idle, busyPct: working, delaysMs: delays };
    console.log(JSON.stringify(result));
  }
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    // The killed agents' wrappers are still removing their records: retry while they finish.
    rmSync(state, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });
