#!/usr/bin/env node
// node test/e2e/opencode-start.mjs [--network none,registry] [--rounds 5] [--habitat tmux]
//
// "`agentwrap opencode` in a tmux pane, with no network and with the registry reachable,
// reaches its ready prompt within 1 s of bare `opencode` and publishes idle there; ~/.config
// holds no node_modules or package.json afterwards" (issue 14). Each round starts OpenCode bare,
// wrapped by `agentwrap` (hooks on, the default) and wrapped with `--no-hooks`, in the order
// rotated each round, each in a pane of a fresh tmux server against the lab's mock model, from
// a new user's home: ~/.config/opencode holds only the lab's opencode.json (not the plugin the
// capture lab pre-installs). `--network none` runs inside `unshare -n` (loopback only);
// `--network registry` runs in this machine's own network, where OpenCode reaches the npm
// registry. Per run it measures:
//   - ready: the keystroke that starts the command to the first screen showing OpenCode's ready
//     prompt (its status row "ctrl+p commands", through `capture-pane` every 50 ms);
//   - idle: when agentwrap's record first said idle, and the states it published before that;
//   - ~/.config afterwards: its tree (three levels) once OpenCode's start is over (its process
//     tree under 0.2 cores for 1 s after the ready prompt, at most 40 s), compared with the
//     same round's bare run: what a wrapped run has that bare has not is agentwrap's doing.
// The result goes to ~/.cache/agentwrap-capture/e2e/results/opencode-start.json (one entry per
// network); `npm run e2e -- --md-only` puts it in E2E.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENTS } from '../capture/agents.mjs';
import { ensureInstalled, cacheRoot } from '../capture/install.mjs';
import { snapshotAgentwrap, runDirCpuTicks } from '../capture/driver.mjs';
import { startMock, nowMs } from '../capture/mock.mjs';
import { seed } from '../capture/seed.mjs';
import { startPane, paneFiles, startArgv, paneEnv, endStart } from './tmux-pane.mjs';
import { crashSigns, firstScreenOrder } from './compare.mjs';
import { OPENCODE_READY_CAP_MS, OPENCODE_START_RESULT, summarizeOpenCodeStart } from './report.mjs';

/** OpenCode 1.18.33's status row under its input box, drawn with its home screen. */
const READY_TEXT = /ctrl\+p commands/;
const SETTLE_CAP_MS = 40_000;
const SETTLED_CORES = 0.2;
const CLOCK_TICKS = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const INSIDE = process.env.AGENTWRAP_E2E_NETNS === '1';

function parseArgs(argv) {
  const o = { networks: ['none', 'registry'], rounds: 5, habitat: 'tmux' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--network') o.networks = val().split(',');
    else if (a === '--rounds') o.rounds = Number(val());
    else if (a === '--habitat') o.habitat = val();
    else throw new Error(`unknown argument ${a}\nusage: node test/e2e/opencode-start.mjs [--network none,registry] [--rounds N] [--habitat tmux]`);
  }
  for (const n of o.networks) if (n !== 'none' && n !== 'registry') throw new Error(`--network takes none and/or registry, not ${n}`);
  if (!(o.rounds > 0)) throw new Error('--rounds takes a positive number');
  return o;
}

/** The paths under `dir`, three levels deep, directories marked with a trailing slash. */
export function treeOf(dir, depth = 3, prefix = '') {
  if (depth === 0 || !existsSync(dir)) return [];
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = `${prefix}${e.name}${e.isDirectory() ? '/' : ''}`;
    out.push(path);
    if (e.isDirectory()) out.push(...treeOf(join(dir, e.name), depth - 1, path));
  }
  return out.sort();
}

/** The states of the run's session record, each with when it was first seen. */
function recordStates(stateDir) {
  const dir = join(stateDir, 'sessions');
  if (!existsSync(dir)) return [];
  const states = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    try { states.push(JSON.parse(readFileSync(join(dir, f), 'utf8')).state); } catch { /* mid-rename */ }
  }
  return states;
}

async function startOnce({ mode, round, inst, main, baseDir, habitat }) {
  const profile = AGENTS.opencode;
  const runDir = mkdtempSync(join(baseDir, `${round}-${mode}-`));
  const mock = await startMock({});
  const seeded = seed('opencode', { runDir, baseUrl: mock.baseUrl, version: inst.version });
  const config = join(seeded.env.HOME, '.config');
  // A new user's: the lab pre-installs OpenCode's plugin package beside opencode.json (seed.mjs).
  for (const f of readdirSync(join(config, 'opencode'))) if (f !== 'opencode.json') rmSync(join(config, 'opencode', f), { recursive: true, force: true });
  const configBefore = treeOf(config);
  const stateDir = mkdtempSync('/tmp/e2e-ocstart-state-');
  const argv = startArgv(mode, { bin: inst.bin, name: profile.bin, args: profile.args, main });
  const files = paneFiles(runDir, 'start');
  const { proc, go } = startPane({ argv, env: paneEnv(seeded.env, inst.bin, stateDir), cwd: seeded.cwd, cols: 120, rows: 40, habitat, files });
  const published = [];
  const start = go();
  const since = () => Math.round(nowMs() - start);
  let readyMs;
  let idleMs;
  while (since() < OPENCODE_READY_CAP_MS && (readyMs === undefined || (mode !== 'bare' && idleMs === undefined))) {
    await sleep(50);
    const ms = since();
    if (readyMs === undefined && READY_TEXT.test(proc.capture())) readyMs = ms;
    for (const state of recordStates(stateDir)) {
      if (published.at(-1)?.state !== state) published.push({ state, ms });
      if (state === 'idle') idleMs ??= ms;
    }
  }
  // Its start is over when its processes are quiet: OpenCode installs its plugin package then.
  let settledMs;
  let last = { ticks: runDirCpuTicks(runDir), at: nowMs() };
  while (settledMs === undefined && since() < (readyMs ?? 0) + SETTLE_CAP_MS) {
    await sleep(1000);
    const now = { ticks: runDirCpuTicks(runDir), at: nowMs() };
    if ((now.ticks - last.ticks) / CLOCK_TICKS / ((now.at - last.at) / 1000) < SETTLED_CORES) settledMs = since();
    last = now;
  }
  const configAfter = treeOf(config);
  const homeNamesAgentwrap = treeOf(seeded.env.HOME, 6).filter((p) => /agentwrap/i.test(p));
  const stderr = await endStart({ proc, mock, runDir, stateDir, files, graceMs: 300 });
  return {
    mode, round, readyMs: readyMs ?? null, idleMs: idleMs ?? null, published, settledMs: settledMs ?? null,
    configAdded: configAfter.filter((p) => !configBefore.includes(p)), homeNamesAgentwrap,
    crash: crashSigns(stderr, null), stderr: stderr.slice(0, 600),
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const inst = ensureInstalled('opencode');
  if (o.networks.includes('none') && !INSIDE) {
    if (spawnSync('unshare', ['-n', 'true']).status !== 0) throw new Error('unshare -n unavailable: --network none cannot be run here');
    const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1).filter((a, i, all) => a !== '--network' && all[i - 1] !== '--network'), '--network', 'none'], { stdio: 'inherit', env: { ...process.env, AGENTWRAP_E2E_NETNS: '1' } });
    if (r.status !== 0) return r.status ?? 1;
    if (!o.networks.includes('registry')) return 0;
    o.networks = ['registry'];
  }
  const snapshot = snapshotAgentwrap();
  const baseDir = join(cacheRoot(), 'e2e', 'runs', `opencode-start-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(baseDir, { recursive: true });
  const resultsDir = join(cacheRoot(), 'e2e', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultFile = join(resultsDir, OPENCODE_START_RESULT);
  const stored = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : {};
  try {
    for (const network of o.networks) {
      const runs = [];
      for (const { mode, index } of firstScreenOrder(o.rounds)) {
        const r = await startOnce({ mode, round: index, inst, main: snapshot.main, baseDir, habitat: o.habitat });
        runs.push(r);
        console.log(`${network.padEnd(8)} ${index} ${mode.padEnd(9)} ready ${r.readyMs} ms, idle ${r.idleMs ?? '–'} ms (${r.published.map((p) => `${p.state}@${p.ms}`).join(' ') || 'no record'}), settled ${r.settledMs} ms, ~/.config +${r.configAdded.length}${r.crash.length ? ` CRASH ${r.crash.join('; ')}` : ''}`);
      }
      stored[network] = {
        date: new Date().toISOString(), command: `node test/e2e/opencode-start.mjs ${process.argv.slice(2).join(' ')}`.trim(),
        network, netns: INSIDE, version: inst.version, habitat: o.habitat, rounds: o.rounds,
        tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(), node: process.version,
        summary: summarizeOpenCodeStart(runs), runs,
      };
      console.log(network, JSON.stringify(stored[network].summary));
    }
  } finally {
    rmSync(snapshot.dir, { recursive: true, force: true });
  }
  writeFileSync(resultFile, JSON.stringify(stored, null, 2) + '\n');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then((code) => process.exit(code), (err) => { console.error(`[opencode-start] ${err?.stack ?? err}`); process.exit(2); });
}
