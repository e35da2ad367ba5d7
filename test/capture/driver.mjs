// Runs one scenario against one agent CLI in a PTY, recording the session, and writes
// <out>/<scenario>-<cols>x<rows>.cast + .labels.jsonl + .meta.json.
//
// Timing comes from the mock (request arrived, tool call sent, stream ended) and from the
// driver's own keystrokes; the screen is mirrored into a headless terminal only for the run's
// screens.txt (a debugging aid and the source of the report's screen excerpts), never for labels.
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMock, nowMs } from './mock.mjs';
import { seed } from './seed.mjs';
import { AGENTS } from './agents.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { paintStart, KEY_SLACK_MS } from './labels.mjs';
import { cacheRoot } from './install.mjs';
import { personality as lookupPersonality, DEFAULT_PERSONALITY, habitatDir } from './personalities.mjs';
import { attachAnswerer } from './answerer.mjs';
import { followOpenCodeEvents } from './agent-events.mjs';
import { spawnRecorded, waitCpuQuiet, processesStartedAfter, killLeftovers, startTmuxServer } from './processes.mjs';
import { writeRunOutput } from './run-output.mjs';

// The processes' helpers, where the lab's other scripts and the e2e have always found them.
export { REPO, AGENTWRAP_MAIN, snapshotAgentwrap, frontOf, spawnRecorded, agentwrapRecordWorks, killLeftovers, runDirCpuTicks } from './processes.mjs';

const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless');

const READY_QUIET_MS = 1200;
const READY_CAP_MS = 30_000;
const WAIT_CAP_MS = 120_000;
/** How long the driver waits for a dialog to be drawn (`dialogQuietMs`) before it answers anyway. */
const DIALOG_QUIET_CAP_MS = 10_000;
/** How far before the driver saw an `askTitle` title its blocked mark starts (see its use). */
const TITLE_SLACK_MS = 100;
/** After a text-only stream ends, a new main request this soon means the turn goes on. */
const TURN_CONTINUE_MS = 1500;
/**
 * After an API error, a main request this soon is the CLI retrying: Codex 0.171.0 retried a 403
 * after 0.4, 0.4, 0.9, 1.5 and 3.4 s, so the 1.5 s of a stream's end took its fourth error
 * for the turn's end.
 */
const ERROR_RETRY_WAIT_MS = 8000;
/**
 * A turn_end with `mayGiveUp` (the fail-* scenarios that answer after retried errors) also ends
 * on a retried error the CLI did not retry: no main request for GIVE_UP_MS and its screen still
 * for GIVE_UP_QUIET_MS (a CLI still retrying animates a spinner or a clock). Grok CLI 0.0.34 and
 * Continue 1.5.47 give up after three connection resets and draw their error.
 */
const GIVE_UP_MS = 15_000;
const GIVE_UP_QUIET_MS = 2000;
/** How long after the final stream's end the agent's own idle event may come (agentTurnEnd). */
const AGENT_IDLE_CAP_MS = 30_000;
/** After a deny, a main request this soon means the CLI told the model and continues. */
const DENY_FOLLOWUP_MS = 2500;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

function screenText(term) {
  const b = term.buffer.active;
  const lines = [];
  for (let i = 0; i < term.rows; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
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
  const { agent, scenario, cols, rows, bin, outDir, recorder, log = console.error } = opts;
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
  const runLog = join(runDir, 'run.log');
  const rlog = (s) => { appendFileSync(runLog, `${(nowMs() / 1000).toFixed(3)} ${s}\n`); };
  const mock = await startMock({ log: rlog });
  mock.setScript(sc.script);
  // `agentTurnEnd`: the turn's end is labelled from the agent's own events, for an agent that
  // has them (`eventServer`: OpenCode's server, agent-events.mjs). `opts.agentServer`: the CLI
  // runs with its server as a user would start it, which agentwrap follows.
  const server = profile.eventServer;
  const followPort = server && SCENARIOS[scenario].agentTurnEnd ? server.port : undefined;
  const serverArgs = !server ? [] : opts.agentServer ? server.userArgs : followPort ? server.args : [];
  const seeded = seed(agent, { runDir, baseUrl: mock.baseUrl, firstRun, version: opts.version, personality: persona.name, options: SCENARIOS[scenario].seed });
  let agentEvents;
  const tmuxServer = persona.tmuxServer ? startTmuxServer(`${agent}-${name}`, cols, rows, rlog) : undefined;
  if (tmuxServer) Object.assign(seeded.env, tmuxServer.env);
  mkdirSync(outDir, { recursive: true });
  const castPath = join(outDir, `${name}.cast`);
  const partial = `${castPath}.partial`;

  const marks = [];
  const driverEvents = [];
  const outputTimes = [];
  const titles = [];
  const screens = [];
  let firstOutputWall;
  let outputBytes = 0;
  // The size of each chunk of outputTimes (a restarted CLI's first paint is its first large one).
  const outputSizes = [];
  const mark = (state, t, extra = {}) => { marks.push({ t, state, ...extra }); rlog(`[label] ${state} at ${t.toFixed(0)} ${extra.why ?? ''}`); };
  const devent = (type, detail) => { const e = { t: nowMs(), type, detail }; driverEvents.push(e); rlog(`[driver] ${type} ${detail ?? ''}`); return e.t; };

  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  term.onTitleChange((title) => { const t = nowMs(); if (titles.at(-1)?.title !== title) titles.push({ t, title }); });
  const snap = async (why) => {
    await new Promise((r) => term.write('', r));
    screens.push({ t: nowMs(), why, title: titles.at(-1)?.title ?? '', text: screenText(term) });
  };

  // Extra screen snapshots for screens.txt (what each state looks like), timed by the mock.
  const onMockEvent = (e) => {
    if (e.type === 'request' && e.kind === 'main') setTimeout(() => void snap('working: request in flight'), 900);
    if (e.type === 'first_byte') setTimeout(() => void snap('working: streaming'), 700);
    if (e.type === 'tool_call_sent') setTimeout(() => void snap('after tool call'), 1200);
  };
  mock.bus.on('event', onMockEvent);

  // The outer terminal answers the CLI's queries as the personality's terminal would.
  const answerCounts = {};
  let answerer;
  const startWall = nowMs();
  // opts.spawn (same arguments, same return shape as spawnRecorded) lets another harness run
  // the session elsewhere, e.g. the e2e run's real tmux pane (test/e2e/tmux-pane.mjs).
  const rec = (opts.spawn ?? spawnRecorded)({ mode: recorder, agentwrapMain: opts.agentwrapMain, agentName: profile.bin, agentBin: bin, args: [...(profile.argsFor?.(opts.version) ?? profile.args), ...serverArgs], env: seeded.env, cwd: seeded.cwd, cols, rows, castPath: partial, startWall });
  const proc = rec.proc;
  answerer = attachAnswerer(term, persona.answers, (bytes) => {
    const key = JSON.stringify(bytes.replace(/[0-9]+/g, 'N'));
    answerCounts[key] = (answerCounts[key] ?? 0) + 1;
    if (!exited) proc.write(bytes);
  });
  mark('uncertain', startWall, { why: 'launch' });
  let exited = false;
  let exitInfo;
  const exitPromise = new Promise((r) => proc.onExit((e) => { exited = true; exitInfo = e; r(e); }));
  proc.onData((data) => {
    const t = nowMs();
    firstOutputWall ??= t;
    outputTimes.push(t);
    outputBytes += data.length;
    outputSizes.push(data.length);
    rec.onData(t, data);
    answerer.feed(data);
    term.write(data);
  });

  const keyWrites = [];
  const write = (s, why) => {
    const t = devent('key', `${why} ${JSON.stringify(s)}`);
    const bytes = answerer.encodeKey(s);
    keyWrites.push({ t, bytes });
    proc.write(bytes);
    return t;
  };
  const typeText = async (text) => {
    // Each character is a key for the clock alignment too (labels.mjs keyClockOffsetMs): with
    // only Enter and the dialog keys, too few to line up a CLI whose first byte came seconds late.
    for (const ch of text) { keyWrites.push({ t: nowMs(), bytes: ch }); proc.write(ch); await sleep(35 + Math.floor(rng() * 55)); }
    devent('typed', JSON.stringify(text));
  };
  const humanPause = (lo, hi) => sleep(lo + Math.floor(rng() * (hi - lo)));

  /** Waits for output silence of `quietMs`, at most `capMs`; returns the wall time. */
  const waitQuiet = async (quietMs, capMs, { needOutput = false } = {}) => {
    const t0 = nowMs();
    for (;;) {
      if (needOutput && outputTimes.length === 0 && nowMs() - t0 < capMs && !exited) { await sleep(50); continue; }
      const last = outputTimes.at(-1) ?? t0;
      const now = nowMs();
      if (now - Math.max(last, t0) >= quietMs || now - t0 >= capMs || exited) return now;
      await sleep(50);
    }
  };

  let cursor = 0;
  /** Next mock event after the cursor matching `pred`; advances the cursor past it. */
  // The first title matching `re` set at or after `sinceT`, waited for up to `capMs`.
  const waitTitle = async (re, sinceT, capMs) => {
    const until = nowMs() + capMs;
    for (;;) {
      const hit = titles.find((x) => x.t >= sinceT && re.test(x.title));
      if (hit || nowMs() >= until) return hit;
      await sleep(20);
    }
  };
  const waitEvent = async (pred, capMs = WAIT_CAP_MS, { advance = true } = {}) => {
    const t0 = nowMs();
    for (;;) {
      for (let i = cursor; i < mock.events.length; i++) {
        if (pred(mock.events[i])) { if (advance) cursor = i + 1; return mock.events[i]; }
      }
      if (exited) throw new Error(`${agent} exited while waiting (code ${exitInfo?.exitCode})`);
      if (nowMs() - t0 > capMs) return undefined;
      await sleep(25);
    }
  };
  // A sub-agent's requests (mock.mjs `thread: 'sub'`) run beside its parent's turn: they neither
  // continue nor end it.
  const isMainRequest = (e) => e.type === 'request' && e.kind === 'main' && e.thread !== 'sub';
  const isTurnEnd = (e) => e.type === 'stream_end' && !e.tool && !e.retryable && e.thread !== 'sub';
  const isToolCall = (e) => e.type === 'tool_call_sent' && e.thread !== 'sub';
  const isTurnEndOrRetried = (e) => e.type === 'stream_end' && !e.tool && e.thread !== 'sub';
  /** After a retried error: the CLI's next main request, or undefined once it gave up (GIVE_UP_MS). */
  const waitRetryOrGiveUp = async (capMs) => {
    const t0 = nowMs();
    for (;;) {
      const more = await waitEvent(isMainRequest, 500, { advance: false });
      if (more) return more;
      const now = nowMs();
      if (now - t0 >= GIVE_UP_MS && now - (outputTimes.at(-1) ?? t0) >= GIVE_UP_QUIET_MS) return undefined;
      if (now - t0 > capMs) throw new Error('turn did not end');
    }
  };

  let currentCols = cols;
  let currentRows = rows;
  let resizedTo;
  let lastWasDeny = false;
  let error;
  try {
    // Ready = the first paint happened (enough output bytes) and output then went quiet.
    const readyBytes = profile.readyBytes ?? 200;
    while (outputBytes < readyBytes && nowMs() - startWall < READY_CAP_MS && !exited) await sleep(50);
    let readyAt = await waitQuiet(READY_QUIET_MS, READY_CAP_MS, { needOutput: true });
    if (profile.readyCpuQuiet) {
      // A first paint is not a finished boot: OpenCode keeps starting up behind its home screen,
      // and a prompt submitted then sits unacknowledged for seconds (seen: 1–4.5 s with no output
      // at all, where a booted CLI clears its input box within 0.1 s). Wait, by /proc, until its
      // processes stop burning CPU, so a turn starts when the prompt is submitted.
      const cpu = await waitCpuQuiet(runDir, { ...profile.readyCpuQuiet, isExited: () => exited, log: rlog });
      devent('cpu-quiet', `${cpu.capped ? 'capped' : 'quiet'} after ${cpu.waitedMs.toFixed(0)} ms`);
      // A CLI still booting when the prompt is typed sits on it for seconds with nothing drawn
      // (seen on a loaded machine: 9 s from Enter to the first busy row), so labels from then on
      // would be wrong. Such a run fails instead of entering the corpus.
      if (cpu.capped) throw new Error(`still burning CPU after ${cpu.waitedMs.toFixed(0)} ms: never finished booting (machine too loaded to label this run)`);
      // Output may have moved meanwhile; the idle label starts once both hold.
      readyAt = await waitQuiet(READY_QUIET_MS, READY_CAP_MS);
    }
    if (profile.readyScreen) {
      // Bytes, quiet and CPU can all hold before the first real paint: Kilo Code once sat on a
      // blank screen, idle, for seconds after 4 KB of terminal queries, and the prompt typed then
      // was lost. Such a CLI names what its ready screen shows.
      const t0 = nowMs();
      while (!profile.readyScreen.test(screenText(term)) && nowMs() - t0 < READY_CAP_MS && !exited) await sleep(100);
      if (!profile.readyScreen.test(screenText(term))) throw new Error(`ready screen ${profile.readyScreen} never drawn`);
      readyAt = await waitQuiet(READY_QUIET_MS, READY_CAP_MS);
    }
    if (followPort) {
      agentEvents = followOpenCodeEvents(followPort, rlog);
      if (!(await agentEvents.waitConnected(15_000))) throw new Error(`no event stream on port ${followPort}`);
      devent('events-connected', `port ${followPort}`);
    }
    devent('ready');
    await snap('ready');
    if (!firstRun) mark('idle', readyAt, { settle: 0, why: 'ready' });
    for (const action of sc.actions) {
      switch (action.do) {
        case 'idle':
          await sleep(action.ms);
          break;
        case 'startup': {
          mark('blocked', readyAt, { settle: 0, why: 'first-run dialog' });
          // `steps` names another sequence of the profile (e.g. `firstRun`: nothing seeded at all).
          for (const step of profile[action.steps ?? 'startup']) {
            if (step.key === '\r') await humanPause(1500, 2500); else await humanPause(400, 900);
            await snap('startup dialog');
            const t = write(step.key, 'startup');
            // Moving the selection inside a dialog is no transition; answering one is. An answer
            // that restarts the CLI (Gemini's trust: "Gemini CLI is restarting to apply the trust
            // changes...", 2-5 s) is idle until the new process starts: nothing waits on the user
            // and no turn runs.
            if (step.key === '\r') mark(step.restarts ? 'idle' : step.then, t - KEY_SLACK_MS, { settle: step.settleMs ?? 600, why: step.restarts ? 'startup answered: restarting' : 'startup answered' });
            if (step.restarts) {
              // Wait (by /proc, not the screen) for the new process, then for its first paint
              // (repaintBytes of output) to go quiet: the next state holds from the paint's first
              // chunk, its drawing uncertain until output is quiet.
              while (processesStartedAfter(runDir, t).length === 0 && nowMs() - t < READY_CAP_MS && !exited) await sleep(100);
              devent('restarted', processesStartedAfter(runDir, t).join(','));
              const before = outputBytes;
              const firstChunk = outputTimes.length;
              while (outputBytes - before < (step.repaintBytes ?? 1000) && nowMs() - t < READY_CAP_MS && !exited) await sleep(50);
              const paintedAt = outputTimes[paintStart(outputSizes, firstChunk, outputTimes.length - 1)];
              devent('repainted', `${outputBytes - before} bytes, from ${(nowMs() - paintedAt).toFixed(0)} ms ago`);
              await waitQuiet(READY_QUIET_MS, READY_CAP_MS);
              // Until that paint the answered box and the "restarting" line stay drawn: idle.
              if (step.then !== 'idle') mark(step.then, paintedAt, { settle: 'quiet', why: 'restarted and drawn' });
            } else {
              await waitQuiet(800, 6000);
            }
          }
          await snap('after startup');
          break;
        }
        case 'prompt': {
          // `whileStreaming`: a second prompt typed while the current answer streams (queued).
          if (action.whileStreaming) { await waitEvent((e) => e.type === 'first_byte', WAIT_CAP_MS); await sleep(action.afterFirstByteMs ?? 800); }
          await typeText(action.text);
          await humanPause(300, 700);
          cursor = mock.events.length;
          const t = write(profile.keys.submit, 'submit');
          mark('working', t - KEY_SLACK_MS, { settle: profile.submitSettleMs, why: 'prompt submitted' });
          lastWasDeny = false;
          break;
        }
        case 'auto_tool': {
          // A tool the CLI runs without asking (pre-approved shell, Read, Task): no dialog, no
          // key; the turn stays working until the tool's result comes back as a main request.
          const call = await waitEvent(isToolCall);
          if (!call) throw new Error('no tool call from the mock');
          const result = await waitEvent(isMainRequest, action.capMs ?? 30_000, { advance: false });
          if (!result) throw new Error(`tool ${call.detail} never reported back (did the CLI ask for approval?)`);
          devent('auto-run', `tool ran without approval: ${call.detail}`);
          break;
        }
        case 'interrupt': {
          // The user stops the answer while it streams: the prompt comes back, idle (not done).
          // `afterMs`: stopped that long after the prompt, with or without an answer (Kilo
          // waiting for its network, failure-scenarios.mjs).
          if (action.afterMs === undefined) {
            await waitEvent((e) => e.type === 'first_byte', WAIT_CAP_MS, { advance: false });
            await sleep(action.afterFirstByteMs ?? 1500);
          } else {
            await sleep(action.afterMs);
          }
          // keys.interrupt: one key, or several pressed in a row (OpenCode: Esc twice).
          const keys = [].concat(profile.keys.interrupt ?? '\x1b');
          for (const k of keys.slice(0, -1)) { write(k, 'interrupt'); await sleep(250); }
          const t = write(keys.at(-1), 'interrupt');
          mark('idle', t - KEY_SLACK_MS, { settle: 'quiet', why: 'interrupted' });
          await waitQuiet(800, 5000);
          await snap('after interrupt');
          break;
        }
        case 'keys': {
          // The user at the keyboard opens and closes a menu or picker: no transition.
          // "{menuCommand}" is the profile's model-picker command (default "/model").
          const before = mock.events.length;
          for (const key of action.keys) {
            const k = key === '{menuCommand}' ? profile.menuCommand ?? '/model' : key;
            await humanPause(action.pauseLo ?? 700, action.pauseHi ?? 1400);
            if (k.length > 1 && !k.startsWith('\x1b')) await typeText(k); else write(k, action.why ?? 'menu key');
            await snap(`keys ${JSON.stringify(k)}`);
          }
          // Menu keys must not reach the model: a request means they submitted a prompt.
          await sleep(1500);
          if (mock.events.slice(before).some(isMainRequest)) throw new Error(`menu keys ${JSON.stringify(action.keys)} sent a prompt to the model`);
          break;
        }
        case 'approve':
        case 'deny': {
          // `on: 'stream_end'`: a dialog the CLI draws when the model's answer ends, not on a tool
          // call (Codex's "Implement this plan?" after a proposed plan).
          const call = await waitEvent(action.on === 'stream_end' ? isTurnEnd : isToolCall);
          if (!call) throw new Error(action.on === 'stream_end' ? 'no answer from the mock' : 'no tool call from the mock');
          // A human reads a dialog once it is drawn: a CLI whose busy row animates until its
          // dialog replaces it (`dialogQuietMs`, OpenCode) is waited for until its output goes
          // quiet. Keys sent before the dialog is up go nowhere (OpenCode 1.18.21 on the loaded
          // machine drew its panel after the driver's Enter, and waited for ever).
          if (profile.dialogQuietMs) await waitQuiet(profile.dialogQuietMs, DIALOG_QUIET_CAP_MS);
          // A CLI that says itself when it starts asking (`askTitle`, Oh My Pi's "π !" title) is
          // blocked from then: omp spends 1.3-1.7 s on its first tool call of a session, busy and
          // drawing nothing, before it draws the dialog with that title.
          const asked = profile.askTitle ? await waitTitle(profile.askTitle, call.t, DIALOG_QUIET_CAP_MS) : undefined;
          // A human reads the dialog; if the CLI runs the tool on its own meanwhile (its result
          // arrives as a new main request), there was no dialog and nothing to answer.
          const auto = await waitEvent(isMainRequest, 1800 + Math.floor(rng() * 1200), { advance: false });
          if (auto) { devent('auto-run', `tool ran without approval: ${call.detail}`); break; }
          await snap(`${action.do} dialog`);
          // The driver sees the title after the pane has drawn it, 8-22 ms after agentwrap
          // recorded it (omp 18.2.3 in tmux), so the mark starts a little before it.
          if (asked) mark('blocked', asked.t - TITLE_SLACK_MS, { settle: 2 * TITLE_SLACK_MS, why: `asked (title ${JSON.stringify(asked.title)}) for tool call ${call.detail}` });
          else mark('blocked', call.t, { settle: profile.toolSettleMs ?? 500, why: call.type === 'stream_end' ? 'answer ended: dialog' : `tool call ${call.detail}` });
          // `keys` answers a dialog that needs more than one key (a question, a multi-step form),
          // as does a profile's approve or deny given as a list (Kilo Code's Esc opens a "Reject
          // permission" form that Enter confirms); the dialog holds until the last one.
          const keys = action.keys ?? [].concat(action.do === 'approve' ? profile.keys.approve : profile.keys.deny);
          for (const k of keys.slice(0, -1)) { write(k, `${action.do} step`); await humanPause(500, 900); }
          const t = write(keys.at(-1), action.do);
          mark('working', t - KEY_SLACK_MS, { why: action.do });
          lastWasDeny = action.do === 'deny';
          break;
        }
        case 'resize': {
          await waitEvent((e) => e.type === 'first_byte', WAIT_CAP_MS, { advance: false });
          await sleep(action.afterFirstByteMs);
          const [c, r] = action.cols ? [action.cols, action.rows] : cols >= 100 ? [90, 28] : [110, 32];
          const t = devent('resize', `${c}x${r}`);
          proc.resize(c, r);
          term.resize(c, r);
          rec.onResize(t, c, r);
          currentCols = c; currentRows = r; resizedTo = `${c}x${r}`;
          break;
        }
        case 'turn_end': {
          if (lastWasDeny) {
            const denyAt = marks.at(-1).t;
            const follow = await waitEvent(isMainRequest, DENY_FOLLOWUP_MS, { advance: false });
            if (!follow) {
              marks.pop();
              mark('idle', denyAt, { settle: 'quiet', why: 'denied, turn over' });
              await waitQuiet(800, 5000);
              await snap('after deny');
              break;
            }
          }
          for (;;) {
            // A retried API error (overloaded, rate-limited) does not end the turn, unless the CLI
            // gives up on it (`mayGiveUp`).
            const end = await waitEvent(action.mayGiveUp ? isTurnEndOrRetried : isTurnEnd, action.capMs ?? WAIT_CAP_MS);
            if (!end) throw new Error('turn did not end');
            const more = end.retryable
              ? await waitRetryOrGiveUp(action.capMs ?? WAIT_CAP_MS)
              : await waitEvent(isMainRequest, end.error ? ERROR_RETRY_WAIT_MS : TURN_CONTINUE_MS, { advance: false });
            if (more) continue;
            if (end.retryable) devent('gave-up', `no request ${GIVE_UP_MS} ms after retried error ${end.error}, screen still`);
            if (agentEvents) {
              // The agent's own word that the turn is over: OpenCode may still be working on a
              // long answer for seconds after the stream ended, which the mock cannot see.
              const idle = await agentEvents.firstIdleAfter(end.t, AGENT_IDLE_CAP_MS);
              if (!idle) throw new Error(`no idle event within ${AGENT_IDLE_CAP_MS} ms of the stream's end`);
              devent('agent-idle', `${idle.type}${idle.status ? ` ${idle.status}` : ''} ${(idle.t - end.t).toFixed(0)} ms after the stream's end`);
              mark('idle', idle.t, { settle: 'quiet', why: `agent idle (${idle.type})` });
              break;
            }
            mark(action.state ?? 'idle', end.t, { settle: 'quiet', why: end.retryable ? `gave up after ${end.error}` : end.error ? `final error ${end.error}` : 'final stream ended' });
            break;
          }
          await waitQuiet(800, 5000);
          await snap('turn end');
          break;
        }
        default:
          throw new Error(`unknown action ${action.do}`);
      }
    }
  } catch (err) {
    error = String(err?.message ?? err);
    log(`[driver] ${agent} ${name}: ${error}`);
    await snap('error');
  }

  // Leave the CLI the way a user would; the exit itself is not scored.
  const exitAt = devent('exit');
  mark('uncertain', exitAt, { why: 'exit' });
  // The exit keys count for the clock alignment below too (a `simple` run has one other key).
  for (const k of profile.keys.exit) { if (!exited) { const bytes = answerer.encodeKey(k); keyWrites.push({ t: nowMs(), bytes }); proc.write(bytes); await sleep(400); } }
  await Promise.race([exitPromise, sleep(6000)]);
  if (!exited) { devent('kill'); proc.kill('SIGKILL'); await Promise.race([exitPromise, sleep(2000)]); }
  rec.close();
  agentEvents?.close();
  mock.bus.off('event', onMockEvent);
  await mock.close();
  tmuxServer?.stop();
  killLeftovers(runDir, rlog);

  void currentCols; void currentRows;
  return writeRunOutput({
    agent, scenario, name, cols, rows, opts, profile, persona, seeded, serverArgs, seedValue, runDir, outDir, partial, log,
    rec, mock, startWall, firstOutputWall, keyWrites, marks, outputTimes, titles, screens, driverEvents, agentEvents,
    answerCounts, resizedTo, error, exitInfo,
  });
}
