/**
 * The scale benchmark: many wrapped sessions on one machine, with a state directory holding
 * many stale records, measured together in one pass:
 *
 *   1. N sessions of a 10 fps spinner (test/bench/spinner.ts) under `agentwrap run`, each in
 *      its own outer pty; the CPU of every wrapper process over a window (/proc/<pid>/stat
 *      and the threads' schedstat).
 *   2. `agentwrap status --json` wall time, run again and again while those sessions spin
 *      (`node -e 0` interleaved as the floor: Node's own start-up on this machine).
 *   3. `agentwrap events` latency: sessions are paused and resumed (`p`/`r` to the spinner),
 *      and each transition line's arrival is compared with its `t` (the session's transition
 *      time on the same clock).
 *   4. The same N sessions paused (quiet agents, idle wrappers): the CPU window again.
 *
 * Beside them, in the same windows, a few sessions of the same spinner under script(1): the
 * floor every per-session figure is read against (a ratio from one run stays comparable on a
 * machine whose load moves every absolute figure by ±30 %). Memory is private dirty (what one
 * more session costs) and PSS, from smaps_rollup at the end of each window.
 *
 * Used by run.ts (`npm run bench`, `--only=scale`) and runnable alone for investigation:
 *   node dist/test/bench/scale.js [--sessions N] [--baseline N] [--stale N] [--window S] [--warmup S]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openSession, type OuterSession } from './outer.js';
import { sampleCpu, sampleMemory, type CpuSample } from './proc.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** The `agentwrap` command as users start it (the shell front picks Node's options). */
const BIN = join(ROOT, 'src', 'cli', 'bin', 'agentwrap');
const SPINNER = join(ROOT, 'dist', 'test', 'bench', 'spinner.js');

export interface ScaleConfig {
  readonly sessions: number;
  readonly staleRecords: number;
  /** CPU window, seconds. */
  readonly windowS: number;
  /** Settling time before each CPU window, seconds. */
  readonly warmupS: number;
  /**
   * Settling time before the idle window, seconds: a session left at its prompt ticks ever less
   * often as its quiet grows (core/detector/tick-cadence.ts, up to LONG_SETTLED_TICK_MS after a
   * minute), so the idle figure is the steady state only after about a minute.
   */
  readonly idleSettleS: number;
  readonly statusRuns: number;
  /** Sessions paused and resumed for the events latency (two transitions each). */
  readonly eventToggles: number;
  /** script(1) sessions of the same spinner measured in the same windows (0: none). */
  readonly baselineSessions: number;
  /** Where the state directory and records go. */
  readonly scratch: string;
  readonly env: Readonly<Record<string, string>>;
  readonly log: (message: string) => void;
}

export interface CpuWindow {
  /** Per-session CPU % of one core (utime+stime), one figure per wrapper process. */
  readonly statPct: readonly number[];
  readonly schedPct: readonly number[];
  /** All wrappers together, % of one core. */
  readonly totalStatPct: number;
  readonly rssMb: readonly number[];
  readonly privateDirtyMb: readonly number[];
  readonly pssMb: readonly number[];
}

/** script(1) running the same spinner, measured in the same windows: the floor. */
export interface BaselineWindows {
  readonly sessions: number;
  readonly spinning: CpuWindow;
  readonly idle: CpuWindow;
}

export interface ScaleResult {
  readonly sessions: number;
  readonly staleRecords: number;
  readonly spinning: CpuWindow;
  readonly idle: CpuWindow;
  /** Undefined when script(1) is missing or no baseline was asked for. */
  readonly baseline: BaselineWindows | undefined;
  /** `status --json` wall ms, each run, while the sessions sit idle (after the idle window). */
  readonly statusMs: readonly number[];
  /** The same while they spin (a saturated machine: Node's own start-up dominates). */
  readonly statusSpinningMs: readonly number[];
  /** The sessions `status --json` listed (must be N). */
  readonly statusListed: number;
  /** `node -e 0` wall ms, interleaved with the status runs (idle, spinning). */
  readonly nodeFloorMs: readonly number[];
  readonly nodeFloorSpinningMs: readonly number[];
  /** Arrival minus the transition's `t`, ms, one per transition seen. */
  readonly eventLatencyMs: readonly number[];
  /** Transitions expected (two per toggled session). */
  readonly eventsExpected: number;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Records of sessions that ended without cleaning up: half with an expired lease, half with a
 * live lease naming a dead process; a quarter written by another tool (never deleted by
 * agentwrap, convention §4.4). Dead pids: above the kernel's pid_max (4,194,304).
 */
export function writeStaleRecords(sessionsDir: string, count: number, nowMs: number): void {
  mkdirSync(sessionsDir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < count; i++) {
    const isExpired = i % 2 === 0;
    const isForeign = i % 4 === 1;
    const record = {
      schema: 1,
      source_cli: 'claude',
      session_id: `stale-${i}`,
      pid: 5_000_000 + i,
      cwd: `/home/user/src/project-${i % 37}`,
      model: 'claude-sonnet-4',
      model_source: 'report',
      written_by: isForeign ? 'token-oracle' : 'agentwrap',
      started_at: nowMs - 3_600_000,
      updated_at: isExpired ? nowMs - 600_000 - i : nowMs - 1_000,
      ttl_ms: isExpired ? 15_000 : 3_600_000,
      state: 'working',
      state_since: nowMs - 700_000,
      seen: false,
      stuck: false,
      winner: 'pack',
      rule_id: 'spinner',
      title: `✳ task ${i}`,
      wrapper_pid: 5_100_000 + i,
      control: `/nonexistent/stale-${i}.sock`,
    };
    writeFileSync(join(sessionsDir, `claude-stale-${i}.json`), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }
}

function cpuWindowStart(sessions: readonly OuterSession[]): { samples: CpuSample[]; atMs: number } {
  return { samples: sessions.map((s) => sampleCpu(s.pty.pid)), atMs: performance.now() };
}

function cpuWindowEnd(sessions: readonly OuterSession[], start: { samples: CpuSample[]; atMs: number }): CpuWindow {
  const seconds = (performance.now() - start.atMs) / 1000;
  const after = sessions.map((s) => sampleCpu(s.pty.pid));
  const memory = sessions.map((s) => sampleMemory(s.pty.pid));
  const statPct = after.map((a, i) => (100 * (a.statS - (start.samples[i]?.statS ?? a.statS))) / seconds);
  const schedPct = after.map((a, i) => (100 * (a.schedS - (start.samples[i]?.schedS ?? a.schedS))) / seconds);
  return { statPct, schedPct, totalStatPct: statPct.reduce((sum, v) => sum + v, 0), rssMb: after.map((a) => a.rssMb),
    privateDirtyMb: memory.map((m) => m.privateDirtyMb),
    pssMb: memory.map((m) => m.pssMb),
  };
}

interface StatusSession {
  readonly key: string;
  readonly agentwrap: boolean;
  readonly record: { readonly wrapper_pid?: number };
}

function runStatus(env: Readonly<Record<string, string>>): { ms: number; sessions: StatusSession[] } {
  const started = performance.now();
  // As users ask: the `agentwrap` command (its shell front starts the bundle).
  const result = spawnSync(BIN, ['status', '--json'], { env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`status --json exited ${String(result.status)}: ${result.stderr}`);
  return { ms, sessions: (JSON.parse(result.stdout) as { sessions: StatusSession[] }).sessions };
}

function nodeFloor(): number {
  const started = performance.now();
  spawnSync('node', ['-e', '0']);
  return performance.now() - started;
}

/** `status --json` and `node -e 0`, interleaved, `runs` times each. */
function timeStatus(env: Readonly<Record<string, string>>, runs: number): { statusMs: number[]; nodeFloorMs: number[]; listed: number } {
  const statusMs: number[] = [];
  const nodeFloorMs: number[] = [];
  let listed = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const run = runStatus(env);
    statusMs.push(run.ms);
    listed = Math.min(listed, run.sessions.filter((s) => s.agentwrap).length);
    nodeFloorMs.push(nodeFloor());
  }
  return { statusMs, nodeFloorMs, listed };
}

async function waitForLive(env: Readonly<Record<string, string>>, count: number, timeoutMs: number): Promise<StatusSession[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = runStatus(env).sessions.filter((s) => s.agentwrap);
    if (live.length >= count) return live;
    if (Date.now() > deadline) throw new Error(`only ${live.length} of ${count} sessions published a record`);
    await sleep(1000);
  }
}

interface EventLine {
  readonly t: number;
  readonly session: string;
  readonly from: string | null;
  readonly to: string;
}

/** Pauses then resumes `toggled` sessions one at a time; each transition's line latency. */
async function measureEvents(env: Readonly<Record<string, string>>, toggled: readonly { session: OuterSession; key: string }[], log: (m: string) => void): Promise<number[]> {
  const child = spawn('node', [CLI, 'events'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const latencies: number[] = [];
  let waiter: ((line: EventLine) => void) | undefined;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (text) => {
    const arrivedMs = Date.now();
    const line = JSON.parse(text) as EventLine;
    if (line.from === null) return;
    latencies.push(arrivedMs - line.t);
    waiter?.(line);
  });
  const next = (key: string, to: (state: string) => boolean, timeoutMs: number): Promise<EventLine | undefined> =>
    new Promise((done) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        done(undefined);
      }, timeoutMs);
      waiter = (line) => {
        if (line.session !== key || !to(line.to)) return;
        clearTimeout(timer);
        waiter = undefined;
        done(line);
      };
    });
  try {
    await sleep(3000); // the snapshot lines and every subscription
    latencies.length = 0;
    for (const { session, key } of toggled) {
      const quiet = next(key, (to) => to !== 'working', 15_000);
      session.pty.write('p');
      if ((await quiet) === undefined) log(`events: no transition out of working for ${key}`);
      const busy = next(key, (to) => to === 'working', 15_000);
      session.pty.write('r');
      if ((await busy) === undefined) log(`events: no transition to working for ${key}`);
    }
    await sleep(500);
    return [...latencies];
  } finally {
    child.kill('SIGTERM');
  }
}

function hasScript(): boolean {
  return spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function closeAll(sessions: readonly OuterSession[]): Promise<void> {
  const signal = (session: OuterSession, name: NodeJS.Signals): void => {
    try {
      process.kill(session.pty.pid, name);
    } catch {
      // Already gone.
    }
  };
  for (const session of sessions) signal(session, 'SIGTERM');
  await Promise.race([Promise.all(sessions.map((s) => s.exited)), sleep(10_000)]);
  for (const session of sessions) signal(session, 'SIGKILL');
}

export async function measureScale(config: ScaleConfig): Promise<ScaleResult> {
  const stateDir = join(config.scratch, 'scale-state');
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const env = { ...config.env, AGENT_STATUS_DIR: stateDir };
  const sessions: OuterSession[] = [];
  const baseline: OuterSession[] = [];
  try {
    config.log(`scale: starting ${config.sessions} spinner sessions`);
    for (let i = 0; i < config.sessions; i++) {
      sessions.push(openSession([BIN, 'run', '--pack', 'demo', '--', 'node', SPINNER, '10'], { cols: 120, rows: 40, env, cwd: ROOT }));
      // Two cores: fifty Node start-ups at once would take the machine for seconds.
      await sleep(150);
    }
    const baselineCount = hasScript() ? config.baselineSessions : 0;
    for (let i = 0; i < baselineCount; i++) {
      baseline.push(openSession(['script', '-qfc', `exec node ${SPINNER} 10`, '/dev/null'], { cols: 120, rows: 40, env, cwd: ROOT }));
      await sleep(150);
    }
    const live = await waitForLive(env, config.sessions, 120_000);
    // After the sessions started: each sweeps agentwrap's own expired, dead records at start-up.
    writeStaleRecords(join(stateDir, 'sessions'), config.staleRecords, Date.now());
    config.log(`scale: ${live.length} live, ${config.staleRecords} stale records; ${config.warmupS} s warm-up, ${config.windowS} s window (spinning)`);
    await sleep(config.warmupS * 1000);
    const spinStart = cpuWindowStart(sessions);
    const baselineSpinStart = cpuWindowStart(baseline);
    await sleep(config.windowS * 1000);
    const spinning = cpuWindowEnd(sessions, spinStart);
    const baselineSpinning = cpuWindowEnd(baseline, baselineSpinStart);

    config.log(`scale: status --json × ${config.statusRuns} (spinning)`);
    const spinningStatus = timeStatus(env, config.statusRuns);

    const keyOf = new Map(live.map((s) => [s.record.wrapper_pid, s.key]));
    const toggled = sessions
      .slice(0, config.eventToggles)
      .map((session) => ({ session, key: keyOf.get(session.pty.pid) ?? '' }))
      .filter((t) => t.key !== '');
    config.log(`scale: events latency over ${toggled.length} paused and resumed sessions`);
    const eventLatencyMs = await measureEvents(env, toggled, config.log);

    for (const session of [...sessions, ...baseline]) session.pty.write('p');
    config.log(`scale: all paused; ${config.idleSettleS} s settling, ${config.windowS} s window (idle)`);
    await sleep(config.idleSettleS * 1000);
    const idleStart = cpuWindowStart(sessions);
    const baselineIdleStart = cpuWindowStart(baseline);
    await sleep(config.windowS * 1000);
    const idle = cpuWindowEnd(sessions, idleStart);
    const baselineIdle = cpuWindowEnd(baseline, baselineIdleStart);
    config.log(`scale: status --json × ${config.statusRuns} (idle)`);
    const idleStatus = timeStatus(env, config.statusRuns);
    return {
      sessions: config.sessions,
      staleRecords: config.staleRecords,
      spinning,
      idle,
      baseline: baselineCount === 0 ? undefined : { sessions: baselineCount, spinning: baselineSpinning, idle: baselineIdle },
      statusMs: idleStatus.statusMs,
      statusSpinningMs: spinningStatus.statusMs,
      statusListed: Math.min(idleStatus.listed, spinningStatus.listed),
      nodeFloorMs: idleStatus.nodeFloorMs,
      nodeFloorSpinningMs: spinningStatus.nodeFloorMs,
      eventLatencyMs,
      eventsExpected: toggled.length * 2,
    };
  } finally {
    await closeAll([...sessions, ...baseline]);
  }
}

// ---- standalone ------------------------------------------------------------------------------------

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function summarizeScale(r: ScaleResult): string {
  const med = (v: readonly number[]): string => quantile(v, 0.5).toFixed(3);
  return [
    `sessions ${r.sessions}, stale records ${r.staleRecords}`,
    `spinning: per session median ${med(r.spinning.statPct)}% (schedstat ${med(r.spinning.schedPct)}%), max ${Math.max(...r.spinning.statPct).toFixed(3)}%, all ${r.spinning.totalStatPct.toFixed(2)}%`,
    `idle: per session median ${med(r.idle.statPct)}% (schedstat ${med(r.idle.schedPct)}%), all ${r.idle.totalStatPct.toFixed(2)}%`,
    `memory per session: private dirty median ${quantile(r.spinning.privateDirtyMb, 0.5).toFixed(1)} MB, PSS ${quantile(r.spinning.pssMb, 0.5).toFixed(1)} MB (spinning)`,
    ...baselineLines(r, med),
    `status --json (idle sessions): p50 ${quantile(r.statusMs, 0.5).toFixed(0)} ms, p95 ${quantile(r.statusMs, 0.95).toFixed(0)} ms (listed ${r.statusListed}); node -e 0 p50 ${quantile(r.nodeFloorMs, 0.5).toFixed(0)} ms p95 ${quantile(r.nodeFloorMs, 0.95).toFixed(0)} ms`,
    `status --json (spinning): p50 ${quantile(r.statusSpinningMs, 0.5).toFixed(0)} ms, p95 ${quantile(r.statusSpinningMs, 0.95).toFixed(0)} ms; node -e 0 p50 ${quantile(r.nodeFloorSpinningMs, 0.5).toFixed(0)} ms p95 ${quantile(r.nodeFloorSpinningMs, 0.95).toFixed(0)} ms`,
    `events: ${r.eventLatencyMs.length}/${r.eventsExpected} transitions, p50 ${quantile(r.eventLatencyMs, 0.5).toFixed(0)} ms, max ${Math.max(...r.eventLatencyMs).toFixed(0)} ms`,
  ].join('\n');
}

function baselineLines(r: ScaleResult, med: (v: readonly number[]) => string): string[] {
  const b = r.baseline;
  if (b === undefined) return ['script(1): not measured'];
  const ratio = (wrapped: readonly number[], floor: readonly number[]): string => (quantile(wrapped, 0.5) / quantile(floor, 0.5)).toFixed(1);
  return [
    `script(1) × ${b.sessions}, same windows: spinning ${med(b.spinning.schedPct)}% (schedstat), idle ${med(b.idle.schedPct)}%, private dirty ${quantile(b.spinning.privateDirtyMb, 0.5).toFixed(1)} MB, PSS ${quantile(b.spinning.pssMb, 0.5).toFixed(1)} MB`,
    `agentwrap ÷ script(1), schedstat medians: spinning ${ratio(r.spinning.schedPct, b.spinning.schedPct)}×, private dirty ${ratio(r.spinning.privateDirtyMb, b.spinning.privateDirtyMb)}×`,
  ];
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? fallback : Number(process.argv[i + 1]);
  };
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const scratch = mkdtempSync(join(tmpdir(), 'agentwrap-scale-'));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  env['TERM'] = 'xterm-256color';
  delete env['TMUX'];
  try {
    const result = await measureScale({
      sessions: arg('sessions', 50),
      staleRecords: arg('stale', 1000),
      windowS: arg('window', 30),
      warmupS: arg('warmup', 15),
      idleSettleS: arg('idle-settle', 60),
      statusRuns: arg('status-runs', 40),
      eventToggles: arg('toggles', 10),
      baselineSessions: arg('baseline', 10),
      scratch,
      env,
      log: (m) => process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${m}\n`),
    });
    process.stdout.write(`${summarizeScale(result)}\n`);
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
