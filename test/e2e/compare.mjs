// Pure helpers of the e2e run: what agentwrap published live (the `agentwrap events` stream) as
// the scorer's transitions, live against replay, crash signs on stderr, medians.

/** How far apart a live and a replayed transition may be and still be "the same" (issue 14). */
export const REPLAY_MATCH_MS = 250;

/**
 * `agentwrap events` lines → PublishedTransition[] on the cast's clock. `castStartWall` is the
 * wall time of the cast's t = 0. Events of other sessions (there should be none) are dropped.
 * `stuck` is not in the stream; the record's stuck flag is not scored here.
 */
export function eventsToTransitions(events, castStartWall, sessionKey) {
  const mine = sessionKey === undefined ? events : events.filter((e) => e.session === sessionKey);
  return mine
    .map((e) => ({ t: Math.max(0, (e.t - castStartWall) / 1000), state: e.to, stuck: false, winner: e.winner ?? null, rule_id: e.rule_id ?? null }))
    .sort((a, b) => a.t - b.t);
}

/** Consecutive equal states folded; leading `unknown` dropped (the stream may join after it). */
function stateChanges(transitions, untilS) {
  const out = [];
  for (const tr of transitions) {
    if (tr.t >= untilS) break;
    if (out.length === 0 && tr.state === 'unknown') continue;
    if (out.at(-1)?.state === tr.state) continue;
    out.push({ t: tr.t, state: tr.state });
  }
  return out;
}

/**
 * Live against replay, before `untilS` (the exit keystroke: from it on, live saw the agent
 * exit, which a v2 recording does not hold, and the two clocks put the keystroke's own effect a
 * few ms apart). Same sequence of states, each change
 * within REPLAY_MATCH_MS. Returns { ok, live, replay, maxOffsetMs, problem }.
 */
export function compareLiveReplay(live, replay, untilS) {
  const a = stateChanges(live, untilS);
  const b = stateChanges(replay, untilS);
  let maxOffsetMs = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i].state !== b[i].state) {
      return { ok: false, live: a, replay: b, maxOffsetMs, problem: `change ${i + 1}: live ${a[i].state} at ${a[i].t.toFixed(2)}s, replay ${b[i].state} at ${b[i].t.toFixed(2)}s` };
    }
    maxOffsetMs = Math.max(maxOffsetMs, Math.round(Math.abs(a[i].t - b[i].t) * 1000));
  }
  if (a.length !== b.length) {
    const extra = a.length > b.length ? `live has ${a[n].state} at ${a[n].t.toFixed(2)}s` : `replay has ${b[n].state} at ${b[n].t.toFixed(2)}s`;
    return { ok: false, live: a, replay: b, maxOffsetMs, problem: `${a.length} live changes, ${b.length} replayed: ${extra}` };
  }
  const ok = maxOffsetMs <= REPLAY_MATCH_MS;
  return { ok, live: a, replay: b, maxOffsetMs, problem: ok ? undefined : `a change ${maxOffsetMs} ms apart` };
}

/**
 * Signs that agentwrap crashed, from its stderr and exit status: a JS stack frame, an
 * uncaught error, a Node assertion, or death by SIGABRT/SIGSEGV (134/139 from the shell).
 * Warnings (`agentwrap: …`) are not crashes.
 */
export function crashSigns(stderr, exitCode) {
  const signs = [];
  if (/^\s+at .+:\d+:\d+\)?\s*$/m.test(stderr)) signs.push('stack trace');
  const errorLine = stderr.split('\n').find((l) => /\b(?:[A-Z]\w*)?Error\b[:\s]/.test(l) && !/^agentwrap: /.test(l));
  if (errorLine !== undefined) signs.push(`error: ${errorLine.trim().slice(0, 160)}`);
  if (/Assertion|ResetStdio|FATAL ERROR/.test(stderr)) signs.push('node assertion');
  if (exitCode === 134 || exitCode === 139) signs.push(`exit ${exitCode}`);
  return signs;
}

export function median(values) {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * The first-screen runs: bare, wrapped with hooks and wrapped without, interleaved round by
 * round so load drifts evenly, the order rotated each round. In a fixed order hooks-on always
 * came right after the bare run, and OpenCode (the same command line with hooks on and off, as
 * it gets no reporter) came out 1.4 s, 2.1 s and 0.05 s slower with hooks in one cell's rounds.
 */
export function firstScreenOrder(runs) {
  const modes = ['bare', 'hooks-on', 'hooks-off'];
  const order = [];
  for (let i = 0; i < runs; i++) for (let k = 0; k < modes.length; k++) order.push({ mode: modes[(k + i) % modes.length], index: i });
  return order;
}
