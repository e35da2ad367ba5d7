// The scenario's steps (scenarios.mjs `actions`): what the person at the keyboard does for each
// action, what the driver waits for in the mock's events and the CLI's output, and the label
// marks it makes. driver.mjs starts the session and ends it; `driveSteps` runs between.
import { nowMs } from './mock.mjs';
import { paintStart, KEY_SLACK_MS } from './labels.mjs';
import { processesStartedAfter } from './processes.mjs';
import {
  READY_QUIET_MS, READY_CAP_MS, WAIT_CAP_MS, sleep, mark, devent, snap, write, typeText, humanPause,
  waitQuiet, waitTitle, waitEvent, isMainRequest, isTurnEnd, isToolCall, isTurnEndOrRetried, isFirstByte,
} from './session.mjs';

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

/** Runs the scenario's actions in order; throws on the first that cannot be done. */
export async function driveSteps(run, actions) {
  for (const action of actions) {
    const step = Object.hasOwn(STEPS, action.do) ? STEPS[action.do] : undefined;
    if (!step) throw new Error(`unknown action ${action.do}`);
    await step(run, action);
  }
}

const STEPS = {
  idle: (run, action) => sleep(action.ms),
  startup: answerStartup,
  prompt: submitPrompt,
  auto_tool: waitAutoTool,
  interrupt,
  keys: pressMenuKeys,
  approve: answerDialog,
  deny: answerDialog,
  resize,
  turn_end: waitTurnEnd,
};

/** A first-run dialog (or several) answered with the profile's startup keys. */
async function answerStartup(run, action) {
  const { profile, runDir } = run;
  mark(run, 'blocked', run.readyAt, { settle: 0, why: 'first-run dialog' });
  // `steps` names another sequence of the profile (e.g. `firstRun`: nothing seeded at all).
  for (const step of profile[action.steps ?? 'startup']) {
    if (step.key === '\r') await humanPause(run, 1500, 2500); else await humanPause(run, 400, 900);
    await snap(run, 'startup dialog');
    const t = write(run, step.key, 'startup');
    // Moving the selection inside a dialog is no transition; answering one is. An answer
    // that restarts the CLI (Gemini's trust: "Gemini CLI is restarting to apply the trust
    // changes...", 2-5 s) is idle until the new process starts: nothing waits on the user
    // and no turn runs.
    if (step.key === '\r') mark(run, step.restarts ? 'idle' : step.then, t - KEY_SLACK_MS, { settle: step.settleMs ?? 600, why: step.restarts ? 'startup answered: restarting' : 'startup answered' });
    if (step.restarts) {
      // Wait (by /proc, not the screen) for the new process, then for its first paint
      // (repaintBytes of output) to go quiet: the next state holds from the paint's first
      // chunk, its drawing uncertain until output is quiet.
      while (processesStartedAfter(runDir, t).length === 0 && nowMs() - t < READY_CAP_MS && !run.exited) await sleep(100);
      devent(run, 'restarted', processesStartedAfter(runDir, t).join(','));
      const before = run.outputBytes;
      const firstChunk = run.outputTimes.length;
      while (run.outputBytes - before < (step.repaintBytes ?? 1000) && nowMs() - t < READY_CAP_MS && !run.exited) await sleep(50);
      const paintedAt = run.outputTimes[paintStart(run.outputSizes, firstChunk, run.outputTimes.length - 1)];
      devent(run, 'repainted', `${run.outputBytes - before} bytes, from ${(nowMs() - paintedAt).toFixed(0)} ms ago`);
      await waitQuiet(run, READY_QUIET_MS, READY_CAP_MS);
      // Until that paint the answered box and the "restarting" line stay drawn: idle.
      if (step.then !== 'idle') mark(run, step.then, paintedAt, { settle: 'quiet', why: 'restarted and drawn' });
    } else {
      await waitQuiet(run, 800, 6000);
    }
  }
  await snap(run, 'after startup');
}

async function submitPrompt(run, action) {
  // `whileStreaming`: a second prompt typed while the current answer streams (queued).
  if (action.whileStreaming) { await waitEvent(run, isFirstByte, WAIT_CAP_MS); await sleep(action.afterFirstByteMs ?? 800); }
  await typeText(run, action.text);
  await humanPause(run, 300, 700);
  run.cursor = run.mock.events.length;
  const t = write(run, run.profile.keys.submit, 'submit');
  mark(run, 'working', t - KEY_SLACK_MS, { settle: run.profile.submitSettleMs, why: 'prompt submitted' });
  run.lastWasDeny = false;
}

async function waitAutoTool(run, action) {
  // A tool the CLI runs without asking (pre-approved shell, Read, Task): no dialog, no
  // key; the turn stays working until the tool's result comes back as a main request.
  const call = await waitEvent(run, isToolCall);
  if (!call) throw new Error('no tool call from the mock');
  const result = await waitEvent(run, isMainRequest, action.capMs ?? 30_000, { advance: false });
  if (!result) throw new Error(`tool ${call.detail} never reported back (did the CLI ask for approval?)`);
  devent(run, 'auto-run', `tool ran without approval: ${call.detail}`);
}

async function interrupt(run, action) {
  // The user stops the answer while it streams: the prompt comes back, idle (not done).
  // `afterMs`: stopped that long after the prompt, with or without an answer (Kilo
  // waiting for its network, failure-scenarios.mjs).
  if (action.afterMs === undefined) {
    await waitEvent(run, isFirstByte, WAIT_CAP_MS, { advance: false });
    await sleep(action.afterFirstByteMs ?? 1500);
  } else {
    await sleep(action.afterMs);
  }
  // keys.interrupt: one key, or several pressed in a row (OpenCode: Esc twice).
  const keys = [].concat(run.profile.keys.interrupt ?? '\x1b');
  for (const k of keys.slice(0, -1)) { write(run, k, 'interrupt'); await sleep(250); }
  const t = write(run, keys.at(-1), 'interrupt');
  mark(run, 'idle', t - KEY_SLACK_MS, { settle: 'quiet', why: 'interrupted' });
  await waitQuiet(run, 800, 5000);
  await snap(run, 'after interrupt');
}

async function pressMenuKeys(run, action) {
  // The user at the keyboard opens and closes a menu or picker: no transition.
  // "{menuCommand}" is the profile's model-picker command (default "/model").
  const before = run.mock.events.length;
  for (const key of action.keys) {
    const k = key === '{menuCommand}' ? run.profile.menuCommand ?? '/model' : key;
    await humanPause(run, action.pauseLo ?? 700, action.pauseHi ?? 1400);
    if (k.length > 1 && !k.startsWith('\x1b')) await typeText(run, k); else write(run, k, action.why ?? 'menu key');
    await snap(run, `keys ${JSON.stringify(k)}`);
  }
  // Menu keys must not reach the model: a request means they submitted a prompt.
  await sleep(1500);
  if (run.mock.events.slice(before).some(isMainRequest)) throw new Error(`menu keys ${JSON.stringify(action.keys)} sent a prompt to the model`);
}

/** `approve` and `deny`: a dialog read, then answered; blocked from the call until the answer. */
async function answerDialog(run, action) {
  const { profile } = run;
  // `on: 'stream_end'`: a dialog the CLI draws when the model's answer ends, not on a tool
  // call (Codex's "Implement this plan?" after a proposed plan).
  const call = await waitEvent(run, action.on === 'stream_end' ? isTurnEnd : isToolCall);
  if (!call) throw new Error(action.on === 'stream_end' ? 'no answer from the mock' : 'no tool call from the mock');
  // A human reads a dialog once it is drawn: a CLI whose busy row animates until its
  // dialog replaces it (`dialogQuietMs`, OpenCode) is waited for until its output goes
  // quiet. Keys sent before the dialog is up go nowhere (OpenCode 1.18.21 on the loaded
  // machine drew its panel after the driver's Enter, and waited for ever).
  if (profile.dialogQuietMs) await waitQuiet(run, profile.dialogQuietMs, DIALOG_QUIET_CAP_MS);
  // A CLI that says itself when it starts asking (`askTitle`, Oh My Pi's "π !" title) is
  // blocked from then: omp spends 1.3-1.7 s on its first tool call of a session, busy and
  // drawing nothing, before it draws the dialog with that title.
  const asked = profile.askTitle ? await waitTitle(run, profile.askTitle, call.t, DIALOG_QUIET_CAP_MS) : undefined;
  // A human reads the dialog; if the CLI runs the tool on its own meanwhile (its result
  // arrives as a new main request), there was no dialog and nothing to answer.
  const auto = await waitEvent(run, isMainRequest, 1800 + Math.floor(run.rng() * 1200), { advance: false });
  if (auto) { devent(run, 'auto-run', `tool ran without approval: ${call.detail}`); return; }
  await snap(run, `${action.do} dialog`);
  // The driver sees the title after the pane has drawn it, 8-22 ms after agentwrap
  // recorded it (omp 18.2.3 in tmux), so the mark starts a little before it.
  if (asked) mark(run, 'blocked', asked.t - TITLE_SLACK_MS, { settle: 2 * TITLE_SLACK_MS, why: `asked (title ${JSON.stringify(asked.title)}) for tool call ${call.detail}` });
  else mark(run, 'blocked', call.t, { settle: profile.toolSettleMs ?? 500, why: call.type === 'stream_end' ? 'answer ended: dialog' : `tool call ${call.detail}` });
  // `keys` answers a dialog that needs more than one key (a question, a multi-step form),
  // as does a profile's approve or deny given as a list (Kilo Code's Esc opens a "Reject
  // permission" form that Enter confirms); the dialog holds until the last one.
  const keys = action.keys ?? [].concat(action.do === 'approve' ? profile.keys.approve : profile.keys.deny);
  for (const k of keys.slice(0, -1)) { write(run, k, `${action.do} step`); await humanPause(run, 500, 900); }
  const t = write(run, keys.at(-1), action.do);
  mark(run, 'working', t - KEY_SLACK_MS, { why: action.do });
  run.lastWasDeny = action.do === 'deny';
}

async function resize(run, action) {
  await waitEvent(run, isFirstByte, WAIT_CAP_MS, { advance: false });
  await sleep(action.afterFirstByteMs);
  const [c, r] = action.cols ? [action.cols, action.rows] : run.cols >= 100 ? [90, 28] : [110, 32];
  const t = devent(run, 'resize', `${c}x${r}`);
  run.proc.resize(c, r);
  run.term.resize(c, r);
  run.rec.onResize(t, c, r);
  run.resizedTo = `${c}x${r}`;
}

async function waitTurnEnd(run, action) {
  if (run.lastWasDeny && await deniedTurnIsOver(run)) return;
  for (;;) {
    // A retried API error (overloaded, rate-limited) does not end the turn, unless the CLI
    // gives up on it (`mayGiveUp`).
    const end = await waitEvent(run, action.mayGiveUp ? isTurnEndOrRetried : isTurnEnd, action.capMs ?? WAIT_CAP_MS);
    if (!end) throw new Error('turn did not end');
    const more = end.retryable
      ? await waitRetryOrGiveUp(run, action.capMs ?? WAIT_CAP_MS)
      : await waitEvent(run, isMainRequest, end.error ? ERROR_RETRY_WAIT_MS : TURN_CONTINUE_MS, { advance: false });
    if (more) continue;
    if (end.retryable) devent(run, 'gave-up', `no request ${GIVE_UP_MS} ms after retried error ${end.error}, screen still`);
    if (run.agentEvents) {
      // The agent's own word that the turn is over: OpenCode may still be working on a
      // long answer for seconds after the stream ended, which the mock cannot see.
      const idle = await run.agentEvents.firstIdleAfter(end.t, AGENT_IDLE_CAP_MS);
      if (!idle) throw new Error(`no idle event within ${AGENT_IDLE_CAP_MS} ms of the stream's end`);
      devent(run, 'agent-idle', `${idle.type}${idle.status ? ` ${idle.status}` : ''} ${(idle.t - end.t).toFixed(0)} ms after the stream's end`);
      mark(run, 'idle', idle.t, { settle: 'quiet', why: `agent idle (${idle.type})` });
      break;
    }
    mark(run, action.state ?? 'idle', end.t, { settle: 'quiet', why: end.retryable ? `gave up after ${end.error}` : end.error ? `final error ${end.error}` : 'final stream ended' });
    break;
  }
  await waitQuiet(run, 800, 5000);
  await snap(run, 'turn end');
}

/** After a deny: no request soon means the turn ended at the deny (its mark becomes idle). */
async function deniedTurnIsOver(run) {
  const denyAt = run.marks.at(-1).t;
  const follow = await waitEvent(run, isMainRequest, DENY_FOLLOWUP_MS, { advance: false });
  if (follow) return false;
  run.marks.pop();
  mark(run, 'idle', denyAt, { settle: 'quiet', why: 'denied, turn over' });
  await waitQuiet(run, 800, 5000);
  await snap(run, 'after deny');
  return true;
}

/** After a retried error: the CLI's next main request, or undefined once it gave up (GIVE_UP_MS). */
async function waitRetryOrGiveUp(run, capMs) {
  const t0 = nowMs();
  for (;;) {
    const more = await waitEvent(run, isMainRequest, 500, { advance: false });
    if (more) return more;
    const now = nowMs();
    if (now - t0 >= GIVE_UP_MS && now - (run.outputTimes.at(-1) ?? t0) >= GIVE_UP_QUIET_MS) return undefined;
    if (now - t0 > capMs) throw new Error('turn did not end');
  }
}
