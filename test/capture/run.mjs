#!/usr/bin/env node
// npm run capture -- [--agent claude[,codex…]] [--scenario simple[,trap…]] [--size 80x24[,120x40]]
//                    [--personality tmux[,kitty…]] [--latest] [--recorder auto|agentwrap|direct]
//                    [--no-netns] [--out DIR] [--no-eval] [--version V] [--agent-server]
//                    [--habitat tmux[,tmux-truecolor] [--hooks on|off]]
// npm run capture -- --e2e [npm run e2e's own arguments]
//
// Installs the pinned (or newest) CLIs into ~/.cache/agentwrap-capture, then re-executes itself
// inside `unshare -n` (a network namespace with only loopback, so nothing leaves the machine;
// the mock server runs in this same process, hence in the same namespace), and records every
// scenario × size into recordings/<agent>/ (recordings/<agent>/<personality>/ under a
// personality other than the default 'silent', see personalities.mjs). Prints one line per recording, then the eval table
// (`agentwrap eval recordings/<agent>`) of every agent it recorded, so a UI change in a new CLI
// version shows up as a failing number. `--version V` (one agent) records an older or newer
// release instead of the pin, into recordings/<agent>/releases/<V>/, so eval can score each
// release on its own (`agentwrap eval recordings/<agent>/releases/<V>`). `--agent-server` runs a
// CLI that has a server of its own (OpenCode) with it started as a user would (`--port`), so
// agentwrap follows its event stream, into recordings/<agent>/server/. `--habitat H` runs each
// session in a pane of a real tmux server instead of the lab's own terminal, the CLI wrapped by
// agentwrap as a user types it (test/e2e/tmux-pane.mjs), into recordings/<agent>/habitat-H/.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { AGENTS, AGENT_NAMES } from './agents.mjs';
import { SCENARIOS, SCENARIO_NAMES, DEFAULT_SIZES } from './scenarios.mjs';
import { PERSONALITY_NAMES, DEFAULT_PERSONALITY, habitatDir } from './personalities.mjs';
import { ensureInstalled } from './install.mjs';
import { rmSync, existsSync, mkdtempSync } from 'node:fs';
import { runScenario, agentwrapRecordWorks, snapshotAgentwrap, REPO, AGENTWRAP_MAIN } from './driver.mjs';
import { HABITATS, paneFiles, paneSpawner } from '../e2e/tmux-pane.mjs';

function parseArgs(argv) {
  const o = { agents: AGENT_NAMES, scenarios: SCENARIO_NAMES, sizes: DEFAULT_SIZES, latest: false, recorder: 'auto', netns: true, out: join(REPO, 'recordings'), installOnly: false, eval: true, personalities: [DEFAULT_PERSONALITY] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--agent') o.agents = val().split(',');
    else if (a === '--scenario') o.scenarios = val().split(',');
    else if (a === '--size') o.sizes = val().split(',').map((s) => s.split('x').map(Number));
    else if (a === '--personality') o.personalities = val().split(',');
    else if (a === '--latest') o.latest = true;
    else if (a === '--version' || a === '--release') o.version = val();
    else if (a === '--recorder') o.recorder = val();
    else if (a === '--no-netns') o.netns = false;
    else if (a === '--out') o.out = val();
    else if (a === '--install-only') o.installOnly = true;
    else if (a === '--no-eval') o.eval = false;
    else if (a === '--agent-server') o.agentServer = true;
    else if (a === '--habitat') o.habitats = val().split(',');
    else if (a === '--hooks') o.hooks = val();
    else if (a === '--help' || a === '-h') { console.log(readUsage()); process.exit(0); }
    else throw new Error(`unknown argument ${a}`);
  }
  for (const a of o.agents) if (!AGENTS[a]) throw new Error(`unknown agent ${a} (known: ${AGENT_NAMES.join(', ')})`);
  for (const p of o.personalities) if (!PERSONALITY_NAMES.includes(p)) throw new Error(`unknown personality ${p} (known: ${PERSONALITY_NAMES.join(', ')})`);
  if (o.version !== undefined && (o.latest || o.agents.length !== 1)) throw new Error('--version needs exactly one --agent and no --latest');
  if (o.agentServer) for (const a of o.agents) if (!AGENTS[a].eventServer) throw new Error(`--agent-server: ${a} has no server of its own to start`);
  for (const s of o.scenarios) if (!SCENARIO_NAMES.includes(s)) throw new Error(`unknown scenario ${s} (known: ${SCENARIO_NAMES.join(', ')})`);
  for (const h of o.habitats ?? []) if (!HABITATS[h]) throw new Error(`unknown habitat ${h} (known: ${Object.keys(HABITATS).join(', ')})`);
  if (o.habitats !== undefined && (o.personalities.some((p) => p !== DEFAULT_PERSONALITY) || o.agentServer || o.recorder === 'direct')) throw new Error('--habitat runs in a real tmux server through agentwrap: no --personality, --agent-server or --recorder direct with it');
  if (o.hooks !== undefined && o.habitats === undefined) throw new Error('--hooks goes with --habitat');
  if (o.hooks !== undefined && o.hooks !== 'on' && o.hooks !== 'off') throw new Error('--hooks takes on or off');
  return o;
}

function readUsage() {
  return `usage: npm run capture -- [--agent A,B] [--scenario S,T] [--size 80x24,120x40] [--latest]
                          [--recorder auto|agentwrap|direct] [--no-netns] [--out DIR] [--install-only] [--no-eval]
                          [--personality P,Q] [--version V] [--agent-server] [--habitat H [--hooks on|off]]
       npm run capture -- --e2e [npm run e2e arguments]
  --version V   (with one --agent) record release V instead of the pin, into <out>/<agent>/releases/V/
  --agent-server  run the CLI with its own server as a user would start it (OpenCode: --port 4096),
                which agentwrap follows, into <out>/<agent>/server/
  --habitat H   run each session in a pane of a real tmux server (${Object.keys(HABITATS).join(', ')}), the CLI
                wrapped by agentwrap as a user runs it (keys through send-keys, output through
                pipe-pane), into <out>/<agent>/habitat-H/; --hooks on|off (default on)
  --e2e ...     the live end-to-end run instead (npm run e2e; the rest of the arguments are its own)
agents: ${AGENT_NAMES.join(', ')}
personalities: ${PERSONALITY_NAMES.join(', ')} (default ${DEFAULT_PERSONALITY})
scenarios: ${SCENARIO_NAMES.join(', ')}`;
}

/**
 * Scores the packs on what was just recorded: `agentwrap eval <out>/<agent>` for each agent,
 * through the same built agentwrap that recorded (the snapshot, so a rebuild meanwhile cannot
 * break it), printing its table (one row per recording and the total). The whole directory is
 * scored, so with --scenario/--size the older recordings beside the new ones count too.
 */
function printEvalTables(agents, outDir, snapshotMain, version) {
  const main = snapshotMain && existsSync(snapshotMain) ? snapshotMain : AGENTWRAP_MAIN;
  for (const agent of agents) {
    const dir = version === undefined ? join(outDir, agent) : join(outDir, agent, 'releases', version);
    console.log(`\neval ${dir} (${main === AGENTWRAP_MAIN ? 'dist/src/cli/main.js' : 'snapshot of dist/'})`);
    const r = spawnSync(process.execPath, [main, 'eval', dir], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) console.log(`eval ${dir}: exit ${r.status ?? r.signal}`);
  }
}

const INSIDE = process.env.AGENTWRAP_CAPTURE_NETNS === '1';

/**
 * runScenario's `spawn` for a session in a real tmux pane of `habitat` (test/e2e/tmux-pane.mjs),
 * its pane files and agentwrap's state directory in a temporary folder that `done()` removes.
 */
function habitatSpawn(habitat, hooks, name) {
  const dir = mkdtempSync(join(tmpdir(), 'agentwrap-capture-pane-'));
  let pane;
  const spawn = paneSpawner({ habitat, hooks, stateDir: join(dir, 'state'), files: paneFiles(dir, name), onStart: (proc) => { pane = proc; } });
  return { spawn, done: () => { pane?.close(); rmSync(dir, { recursive: true, force: true }); } };
}

async function main() {
  if (process.argv[2] === '--e2e') return spawnSync(process.execPath, [join(REPO, 'test', 'e2e', 'run.mjs'), ...process.argv.slice(3)], { stdio: 'inherit' }).status ?? 1;
  const o = parseArgs(process.argv.slice(2));
  if (!INSIDE) {
    // Install outside the namespace: it is the only step that needs the registry.
    const installed = {};
    for (const a of o.agents) installed[a] = ensureInstalled(a, o.latest ? 'latest' : o.version);
    for (const r of Object.values(installed)) console.error(`[capture] ${r.agent} ${r.version} (${r.reported})`);
    if (o.installOnly) return 0;
    const env = { ...process.env, AGENTWRAP_CAPTURE_INSTALLED: JSON.stringify(installed) };
    if (o.netns && spawnSync('unshare', ['-n', 'true']).status === 0) {
      const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...env, AGENTWRAP_CAPTURE_NETNS: '1' } });
      return r.status ?? 1;
    }
    if (o.netns) console.error('[capture] unshare -n unavailable: running without a network namespace (env points the CLIs at 127.0.0.1)');
    process.env.AGENTWRAP_CAPTURE_INSTALLED = env.AGENTWRAP_CAPTURE_INSTALLED;
  }
  const installed = JSON.parse(process.env.AGENTWRAP_CAPTURE_INSTALLED ?? '{}');
  let recorder = o.recorder;
  let snapshot;
  if (recorder === 'auto' || recorder === 'agentwrap') {
    if (existsSync(AGENTWRAP_MAIN)) snapshot = snapshotAgentwrap();
    const probe = await agentwrapRecordWorks(snapshot?.main);
    if (probe.ok) recorder = 'agentwrap';
    else if (recorder === 'agentwrap') throw new Error(`agentwrap --record does not work yet: ${probe.why}`);
    else { console.error(`[capture] agentwrap --record not usable (${probe.why}); using the TEMPORARY direct recorder`); recorder = 'direct'; }
  }
  let failures = 0;
  const recorded = [];
  for (const agent of o.agents) {
    const inst = installed[agent];
    const places = o.habitats === undefined ? o.personalities.map((personality) => ({ personality })) : o.habitats.map((habitat) => ({ habitat }));
    for (const place of places) for (const scenario of o.scenarios) {
      const personality = place.personality ?? DEFAULT_PERSONALITY;
      const where = place.habitat === undefined ? personality : habitatDir(place.habitat);
      if (scenario === 'startup' && AGENTS[agent].startup.length === 0) {
        console.log(`skip ${agent} startup: no first-run dialogs to record`);
        continue;
      }
      const only = SCENARIOS[scenario].agents;
      if (only && !only.includes(agent)) {
        console.log(`skip ${agent} ${scenario}: written for ${only.join(', ')} only`);
        continue;
      }
      for (const [cols, rows] of o.sizes) {
        const t0 = Date.now();
        const agentDir = o.version === undefined ? join(o.out, agent) : join(o.out, agent, 'releases', o.version);
        const placeDir = where === DEFAULT_PERSONALITY ? agentDir : join(agentDir, where);
        const outDir = o.agentServer ? join(placeDir, 'server') : placeDir;
        const inPane = place.habitat === undefined ? undefined : habitatSpawn(place.habitat, o.hooks ?? 'on', `${scenario}-${cols}x${rows}`);
        const r = await runScenario({ agent, scenario, cols, rows, personality, version: inst.version, reported: inst.reported, bin: inst.bin, outDir, recorder, agentwrapMain: snapshot?.main, relay: snapshot?.relay, netns: INSIDE, agentServer: o.agentServer, ...(inPane && { spawn: inPane.spawn, habitat: place.habitat }) });
        inPane?.done();
        const secs = ((Date.now() - t0) / 1000).toFixed(1);
        if (r.ok && !recorded.includes(agent)) recorded.push(agent);
        if (r.ok) console.log(`ok   ${agent} ${where} ${scenario}-${cols}x${rows} ${secs}s ${r.mode} labels=${r.labels.map((l) => l.state[0]).join('')} -> ${r.castPath}`);
        else { failures++; console.log(`FAIL ${agent} ${where} ${scenario}-${cols}x${rows} ${secs}s: ${r.error} (run dir ${r.runDir})`); }
      }
    }
  }
  if (o.eval) printEvalTables(recorded, o.out, snapshot?.main, o.version);
  if (snapshot) rmSync(snapshot.dir, { recursive: true, force: true });
  return failures ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => { console.error(`[capture] ${err?.stack ?? err}`); process.exit(2); });
