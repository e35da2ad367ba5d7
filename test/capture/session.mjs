// What the driver does with a live capture session, shared by its phases (driver.mjs) and the
// scenario's steps (steps.mjs): the marks and events it records, the keys it types and the waits
// on the CLI's output, titles and the mock's events. Each takes the run's state (`run`, made by
// driver.mjs prepareRun and startAgent) as its first argument.
import { appendFileSync } from 'node:fs';
import { nowMs } from './mock.mjs';

export const READY_QUIET_MS = 1200;
export const READY_CAP_MS = 30_000;
export const WAIT_CAP_MS = 120_000;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A run.log writer: each line stamped with the lab's clock in seconds. */
export function runLogger(runLog) {
  return (s) => { appendFileSync(runLog, `${(nowMs() / 1000).toFixed(3)} ${s}\n`); };
}

export function screenText(term) {
  const b = term.buffer.active;
  const lines = [];
  for (let i = 0; i < term.rows; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** A label mark: `state` from wall time `t` (labels.mjs turns marks into labels). */
export function mark(run, state, t, extra = {}) {
  run.marks.push({ t, state, ...extra });
  run.rlog(`[label] ${state} at ${t.toFixed(0)} ${extra.why ?? ''}`);
}

/** A driver event for the meta and run.log; returns its time. */
export function devent(run, type, detail) {
  const e = { t: nowMs(), type, detail };
  run.driverEvents.push(e);
  run.rlog(`[driver] ${type} ${detail ?? ''}`);
  return e.t;
}

/** The screen as it is now, for screens.txt, once the terminal has taken all output so far. */
export async function snap(run, why) {
  await new Promise((r) => run.term.write('', r));
  run.screens.push({ t: nowMs(), why, title: run.titles.at(-1)?.title ?? '', text: screenText(run.term) });
}

/** One key, encoded as the outer terminal sends it; returns the time it was written. */
export function write(run, s, why) {
  const t = devent(run, 'key', `${why} ${JSON.stringify(s)}`);
  const bytes = run.answerer.encodeKey(s);
  run.keyWrites.push({ t, bytes });
  run.proc.write(bytes);
  return t;
}

export async function typeText(run, text) {
  // Each character is a key for the clock alignment too (labels.mjs keyClockOffsetMs): with
  // only Enter and the dialog keys, too few to line up a CLI whose first byte came seconds late.
  for (const ch of text) { run.keyWrites.push({ t: nowMs(), bytes: ch }); run.proc.write(ch); await sleep(35 + Math.floor(run.rng() * 55)); }
  devent(run, 'typed', JSON.stringify(text));
}

export const humanPause = (run, lo, hi) => sleep(lo + Math.floor(run.rng() * (hi - lo)));

/** Waits for output silence of `quietMs`, at most `capMs`; returns the wall time. */
export async function waitQuiet(run, quietMs, capMs, { needOutput = false } = {}) {
  const t0 = nowMs();
  for (;;) {
    if (needOutput && run.outputTimes.length === 0 && nowMs() - t0 < capMs && !run.exited) { await sleep(50); continue; }
    const last = run.outputTimes.at(-1) ?? t0;
    const now = nowMs();
    if (now - Math.max(last, t0) >= quietMs || now - t0 >= capMs || run.exited) return now;
    await sleep(50);
  }
}

/** The first title matching `re` set at or after `sinceT`, waited for up to `capMs`. */
export async function waitTitle(run, re, sinceT, capMs) {
  const until = nowMs() + capMs;
  for (;;) {
    const hit = run.titles.find((x) => x.t >= sinceT && re.test(x.title));
    if (hit || nowMs() >= until) return hit;
    await sleep(20);
  }
}

/** Next mock event after the cursor matching `pred`; advances the cursor past it. */
export async function waitEvent(run, pred, capMs = WAIT_CAP_MS, { advance = true } = {}) {
  const t0 = nowMs();
  for (;;) {
    const events = run.mock.events;
    for (let i = run.cursor; i < events.length; i++) {
      if (pred(events[i])) { if (advance) run.cursor = i + 1; return events[i]; }
    }
    if (run.exited) throw new Error(`${run.agent} exited while waiting (code ${run.exitInfo?.exitCode})`);
    if (nowMs() - t0 > capMs) return undefined;
    await sleep(25);
  }
}

// A sub-agent's requests (mock.mjs `thread: 'sub'`) run beside its parent's turn: they neither
// continue nor end it.
export const isMainRequest = (e) => e.type === 'request' && e.kind === 'main' && e.thread !== 'sub';
export const isTurnEnd = (e) => e.type === 'stream_end' && !e.tool && !e.retryable && e.thread !== 'sub';
export const isToolCall = (e) => e.type === 'tool_call_sent' && e.thread !== 'sub';
export const isTurnEndOrRetried = (e) => e.type === 'stream_end' && !e.tool && e.thread !== 'sub';
export const isFirstByte = (e) => e.type === 'first_byte';
