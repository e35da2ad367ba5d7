// Runs one scenario against one agent CLI in a PTY, recording the session, and writes
// <out>/<scenario>-<cols>x<rows>.cast + .labels.jsonl + .meta.json. A run goes by phases, each
// a function here or in the file named: its home, mock and seed prepared (prepareRun), the agent
// started in its habitat (startAgent), its ready screen waited for (waitReady), the scenario's
// steps driven (steps.mjs), the agent left (leaveAgent), its outputs written (run-output.mjs).
// The state they share is one object, `run` (session.mjs holds what they do with it).
//
// Timing comes from the mock (request arrived, tool call sent, stream ended) and from the
// driver's own keystrokes; the screen is mirrored into a headless terminal only for the run's
// screens.txt (a debugging aid and the source of the report's screen excerpts), never for labels.
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { startMock, nowMs } from './mock.mjs';
import { seed } from './seed.mjs';
import { AGENTS } from './agents.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { cacheRoot } from './install.mjs';
import { personality as lookupPersonality, DEFAULT_PERSONALITY, habitatDir } from './personalities.mjs';
import { attachAnswerer } from './answerer.mjs';
import { followOpenCodeEvents } from './agent-events.mjs';
import { spawnRecorded, waitCpuQuiet, killLeftovers, startTmuxServer } from './processes.mjs';
import { writeRunOutput } from './run-output.mjs';
import { READY_QUIET_MS, READY_CAP_MS, sleep, runLogger, screenText, mark, devent, snap, waitQuiet } from './session.mjs';
import { driveSteps } from './steps.mjs';

// The processes' helpers, where the lab's other scripts and the e2e have always found them.
export { REPO, AGENTWRAP_MAIN, snapshotAgentwrap, frontOf, spawnRecorded, agentwrapRecordWorks, killLeftovers, runDirCpuTicks } from './processes.mjs';

const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless');

/** Deterministic RNG (mulberry32), so a re-record varies the same way for the same seed. */
export function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function hashSeed(s) {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

/**
 * Runs a scenario. Returns { castPath, labelsPath, metaPath, mode, labels }.
 * opts: { agent, scenario, cols, rows, version, reported, bin, outDir, recorder, netns, log,
 *         personality, relay, agentServer, spawn, habitat } — `personality` (personalities.mjs, default
 * 'silent') is the outer terminal: its environment and its answers to the CLI's terminal queries.
 * `habitat` names the real tmux server `spawn` runs the session in (test/e2e/tmux-pane.mjs): tmux
 * answers the queries then, and the recording's meta says which habitat it was.
 */
export async function runScenario(opts) {
  const { log = console.error } = opts;
  const run = await prepareRun(opts);
  startAgent(run, opts);
  try {
    await waitReady(run);
    await driveSteps(run, run.sc.actions);
  } catch (err) {
    run.error = String(err?.message ?? err);
    log(`[driver] ${run.agent} ${run.name}: ${run.error}`);
    await snap(run, 'error');
  }
  await leaveAgent(run);
  const { agent, scenario, name, cols, rows, profile, persona, seeded, serverArgs, seedValue, runDir, outDir, partial } = run;
  return writeRunOutput({
    agent, scenario, name, cols, rows, opts, profile, persona, seeded, serverArgs, seedValue, runDir, outDir, partial, log,
    rec: run.rec, mock: run.mock, startWall: run.startWall, firstOutputWall: run.firstOutputWall, keyWrites: run.keyWrites,
    marks: run.marks, outputTimes: run.outputTimes, titles: run.titles, screens: run.screens, driverEvents: run.driverEvents,
    agentEvents: run.agentEvents, answerCounts: run.answerCounts, resizedTo: run.resizedTo, error: run.error, exitInfo: run.exitInfo,
  });
}

/**
 * The run before the agent starts: its seed and RNG, its run directory and run.log, the mock
 * with the scenario's script, the CLI's seeded home and project, a personality's tmux server.
 * Returns the run's state, which startAgent completes with the live session.
 */
async function prepareRun(opts) {
  const { agent, scenario, cols, rows, outDir } = opts;
  const profile = AGENTS[agent];
  const name = `${scenario}-${cols}x${rows}`;
  const persona = lookupPersonality(opts.personality ?? DEFAULT_PERSONALITY);
  if (opts.habitat !== undefined && persona.name !== DEFAULT_PERSONALITY) throw new Error(`a habitat (${opts.habitat}) is a real terminal: it takes no personality (${persona.name})`);
  // Where the session runs: a personality of the lab's terminal, or a habitat (a real tmux server).
  const place = opts.habitat === undefined ? persona.name : habitatDir(opts.habitat);
  // The default personality keeps the historic seed, so old recordings stay reproducible.
  const seedValue = hashSeed(place === DEFAULT_PERSONALITY ? `${agent}/${name}` : `${agent}/${name}/${place}`);
  const rng = makeRng(seedValue);
  const sc = SCENARIOS[scenario].vary(rng, agent);
  const firstRun = Boolean(SCENARIOS[scenario].firstRun);
  mkdirSync(join(cacheRoot(), 'runs'), { recursive: true });
  const runDir = mkdtempSync(join(cacheRoot(), 'runs', place === DEFAULT_PERSONALITY ? `${agent}-${name}-` : `${agent}-${name}-${place}-`));
  const rlog = runLogger(join(runDir, 'run.log'));
  const mock = await startMock({ log: rlog });
  mock.setScript(sc.script);
  // `agentTurnEnd`: the turn's end is labelled from the agent's own events, for an agent that
  // has them (`eventServer`: OpenCode's server, agent-events.mjs). `opts.agentServer`: the CLI
  // runs with its server as a user would start it, which agentwrap follows.
  const server = profile.eventServer;
  const followPort = server && SCENARIOS[scenario].agentTurnEnd ? server.port : undefined;
  const serverArgs = !server ? [] : opts.agentServer ? server.userArgs : followPort ? server.args : [];
  const seeded = seed(agent, { runDir, baseUrl: mock.baseUrl, firstRun, version: opts.version, personality: persona.name, options: SCENARIOS[scenario].seed });
  const tmuxServer = persona.tmuxServer ? startTmuxServer(`${agent}-${name}`, cols, rows, rlog) : undefined;
  if (tmuxServer) Object.assign(seeded.env, tmuxServer.env);
  mkdirSync(outDir, { recursive: true });
  return {
    agent, scenario, name, cols, rows, outDir, profile, persona, seedValue, rng, sc, firstRun, runDir, rlog, mock,
    followPort, serverArgs, seeded, tmuxServer, partial: `${join(outDir, `${name}.cast`)}.partial`,
    // What the driver saw and did (session.mjs), for the labels and the meta (run-output.mjs).
    marks: [], driverEvents: [], outputTimes: [], titles: [], screens: [], keyWrites: [], answerCounts: {},
    // The size of each chunk of outputTimes (a restarted CLI's first paint is its first large one).
    outputSizes: [], outputBytes: 0, firstOutputWall: undefined,
    // The steps' own state: the mock events seen (`cursor`), the ready time, the last answer, a resize.
    cursor: 0, readyAt: undefined, lastWasDeny: false, resizedTo: undefined, error: undefined,
  };
}

/**
 * Starts the agent (through the recorder, or `opts.spawn`'s habitat) with a headless terminal
 * mirroring its screen and the personality's answers to its queries; adds the live session
 * (rec, proc, term, answerer, exit) to `run`.
 */
function startAgent(run, opts) {
  const { cols, rows, profile, persona, seeded } = run;
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  run.term = term;
  term.onTitleChange((title) => { const t = nowMs(); if (run.titles.at(-1)?.title !== title) run.titles.push({ t, title }); });
  // Extra screen snapshots for screens.txt (what each state looks like), timed by the mock.
  run.onMockEvent = (e) => {
    if (e.type === 'request' && e.kind === 'main') setTimeout(() => void snap(run, 'working: request in flight'), 900);
    if (e.type === 'first_byte') setTimeout(() => void snap(run, 'working: streaming'), 700);
    if (e.type === 'tool_call_sent') setTimeout(() => void snap(run, 'after tool call'), 1200);
  };
  run.mock.bus.on('event', run.onMockEvent);
  run.exited = false;
  run.startWall = nowMs();
  // opts.spawn (same arguments, same return shape as spawnRecorded) lets another harness run
  // the session elsewhere, e.g. the e2e run's real tmux pane (test/e2e/tmux-pane.mjs).
  const rec = (opts.spawn ?? spawnRecorded)({ mode: opts.recorder, agentwrapMain: opts.agentwrapMain, agentName: profile.bin, agentBin: opts.bin, args: [...(profile.argsFor?.(opts.version) ?? profile.args), ...run.serverArgs], env: seeded.env, cwd: seeded.cwd, cols, rows, castPath: run.partial, startWall: run.startWall });
  const proc = rec.proc;
  run.rec = rec;
  run.proc = proc;
  // The outer terminal answers the CLI's queries as the personality's terminal would.
  const answerer = attachAnswerer(term, persona.answers, (bytes) => {
    const key = JSON.stringify(bytes.replace(/[0-9]+/g, 'N'));
    run.answerCounts[key] = (run.answerCounts[key] ?? 0) + 1;
    if (!run.exited) proc.write(bytes);
  });
  run.answerer = answerer;
  mark(run, 'uncertain', run.startWall, { why: 'launch' });
  run.exitPromise = new Promise((r) => proc.onExit((e) => { run.exited = true; run.exitInfo = e; r(e); }));
  proc.onData((data) => {
    const t = nowMs();
    run.firstOutputWall ??= t;
    run.outputTimes.push(t);
    run.outputBytes += data.length;
    run.outputSizes.push(data.length);
    rec.onData(t, data);
    answerer.feed(data);
    term.write(data);
  });
}

/** Waits until the agent is ready for a prompt; marks idle from then (a first run: its dialog). */
async function waitReady(run) {
  const { profile, runDir, rlog } = run;
  // Ready = the first paint happened (enough output bytes) and output then went quiet.
  const readyBytes = profile.readyBytes ?? 200;
  while (run.outputBytes < readyBytes && nowMs() - run.startWall < READY_CAP_MS && !run.exited) await sleep(50);
  run.readyAt = await waitQuiet(run, READY_QUIET_MS, READY_CAP_MS, { needOutput: true });
  if (profile.readyCpuQuiet) {
    // A first paint is not a finished boot: OpenCode keeps starting up behind its home screen,
    // and a prompt submitted then sits unacknowledged for seconds (seen: 1–4.5 s with no output
    // at all, where a booted CLI clears its input box within 0.1 s). Wait, by /proc, until its
    // processes stop burning CPU, so a turn starts when the prompt is submitted.
    const cpu = await waitCpuQuiet(runDir, { ...profile.readyCpuQuiet, isExited: () => run.exited, log: rlog });
    devent(run, 'cpu-quiet', `${cpu.capped ? 'capped' : 'quiet'} after ${cpu.waitedMs.toFixed(0)} ms`);
    // A CLI still booting when the prompt is typed sits on it for seconds with nothing drawn
    // (seen on a loaded machine: 9 s from Enter to the first busy row), so labels from then on
    // would be wrong. Such a run fails instead of entering the corpus.
    if (cpu.capped) throw new Error(`still burning CPU after ${cpu.waitedMs.toFixed(0)} ms: never finished booting (machine too loaded to label this run)`);
    // Output may have moved meanwhile; the idle label starts once both hold.
    run.readyAt = await waitQuiet(run, READY_QUIET_MS, READY_CAP_MS);
  }
  if (profile.readyScreen) {
    // Bytes, quiet and CPU can all hold before the first real paint: Kilo Code once sat on a
    // blank screen, idle, for seconds after 4 KB of terminal queries, and the prompt typed then
    // was lost. Such a CLI names what its ready screen shows.
    const t0 = nowMs();
    while (!profile.readyScreen.test(screenText(run.term)) && nowMs() - t0 < READY_CAP_MS && !run.exited) await sleep(100);
    if (!profile.readyScreen.test(screenText(run.term))) throw new Error(`ready screen ${profile.readyScreen} never drawn`);
    run.readyAt = await waitQuiet(run, READY_QUIET_MS, READY_CAP_MS);
  }
  if (run.followPort) {
    run.agentEvents = followOpenCodeEvents(run.followPort, rlog);
    if (!(await run.agentEvents.waitConnected(15_000))) throw new Error(`no event stream on port ${run.followPort}`);
    devent(run, 'events-connected', `port ${run.followPort}`);
  }
  devent(run, 'ready');
  await snap(run, 'ready');
  if (!run.firstRun) mark(run, 'idle', run.readyAt, { settle: 0, why: 'ready' });
}

/** Leaves the CLI the way a user would (killed if it stays), then stops the run's other processes. */
async function leaveAgent(run) {
  const { profile, proc } = run;
  // The exit itself is not scored.
  const exitAt = devent(run, 'exit');
  mark(run, 'uncertain', exitAt, { why: 'exit' });
  // The exit keys count for the clock alignment too (a `simple` run has one other key).
  for (const k of profile.keys.exit) { if (!run.exited) { const bytes = run.answerer.encodeKey(k); run.keyWrites.push({ t: nowMs(), bytes }); proc.write(bytes); await sleep(400); } }
  await Promise.race([run.exitPromise, sleep(6000)]);
  if (!run.exited) { devent(run, 'kill'); proc.kill('SIGKILL'); await Promise.race([run.exitPromise, sleep(2000)]); }
  run.rec.close();
  run.agentEvents?.close();
  run.mock.bus.off('event', run.onMockEvent);
  await run.mock.close();
  run.tmuxServer?.stop();
  killLeftovers(run.runDir, run.rlog);
}
