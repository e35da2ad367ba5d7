#!/usr/bin/env node
// npm run capture -- [--agent claude[,codex…]] [--scenario simple[,trap…]] [--size 80x24[,120x40]]
//                    [--personality tmux[,kitty…]] [--latest] [--recorder auto|agentwrap|direct]
//                    [--no-netns] [--out DIR] [--no-eval] [--version V] [--agent-server]
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
// agentwrap follows its event stream, into recordings/<agent>/server/.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { AGENTS, AGENT_NAMES } from './agents.mjs';
import { SCENARIOS, SCENARIO_NAMES, DEFAULT_SIZES } from './scenarios.mjs';
import { PERSONALITY_NAMES, DEFAULT_PERSONALITY } from './personalities.mjs';
import { ensureInstalled } from './install.mjs';
import { rmSync, existsSync } from 'node:fs';
import { runScenario, agentwrapRecordWorks, snapshotAgentwrap, REPO, AGENTWRAP_MAIN } from './driver.mjs';

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
    else if (a === '--help' || a === '-h') { console.log(readUsage()); process.exit(0); }
    else throw new Error(`unknown argument ${a}`);
  }
  for (const a of o.agents) if (!AGENTS[a]) throw new Error(`unknown agent ${a} (known: ${AGENT_NAMES.join(', ')})`);
  for (const p of o.personalities) if (!PERSONALITY_NAMES.includes(p)) throw new Error(`unknown personality ${p} (known: ${PERSONALITY_NAMES.join(', ')})`);
  if (o.version !== undefined && (o.latest || o.agents.length !== 1)) throw new Error('--version needs exactly one --agent and no --latest');
  if (o.agentServer) for (const a of o.agents) if (!AGENTS[a].eventServer) throw new Error(`--agent-server: ${a} has no server of its own to start`);
  for (const s of o.scenarios) if (!SCENARIO_NAMES.includes(s)) throw new Error(`unknown scenario ${s} (known: ${SCENARIO_NAMES.join(', ')})`);
  return o;
}

function readUsage() {
  return `usage: npm run capture -- [--agent A,B] [--scenario S,T] [--size 80x24,120x40] [--latest]
                          [--recorder auto|agentwrap|direct] [--no-netns] [--out DIR] [--install-only] [--no-eval]
                          [--personality P,Q] [--version V] [--agent-server]
  --version V   (with one --agent) record release V instead of the pin, into <out>/<agent>/releases/V/
  --agent-server  run the CLI with its own server as a user would start it (OpenCode: --port 4096),
                which agentwrap follows, into <out>/<agent>/server/
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

async function main() {
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
    for (const personality of o.personalities) for (const scenario of o.scenarios) {
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
        const personaDir = personality === DEFAULT_PERSONALITY ? agentDir : join(agentDir, personality);
        const outDir = o.agentServer ? join(personaDir, 'server') : personaDir;
        const r = await runScenario({ agent, scenario, cols, rows, personality, version: inst.version, reported: inst.reported, bin: inst.bin, outDir, recorder, agentwrapMain: snapshot?.main, relay: snapshot?.relay, netns: INSIDE, agentServer: o.agentServer });
        const secs = ((Date.now() - t0) / 1000).toFixed(1);
        if (r.ok && !recorded.includes(agent)) recorded.push(agent);
        if (r.ok) console.log(`ok   ${agent} ${personality} ${scenario}-${cols}x${rows} ${secs}s ${r.mode} labels=${r.labels.map((l) => l.state[0]).join('')} -> ${r.castPath}`);
        else { failures++; console.log(`FAIL ${agent} ${personality} ${scenario}-${cols}x${rows} ${secs}s: ${r.error} (run dir ${r.runDir})`); }
      }
    }
  }
  if (o.eval) printEvalTables(recorded, o.out, snapshot?.main, o.version);
  if (snapshot) rmSync(snapshot.dir, { recursive: true, force: true });
  return failures ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => { console.error(`[capture] ${err?.stack ?? err}`); process.exit(2); });
