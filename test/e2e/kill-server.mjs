#!/usr/bin/env node
// node test/e2e/kill-server.mjs [--runs 21] [--agent claude,codex,gemini] [--no-netns]
//
// "Killing the tmux server under a wrapped agent N times in a row: 0 crashes, 0 records left
// behind after their TTL" (issue 14), with the real pinned CLIs. Each run starts one CLI wrapped
// by `agentwrap` (hooks on, the default) in a pane of a fresh tmux server, against the capture
// lab's mock model inside `unshare -n`, and kills the server (`tmux -L … kill-server`) at one of
// three moments, taken in turn: `starting` (the CLI's first output byte: agentwrap is up, the
// CLI still loading), `ready` (agentwrap published idle at the CLI's prompt) and `working`
// (a prompt typed and agentwrap published working). Then it counts, per run:
//   - crashes: a stack trace, an `Error` line or a Node assertion on agentwrap's stderr (kept in
//     a file), exit 134/139, or a core file in the CLI's folder;
//   - agentwrap's exit status (the pane's shell outlives the hangup to write it), and whether
//     agentwrap, the CLI or any process of the run is still alive 10 s after the kill;
//   - the session records and control sockets left in the run's state directory once agentwrap
//     is gone, and the sessions `agentwrap status --json` still lists after the records' TTL.
// The result goes to ~/.cache/agentwrap-capture/e2e/results/kill-server.json; E2E.md shows it
// (`npm run e2e -- --md-only` rewrites E2E.md from the stored results).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENTS } from '../capture/agents.mjs';
import { ensureInstalled, cacheRoot } from '../capture/install.mjs';
import { snapshotAgentwrap, killLeftovers, frontOf } from '../capture/driver.mjs';
import { startMock, nowMs } from '../capture/mock.mjs';
import { seed } from '../capture/seed.mjs';
import { startPane, paneFiles } from './tmux-pane.mjs';
import { crashSigns } from './compare.mjs';

const PHASES = ['starting', 'ready', 'working'];
const WAIT_CAP_MS = 60_000;
const GONE_CAP_MS = 10_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const INSIDE = process.env.AGENTWRAP_E2E_NETNS === '1';

function parseArgs(argv) {
  const o = { runs: 21, agents: ['claude', 'codex', 'gemini'], netns: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--runs') o.runs = Number(val());
    else if (a === '--agent') o.agents = val().split(',');
    else if (a === '--no-netns') o.netns = false;
    else throw new Error(`unknown argument ${a}\nusage: node test/e2e/kill-server.mjs [--runs N] [--agent A,B] [--no-netns]`);
  }
  for (const a of o.agents) if (!AGENTS[a]) throw new Error(`unknown agent ${a}`);
  if (!(o.runs > 0)) throw new Error('--runs takes a positive number');
  return o;
}

/** Waits until `check()` returns something other than undefined, or `capMs` passed. */
async function waitFor(check, capMs, everyMs = 50) {
  const end = Date.now() + capMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > end) return undefined;
    await sleep(everyMs);
  }
}

/** The session records in a state directory (parsed; a torn or vanished file is skipped). */
function records(stateDir) {
  const dir = join(stateDir, 'sessions');
  if (!existsSync(dir)) return [];
  const out = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    try { out.push({ file: f, ...JSON.parse(readFileSync(join(dir, f), 'utf8')) }); } catch { /* mid-rename or removed */ }
  }
  return out;
}

const sockets = (stateDir) => (existsSync(join(stateDir, 'sockets')) ? readdirSync(join(stateDir, 'sockets')) : []);
const isAlive = (pid) => pid !== undefined && existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** Pids of processes whose cwd or command line is inside `runDir`. */
function processesIn(runDir) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cmd.includes(runDir) || cwd.startsWith(runDir)) found.push(`${pid} ${cmd.replace(/\0/g, ' ').slice(0, 80)}`);
    } catch { /* gone meanwhile */ }
  }
  return found;
}

/** `agentwrap status --json` against the run's state directory: the sessions it lists. */
function listedSessions(main, stateDir) {
  const r = spawnSync(process.execPath, [main, 'status', '--json'], { env: { ...process.env, AGENT_STATUS_DIR: stateDir }, encoding: 'utf8' });
  try {
    const parsed = JSON.parse(r.stdout);
    return Array.isArray(parsed) ? parsed : (parsed.sessions ?? []);
  } catch {
    return [{ unreadable: r.stdout.slice(0, 200) + r.stderr.slice(0, 200) }];
  }
}

/** One run: start, wait for the phase, kill the server, count what is left. */
async function killOnce({ index, agent, phase, inst, main, baseDir }) {
  const profile = AGENTS[agent];
  const runDir = mkdtempSync(join(baseDir, `${index}-${agent}-${phase}-`));
  const mock = await startMock({});
  // A long think keeps a turn working while the server is killed.
  mock.setScript([{ think: 8000, text: 'Still thinking about it.', chunkMs: 60 }]);
  const seeded = seed(agent, { runDir, baseUrl: mock.baseUrl, version: inst.version });
  const stateDir = mkdtempSync('/tmp/e2e-kill-state-');
  const pidFile = join(runDir, 'agentwrap.pid');
  // `exec` keeps agentwrap the pane's foreground process, as a user's shell runs it.
  const argv = ['sh', '-c', 'echo $$ > "$0"; exec "$@"', pidFile, frontOf(main), profile.bin, ...profile.args];
  const env = { ...seeded.env, PATH: `${dirname(inst.bin)}:${seeded.env.PATH}`, AGENT_STATUS_DIR: stateDir };
  const files = paneFiles(runDir, 'kill');
  const { proc, go } = startPane({ argv, env, cwd: seeded.cwd, cols: 120, rows: 40, habitat: 'tmux', files, keepStatusOnHangup: true });
  let bytes = 0;
  let firstByteAt;
  proc.onData((d) => { firstByteAt ??= nowMs(); bytes += Buffer.byteLength(d); });
  const start = go();
  const stateIs = (want) => () => (records(stateDir).some((r) => r.state === want) ? true : undefined);

  let reached;
  if (phase === 'starting') {
    reached = await waitFor(() => (firstByteAt === undefined ? undefined : true), WAIT_CAP_MS, 5);
  } else {
    reached = await waitFor(stateIs('idle'), WAIT_CAP_MS);
    if (reached && phase === 'working') {
      await sleep(800); // the prompt box takes keys once it is drawn; idle can come a moment before
      proc.write('tell me about this folder');
      await sleep(300);
      proc.write('\r');
      reached = await waitFor(stateIs('working'), 15_000);
    }
  }
  const before = records(stateDir).map((r) => r.state).join(',');
  const killedAt = nowMs();
  proc.kill();

  const agentwrapPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
  const gone = await waitFor(() => (isAlive(agentwrapPid) ? undefined : true), GONE_CAP_MS);
  const exitCode = await waitFor(() => (existsSync(files.exit) ? Number.parseInt(readFileSync(files.exit, 'utf8'), 10) : undefined), 3000);
  const endedMs = Math.round(nowMs() - killedAt);
  await sleep(500);
  const leftProcesses = processesIn(runDir).filter((p) => !p.includes('kill.sh'));
  const leftRecords = records(stateDir);
  const leftSockets = sockets(stateDir);
  const ttlMs = Math.max(0, ...leftRecords.map((r) => (r.updated_at ?? 0) + (r.ttl_ms ?? 0) - Date.now()));
  if (ttlMs > 0) await sleep(ttlMs + 1000);
  const listedAfterTtl = listedSessions(main, stateDir);
  const stderr = existsSync(files.stderr) ? readFileSync(files.stderr, 'utf8') : '';
  const cores = readdirSync(seeded.cwd).filter((f) => /^core(\.\d+)?$/.test(f));

  killLeftovers(runDir, () => {});
  await mock.close();
  rmSync(stateDir, { recursive: true, force: true });
  const crash = [...crashSigns(stderr, exitCode ?? null), ...cores.map((c) => `core file ${c}`)];
  const result = {
    index, agent, phase, reached: reached === true, before, firstByteMs: firstByteAt === undefined ? null : Math.round(firstByteAt - start),
    outputBytes: bytes, agentwrapGone: gone === true, endedMs, exitCode: exitCode ?? null, crash, stderr: stderr.slice(0, 600),
    leftProcesses, leftRecords: leftRecords.map((r) => r.file), leftSockets, listedAfterTtl: listedAfterTtl.length,
  };
  if (crash.length === 0 && leftProcesses.length === 0) rmSync(runDir, { recursive: true, force: true });
  else result.runDir = runDir;
  return result;
}

export function summarizeKills(runs) {
  return {
    runs: runs.length,
    byAgent: Object.fromEntries([...new Set(runs.map((r) => r.agent))].map((a) => [a, runs.filter((r) => r.agent === a).length])),
    byPhase: Object.fromEntries(PHASES.map((p) => [p, runs.filter((r) => r.phase === p).length])),
    reached: runs.filter((r) => r.reached).length,
    crashes: runs.filter((r) => r.crash.length > 0).length,
    stderrNonEmpty: runs.filter((r) => r.stderr.trim() !== '').length,
    notGone: runs.filter((r) => !r.agentwrapGone).length,
    leftProcesses: runs.filter((r) => r.leftProcesses.length > 0).length,
    leftRecords: runs.reduce((n, r) => n + r.leftRecords.length, 0),
    leftSockets: runs.reduce((n, r) => n + r.leftSockets.length, 0),
    listedAfterTtl: runs.reduce((n, r) => n + r.listedAfterTtl, 0),
    exitCodes: Object.fromEntries([...new Set(runs.map((r) => String(r.exitCode)))].map((c) => [c, runs.filter((r) => String(r.exitCode) === c).length])),
    endedMs: runs.map((r) => r.endedMs).sort((a, b) => a - b),
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!INSIDE) {
    const installed = {};
    for (const a of o.agents) installed[a] = ensureInstalled(a);
    const env = { ...process.env, AGENTWRAP_CAPTURE_INSTALLED: JSON.stringify(installed) };
    if (o.netns && spawnSync('unshare', ['-n', 'true']).status === 0) {
      const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...env, AGENTWRAP_E2E_NETNS: '1' } });
      return r.status ?? 1;
    }
    if (o.netns) console.error('[kill-server] unshare -n unavailable: running without a network namespace');
    process.env.AGENTWRAP_CAPTURE_INSTALLED = env.AGENTWRAP_CAPTURE_INSTALLED;
  }
  const installed = JSON.parse(process.env.AGENTWRAP_CAPTURE_INSTALLED ?? '{}');
  const snapshot = snapshotAgentwrap();
  const baseDir = join(cacheRoot(), 'e2e', 'runs', `kill-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(baseDir, { recursive: true });
  const runs = [];
  try {
    for (let i = 0; i < o.runs; i++) {
      const agent = o.agents[i % o.agents.length];
      const phase = PHASES[Math.floor(i / o.agents.length) % PHASES.length];
      const r = await killOnce({ index: i + 1, agent, phase, inst: installed[agent], main: snapshot.main, baseDir });
      runs.push(r);
      console.log(`${String(r.index).padStart(2)} ${agent.padEnd(6)} ${phase.padEnd(8)} ${r.reached ? 'reached' : 'NOT REACHED'} (${r.before || 'no record'}) exit ${r.exitCode} in ${r.endedMs} ms` +
        `${r.crash.length ? ` CRASH ${r.crash.join('; ')}` : ''}${r.stderr.trim() ? ` stderr: ${r.stderr.trim().split('\n')[0].slice(0, 100)}` : ''}` +
        `${r.leftProcesses.length ? ` LEFT ${r.leftProcesses.join(' | ')}` : ''}${r.leftRecords.length ? ` RECORDS ${r.leftRecords.join(',')}` : ''}${r.listedAfterTtl ? ` LISTED ${r.listedAfterTtl}` : ''}`);
    }
  } finally {
    rmSync(snapshot.dir, { recursive: true, force: true });
  }
  const out = {
    date: new Date().toISOString(),
    command: `node test/e2e/kill-server.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    versions: Object.fromEntries(o.agents.map((a) => [a, installed[a].version])),
    tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(), node: process.version, netns: INSIDE, relay: snapshot.relay,
    summary: summarizeKills(runs),
    runs,
  };
  const resultsDir = join(cacheRoot(), 'e2e', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'kill-server.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out.summary));
  return out.summary.crashes === 0 && out.summary.leftRecords === 0 && out.summary.listedAfterTtl === 0 && out.summary.leftProcesses === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then((code) => process.exit(code), (err) => { console.error(`[kill-server] ${err?.stack ?? err}`); process.exit(2); });
}
