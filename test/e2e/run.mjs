#!/usr/bin/env node
// npm run e2e -- [--agent claude,codex] [--scenario simple,approve,deny] [--habitat tmux,tmux-truecolor]
//               [--hooks on,off] [--size 120x40] [--first-screen-runs 9] [--first-screen-only] [--no-netns] [--md-only]
//
// The live end-to-end acceptance run (issue 14): the pinned CLIs wrapped by `agentwrap` itself
// in real tmux panes (one tmux server per habitat and run), driven through the capture lab's
// scenarios against its mock model, inside `unshare -n`. What agentwrap publishes (`agentwrap
// events`) is scored against the lab's labels with the scorer `eval` uses; each run's recording
// is replayed and compared with what was published live; agentwrap's stderr and exit status are
// checked for crashes; and the CLI's first screen is timed bare and wrapped. Cell results go to
// ~/.cache/agentwrap-capture/e2e/results/, and E2E.md at the repo root is rewritten from every
// cell there (so a run of one CLI updates its rows and keeps the others).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AGENTS, AGENT_NAMES } from '../capture/agents.mjs';
import { SCENARIO_NAMES } from '../capture/scenarios.mjs';
import { ensureInstalled, cacheRoot } from '../capture/install.mjs';
import { runScenario, snapshotAgentwrap, REPO, AGENTWRAP_MAIN } from '../capture/driver.mjs';
import { startMock, nowMs } from '../capture/mock.mjs';
import { seed } from '../capture/seed.mjs';
import { HABITATS, startPane, paneFiles, paneSpawner, startArgv, paneEnv, endStart } from './tmux-pane.mjs';
import { compareLiveReplay, crashSigns, eventsToTransitions, firstScreenOrder, median } from './compare.mjs';
import { renderE2eMarkdown, KILL_SERVER_RESULT, OPENCODE_START_RESULT } from './report.mjs';

const DEFAULT_SCENARIOS = ['simple', 'approve', 'deny'];
const FIRST_SCREEN_CAP_MS = 40_000;
/**
 * First-screen rounds by default. 5 were too few: at 5, Gemini's hooks on and off (the same
 * command line then: agentwrap added no hooks for Gemini) differed by 111 and 312 ms in the run of
 * 2026-12-02 07:47, OpenCode's (the same too, without --port) by 264 ms: their own start varies
 * by ±0.5-1 s from run to run. 9 were too few as well: in the run of 2026-12-02 16:02 Gemini's
 * bare start spread over 3.35-4.17 s and its two identical wrapped modes differed by 114 ms;
 * OpenCode's first byte comes 0.5-0.9 s late in about 1 run in 4 under any second pty (bare 1
 * of 8, `script` 2 of 8, agentwrap 2 of 8 at 16:50), and at 9 rounds two or three such runs move
 * a median by hundreds of ms.
 */
const FIRST_SCREEN_RUNS = 15;
/** How far before the driver's logged exit keystroke the recording's own copy of it may be. */
const EXIT_KEY_WINDOW_S = 0.5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const o = { agents: AGENT_NAMES, scenarios: DEFAULT_SCENARIOS, habitats: Object.keys(HABITATS), hooks: ['on', 'off'], size: [120, 40], firstScreenRuns: FIRST_SCREEN_RUNS, netns: true, mdOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--agent') o.agents = val().split(',');
    else if (a === '--scenario') o.scenarios = val().split(',');
    else if (a === '--habitat') o.habitats = val().split(',');
    else if (a === '--hooks') o.hooks = val().split(',');
    else if (a === '--size') o.size = val().split('x').map(Number);
    else if (a === '--first-screen-runs') o.firstScreenRuns = Number(val());
    else if (a === '--no-netns') o.netns = false;
    else if (a === '--md-only') o.mdOnly = true;
    else if (a === '--first-screen-only') o.firstScreenOnly = true;
    else if (a === '--recompare') o.recompare = true;
    else if (a === '--since') o.since = val();
    else if (a === '--help' || a === '-h') { console.log(usage()); process.exit(0); }
    else throw new Error(`unknown argument ${a}\n${usage()}`);
  }
  for (const a of o.agents) if (!AGENTS[a]) throw new Error(`unknown agent ${a} (known: ${AGENT_NAMES.join(', ')})`);
  for (const s of o.scenarios) if (!SCENARIO_NAMES.includes(s)) throw new Error(`unknown scenario ${s} (known: ${SCENARIO_NAMES.join(', ')})`);
  for (const h of o.habitats) if (!HABITATS[h]) throw new Error(`unknown habitat ${h} (known: ${Object.keys(HABITATS).join(', ')})`);
  for (const h of o.hooks) if (h !== 'on' && h !== 'off') throw new Error(`--hooks takes on, off or on,off`);
  if (o.firstScreenOnly && !(o.firstScreenRuns > 0)) throw new Error('--first-screen-only needs --first-screen-runs N > 0');
  return o;
}

function usage() {
  return `usage: npm run e2e -- [--agent A,B] [--scenario S,T] [--habitat H,I] [--hooks on,off] [--size 120x40]
                      [--first-screen-runs N] [--first-screen-only] [--no-netns] [--md-only] [--recompare] [--since ISO-DATE]
--first-screen-only times the first screen only (no scenarios): the stored cells keep their
  scenario results and get the new timing (with its own date and command); the timing is also
  kept in the run's directory (first-screen.json), and E2E.md is left as it is
--since skips cells whose stored result is newer (to resume a run cut into batches), and E2E.md
  shows only results that new (with --md-only: rewrite E2E.md from results since then)
--recompare compares stored cells' live and replayed changes again, up to the exit keystroke
agents: ${AGENT_NAMES.join(', ')}   scenarios: ${SCENARIO_NAMES.join(', ')} (default ${DEFAULT_SCENARIOS.join(',')})
habitats: ${Object.keys(HABITATS).join(', ')}   --first-screen-runs 0 skips the first-screen timing`;
}

export const E2E_ROOT = () => join(cacheRoot(), 'e2e');
const RESULTS_DIR = () => join(E2E_ROOT(), 'results');
const INSIDE = process.env.AGENTWRAP_E2E_NETNS === '1';

/** The dist modules the harness scores and replays with (the snapshot's, like the recording). */
export async function loadAgentwrap(main) {
  const src = dirname(dirname(main));
  const load = (p) => import(pathToFileURL(join(src, p)).href);
  const [score, labels, recordings, replay, registry] = await Promise.all([
    load('core/recordings/score.js'), load('core/recordings/labels.js'), load('app/recording/files.js'), load('app/recording/replay.js'), load('app/pack-registry.js'),
  ]);
  return { score, labels, recordings, replay, registry };
}

/** Runs `agentwrap events` against `stateDir`, collecting its NDJSON lines until stopped. */
function collectEvents(main, stateDir) {
  const events = [];
  const child = spawn(process.execPath, [main, 'events'], { env: { ...process.env, AGENT_STATUS_DIR: stateDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    pending += d;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try { events.push(JSON.parse(line)); } catch { stderr += `bad events line: ${line}\n`; }
    }
  });
  child.stderr.on('data', (d) => { stderr += d; });
  return {
    events,
    stop: async () => {
      await sleep(300);
      child.kill('SIGINT');
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(2000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
      return stderr;
    },
  };
}

/** One scenario in one cell: drive, score what was published, replay, look for crashes. */
async function runOne({ agent, scenario, habitat, hooks, size, inst, main, relay, aw, cellDir }) {
  const [cols, rows] = size;
  const stateDir = mkdtempSync('/tmp/e2e-state-');
  const files = paneFiles(cellDir, `${scenario}-${cols}x${rows}`);
  const paneRef = {};
  const spawnInPane = paneSpawner({ habitat, hooks, stateDir, files, onStart: (proc) => { paneRef.proc = proc; } });
  const collector = collectEvents(main, stateDir);
  await sleep(500); // let the events stream start watching before the session exists
  const t0 = Date.now();
  const r = await runScenario({ agent, scenario, cols, rows, version: inst.version, reported: inst.reported, bin: inst.bin, outDir: cellDir, recorder: 'agentwrap', agentwrapMain: main, relay, netns: INSIDE, spawn: spawnInPane, habitat, log: () => {} });
  const eventsStderr = await collector.stop();
  paneRef.proc?.close();
  const stderr = existsSync(files.stderr) ? readFileSync(files.stderr, 'utf8') : '';
  const exitCode = existsSync(files.exit) ? Number.parseInt(readFileSync(files.exit, 'utf8'), 10) : null;
  writeFileSync(join(cellDir, `${scenario}-${cols}x${rows}.events.ndjson`), collector.events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  rmSync(stateDir, { recursive: true, force: true });
  const out = { scenario, ok: r.ok, error: r.error ?? null, seconds: Math.round((Date.now() - t0) / 1000), exitCode, crash: crashSigns(stderr, exitCode), stderr: stderr.slice(0, 2000), eventsStderr: eventsStderr.slice(0, 500), events: collector.events.length };
  if (!r.ok) return { ...out, runDir: r.runDir };

  return { ...out, ...(await scoreRun({ aw, agent, castPath: r.castPath, events: collector.events, castStartWall: r.castStartWall, meta: r.meta })) };
}

/**
 * What was published live, scored against the run's labels, and the run's recording replayed
 * and compared with it. `meta` is the lab's meta (its driver events give the exit keystroke).
 */
export async function scoreRun({ aw, agent, castPath, events, castStartWall, meta }) {
  const loaded = aw.recordings.readRecordingFile(castPath);
  const durationS = loaded.recording.events.at(-1)?.t ?? 0;
  const published = eventsToTransitions(events, castStartWall);
  const analysis = aw.score.analyzeRecording({ file: castPath, agent, labels: loaded.labels, published, durationS });
  // Up to the exit keystroke as the recording has it (the driver logs it a few ms later, on its
  // own clock): the state change the keystroke itself causes is after the end of the comparison.
  const exitMark = exitKeystrokeS(loaded.recording, meta, durationS);
  const registry = aw.registry.loadDefaultRegistry({});
  const { pack } = aw.recordings.packForRecording(registry, loaded, undefined);
  const replayed = await aw.replay.replayRecording(loaded.recording, { pack });
  const replay = compareLiveReplay(published, replayed.transitions, exitMark);
  const evidenceLines = loaded.recording.events.filter((e) => e.kind.startsWith('agentwrap.')).length;
  return { castPath, castStartWall, analysis, score: aw.score.fileScoreOf(analysis), replay, evidenceLines };
}

/**
 * The exit keystroke as the recording has it (the driver logs it a few ms later, on its own
 * clock): live and replay are compared before it, the state change it causes being after the end.
 */
function exitKeystrokeS(recording, meta, durationS) {
  const driverExit = meta.driver_events.find((e) => e.type === 'exit')?.t ?? durationS;
  const exitKey = recording.events.find((e) => e.kind === 'i' && e.t >= driverExit - EXIT_KEY_WINDOW_S)?.t;
  return exitKey === undefined ? driverExit : Math.min(exitKey, driverExit);
}

/**
 * Stored cells compared again from their own live and replayed state changes (kept in each
 * result), up to the exit keystroke as the recording has it: for cells run before that cut.
 */
async function recompare(since) {
  const aw = await loadAgentwrap(AGENTWRAP_MAIN);
  for (const file of readdirSync(RESULTS_DIR()).filter((f) => /--hooks-(?:on|off)\.json$/.test(f))) {
    const cell = JSON.parse(readFileSync(join(RESULTS_DIR(), file), 'utf8'));
    if (since !== undefined && cell.date < since) continue;
    for (const sc of cell.scenarios) {
      if (!sc.replay || !sc.castPath || !existsSync(sc.castPath)) continue;
      const recording = aw.recordings.readRecordingFile(sc.castPath).recording;
      const meta = JSON.parse(readFileSync(sc.castPath.replace(/\.cast$/, '.meta.json'), 'utf8'));
      const before = sc.replay.ok;
      sc.replay = compareLiveReplay(sc.replay.live, sc.replay.replay, exitKeystrokeS(recording, meta, recording.events.at(-1)?.t ?? 0));
      if (before !== sc.replay.ok) console.log(`${file} ${sc.scenario}: replay = live ${before} → ${sc.replay.ok}${sc.replay.problem ? ` (${sc.replay.problem})` : ''}`);
    }
    writeFileSync(join(RESULTS_DIR(), file), JSON.stringify(cell, null, 2) + '\n');
  }
}

/** Time from the keystroke that starts the CLI to its first byte and its first paint (readyBytes). */
async function firstScreenOnce({ agent, mode, habitat, size, inst, main, dir, index }) {
  const profile = AGENTS[agent];
  const paintBytes = profile.readyBytes ?? 200;
  const runDir = mkdtempSync(join(dir, `fs-${mode}-${index}-`));
  const mock = await startMock({});
  const seeded = seed(agent, { runDir, baseUrl: mock.baseUrl, version: inst.version });
  const stateDir = mkdtempSync('/tmp/e2e-state-');
  const argv = startArgv(mode, { bin: inst.bin, name: profile.bin, args: profile.args, main });
  const files = paneFiles(runDir, 'fs');
  const { proc, go } = startPane({ argv, env: paneEnv(seeded.env, inst.bin, stateDir), cwd: seeded.cwd, cols: size[0], rows: size[1], habitat, files });
  let bytes = 0;
  let firstByteAt;
  let paintAt;
  proc.onData((d) => {
    const t = nowMs();
    firstByteAt ??= t;
    bytes += Buffer.byteLength(d);
    if (bytes >= paintBytes) paintAt ??= t;
  });
  const start = go();
  while (paintAt === undefined && nowMs() - start < FIRST_SCREEN_CAP_MS) await sleep(10);
  const screen = proc.capture();
  const stderr = await endStart({ proc, mock, runDir, stateDir, files, graceMs: 200 });
  return {
    mode,
    firstByteMs: firstByteAt === undefined ? null : Math.round(firstByteAt - start),
    paintMs: paintAt === undefined ? null : Math.round(paintAt - start),
    crash: crashSigns(stderr, null),
    stderr: stderr.slice(0, 600),
    screenLines: screen.split('\n').filter((l) => l.trim() !== '').length,
  };
}

/**
 * Bare, wrapped with hooks and wrapped without, interleaved run by run, the order rotated each
 * round (firstScreenOrder, compare.mjs) so no mode always follows another on a machine whose load
 * drifts. Per wrapped mode: the medians (their difference is judged), and the median of the
 * rounds' own differences (wrapped − bare in the same round). The 1-minute load average is kept
 * per run.
 */
async function firstScreen({ agent, habitat, size, inst, main, dir, runs }) {
  const modes = ['bare', 'hooks-on', 'hooks-off'];
  const all = [];
  for (const { mode, index } of firstScreenOrder(runs)) {
    const load1 = loadavg()[0];
    all.push({ ...(await firstScreenOnce({ agent, mode, habitat, size, inst, main, dir, index })), round: index, load1: Number(load1.toFixed(2)) });
  }
  const paintOf = (mode, round) => all.find((x) => x.mode === mode && x.round === round)?.paintMs ?? FIRST_SCREEN_CAP_MS;
  const summary = {};
  for (const mode of modes) {
    const xs = all.filter((x) => x.mode === mode);
    const pairedDeltaMs = mode === 'bare' ? 0 : median(xs.map((x) => paintOf(mode, x.round) - paintOf('bare', x.round)));
    summary[mode] = { paintMs: median(xs.map((x) => x.paintMs ?? FIRST_SCREEN_CAP_MS)), firstByteMs: median(xs.map((x) => x.firstByteMs ?? FIRST_SCREEN_CAP_MS)), pairedDeltaMs, runs: xs.map((x) => x.paintMs), timedOut: xs.filter((x) => x.paintMs === null).length };
  }
  const loads = all.map((x) => x.load1);
  return { runs: all, summary, load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) } };
}

function cellSummary(aw, results) {
  const analyses = results.filter((r) => r.analysis).map((r) => r.analysis);
  return analyses.length === 0 ? null : aw.score.summarize(analyses);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.recompare) await recompare(o.since);
  if (o.mdOnly || o.recompare) return writeMarkdown(o.since);
  if (!INSIDE) {
    const installed = {};
    for (const a of o.agents) installed[a] = ensureInstalled(a);
    const env = { ...process.env, AGENTWRAP_CAPTURE_INSTALLED: JSON.stringify(installed) };
    if (o.netns && spawnSync('unshare', ['-n', 'true']).status === 0) {
      const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...env, AGENTWRAP_E2E_NETNS: '1' } });
      return r.status ?? 1;
    }
    if (o.netns) console.error('[e2e] unshare -n unavailable: running without a network namespace');
    process.env.AGENTWRAP_CAPTURE_INSTALLED = env.AGENTWRAP_CAPTURE_INSTALLED;
  }
  if (!existsSync(AGENTWRAP_MAIN)) throw new Error(`${AGENTWRAP_MAIN} missing: npm run build first`);
  const installed = JSON.parse(process.env.AGENTWRAP_CAPTURE_INSTALLED ?? '{}');
  const snapshot = snapshotAgentwrap();
  const aw = await loadAgentwrap(snapshot.main);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS_DIR(), { recursive: true });
  try {
    for (const agent of o.agents) {
      const inst = installed[agent];
      for (const habitat of o.habitats) {
        const todo = o.hooks.filter((hooks) => !isDoneSince(agent, habitat, hooks, o.since));
        if (todo.length === 0) { console.log(`skip ${agent} ${habitat}: done since ${o.since}`); continue; }
        const baseDir = join(E2E_ROOT(), 'runs', stamp, agent, habitat);
        mkdirSync(baseDir, { recursive: true });
        const fs = o.firstScreenRuns > 0 ? await firstScreen({ agent, habitat, size: o.size, inst, main: snapshot.main, dir: baseDir, runs: o.firstScreenRuns }) : null;
        if (fs) console.log(`first screen ${agent} ${habitat}: bare ${fs.summary.bare.paintMs} ms, hooks on ${fs.summary['hooks-on'].paintMs} ms, hooks off ${fs.summary['hooks-off'].paintMs} ms (medians of ${o.firstScreenRuns}; paired +${fs.summary['hooks-on'].pairedDeltaMs}/+${fs.summary['hooks-off'].pairedDeltaMs} ms; load ${fs.load.min}–${fs.load.max})`);
        if (o.firstScreenOnly) {
          writeFileSync(join(baseDir, 'first-screen.json'), JSON.stringify({ agent, habitat, version: inst.version, date: new Date().toISOString(), command: `npm run e2e -- ${process.argv.slice(2).join(' ')}`.trim(), ...fs }, null, 2) + '\n');
          for (const hooks of todo) storeFirstScreen(agent, habitat, hooks, fs, o.firstScreenRuns);
          continue;
        }
        for (const hooks of todo) {
          const cellDir = join(baseDir, `hooks-${hooks}`);
          mkdirSync(cellDir, { recursive: true });
          const results = [];
          for (const scenario of o.scenarios) {
            const r = await runOne({ agent, scenario, habitat, hooks, size: o.size, inst, main: snapshot.main, relay: snapshot.relay, aw, cellDir });
            results.push(r);
            const s = r.score;
            console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${agent} ${habitat} hooks-${hooks} ${scenario} ${r.seconds}s` + (s ? ` acc=${s.accuracy} missed=${s.missed} spurious=${s.spurious_transitions} p95=${s.latency_ms.p95} replay=${r.replay.ok ? 'same' : r.replay.problem}` : ` ${r.error}`) + (r.crash.length ? ` CRASH ${r.crash.join('; ')}` : ''));
          }
          const cell = {
            agent, habitat, hooks, version: inst.version, reported: inst.reported, date: new Date().toISOString(), size: o.size,
            command: `npm run e2e -- ${process.argv.slice(2).join(' ')}`.trim(),
            tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(), node: process.version, netns: INSIDE, relay: snapshot.relay, recordings: cellDir,
            total: cellSummary(aw, results),
            firstScreen: fs ? firstScreenCell(fs, hooks, o.firstScreenRuns) : null,
            scenarios: results.map(({ analysis, ...rest }) => rest),
          };
          writeFileSync(cellFile(agent, habitat, hooks), JSON.stringify(cell, null, 2) + '\n');
        }
      }
    }
  } finally {
    rmSync(snapshot.dir, { recursive: true, force: true });
  }
  // A timing alone rewrites no E2E.md: the cells it updated show it at the next full run or --md-only.
  return o.firstScreenOnly ? 0 : writeMarkdown(o.since);
}

/** One cell's share of a first-screen timing (bare and the cell's wrapped mode). */
function firstScreenCell(fs, hooks, runs) {
  const wrapped = fs.summary[`hooks-${hooks}`];
  return {
    bareMs: fs.summary.bare.paintMs, wrappedMs: wrapped.paintMs, pairedDeltaMs: wrapped.pairedDeltaMs, load: fs.load,
    bareFirstByteMs: fs.summary.bare.firstByteMs, wrappedFirstByteMs: wrapped.firstByteMs, runs, timedOut: wrapped.timedOut,
    date: new Date().toISOString(), command: `npm run e2e -- ${process.argv.slice(2).join(' ')}`.trim(),
    all: fs.runs.filter((x) => x.mode === 'bare' || x.mode === `hooks-${hooks}`),
  };
}

/**
 * --first-screen-only: the stored cell gets this timing and keeps its scenario results (which
 * the timing does not touch); a cell never run gets none here (run it whole first).
 */
function storeFirstScreen(agent, habitat, hooks, fs, runs) {
  const file = cellFile(agent, habitat, hooks);
  if (!existsSync(file)) { console.log(`no stored cell ${agent} ${habitat} hooks-${hooks}: timing printed above, not stored`); return; }
  const cell = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...cell, firstScreen: firstScreenCell(fs, hooks, runs) }, null, 2) + '\n');
}

function cellFile(agent, habitat, hooks) {
  return join(RESULTS_DIR(), `${agent}--${habitat}--hooks-${hooks}.json`);
}

function isDoneSince(agent, habitat, hooks, since) {
  if (since === undefined || !existsSync(cellFile(agent, habitat, hooks))) return false;
  return JSON.parse(readFileSync(cellFile(agent, habitat, hooks), 'utf8')).date >= since;
}

/** E2E.md from the stored cells (and the kill-server run), those dated `since` or later when given. */
function writeMarkdown(since) {
  const dir = RESULTS_DIR();
  const read = (f) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const isRecent = (result) => since === undefined || result.date >= since;
  const cells = existsSync(dir) ? readdirSync(dir).filter((f) => /--hooks-(?:on|off)\.json$/.test(f)).sort().map(read).filter(isRecent) : [];
  const kills = existsSync(join(dir, KILL_SERVER_RESULT)) ? read(KILL_SERVER_RESULT) : undefined;
  const starts = existsSync(join(dir, OPENCODE_START_RESULT)) ? read(OPENCODE_START_RESULT) : {};
  const openCodeStart = Object.fromEntries(Object.entries(starts).filter(([, result]) => isRecent(result)));
  writeFileSync(join(REPO, 'E2E.md'), renderE2eMarkdown(cells, { since, kills: kills !== undefined && isRecent(kills) ? kills : undefined, openCodeStart }));
  console.log(`E2E.md: ${cells.length} cells from ${dir}${since === undefined ? '' : ` dated ${since} or later`}`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then((code) => process.exit(code), (err) => { console.error(`[e2e] ${err?.stack ?? err}`); process.exit(2); });
}
