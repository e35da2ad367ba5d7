// E2E.md from the e2e run's cell results (one JSON per CLI × habitat × hooks). Pure: cells in,
// markdown out, so the table can be rewritten from stored results (`npm run e2e -- --md-only`).
import { median } from './compare.mjs';

/** The kill-server run's result file, next to the cells (test/e2e/kill-server.mjs). */
export const KILL_SERVER_RESULT = 'kill-server.json';

/** The OpenCode start run's result file, one entry per network (test/e2e/opencode-start.mjs). */
export const OPENCODE_START_RESULT = 'opencode-start.json';

export const GOALS = { accuracy: 0.98, blockedRecall: 1, spurious: 0, missed: 0, p95Ms: 1000, crashes: 0, firstScreenMs: 300 };

const mark = (ok) => (ok === null ? '' : ok ? ' ✓' : ' ✗');
const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);

/** The per-cell verdicts against GOALS; null where there is nothing to judge. */
export function judgeCell(cell) {
  const t = cell.total;
  // Scenario runs end with the CLI's own exit; first-screen runs end by killing the tmux server
  // under the CLI (a terminal that goes away). Both must be crash-free; they are told apart.
  const runCrashes = cell.scenarios.filter((s) => s.crash.length > 0).length;
  const killCrashes = (cell.firstScreen?.all ?? []).filter((r) => r.mode !== 'bare' && r.crash.length > 0).length;
  const crashes = runCrashes + killCrashes;
  const blockedRecall = t?.per_state?.blocked?.recall ?? null;
  // Judged: the difference of the two medians (wrapped − bare). The median of the rounds' own
  // differences is shown beside it: it follows load drift, but a CLI whose own start varies by
  // ±0.5 s from run to run (Gemini) swings it more than the medians.
  const fsCell = cell.firstScreen;
  const delta = fsCell && fsCell.bareMs !== null && fsCell.wrappedMs !== null ? fsCell.wrappedMs - fsCell.bareMs : null;
  const replayed = cell.scenarios.filter((s) => s.replay);
  return {
    failedRuns: cell.scenarios.filter((s) => !s.ok).length,
    accuracy: t ? t.accuracy >= GOALS.accuracy : false,
    blockedRecall: blockedRecall === null ? null : blockedRecall >= GOALS.blockedRecall,
    spurious: t ? t.spurious_transitions === GOALS.spurious : false,
    missed: t ? t.missed === GOALS.missed : false,
    p95: t && t.latency_ms.p95 !== null ? t.latency_ms.p95 <= GOALS.p95Ms : null,
    crashes,
    runCrashes,
    killCrashes,
    crashOk: crashes === 0,
    delta,
    firstScreen: delta === null ? null : delta <= GOALS.firstScreenMs,
    replaySame: replayed.filter((s) => s.replay.ok).length,
    replayTotal: replayed.length,
  };
}

const ALL_AGENTS = ['claude', 'codex', 'opencode', 'gemini'];
const ALL_HABITATS = ['tmux', 'tmux-truecolor'];

/** The cells of a full run that have no stored result. */
export function missingCells(cells) {
  const have = new Set(cells.map((c) => `${c.agent} ${c.habitat} hooks ${c.hooks}`));
  const missing = [];
  for (const agent of ALL_AGENTS) for (const habitat of ALL_HABITATS) for (const hooks of ['on', 'off']) {
    const name = `${agent} ${habitat} hooks ${hooks}`;
    if (!have.has(name)) missing.push(name);
  }
  return missing;
}

const PHASE_TEXT = { starting: 'while starting (its first output byte)', ready: 'at the ready prompt (idle published)', working: 'in a turn (working published)' };

/** The kill-server section: the summary against its goal, then one row per run. */
export function renderKills(kills) {
  const s = kills.summary;
  const count = (obj, text) => Object.entries(obj).map(([k, n]) => `${text?.[k] ?? k} ${n}`).join(', ');
  const ok = s.crashes === 0 && s.leftRecords === 0 && s.listedAfterTtl === 0 && s.leftProcesses === 0 && s.notGone === 0;
  const lines = [
    '## Killing the tmux server under a wrapped agent',
    '',
    `\`${kills.command}\` (${kills.date}; ${Object.entries(kills.versions).map(([a, v]) => `${a} ${v}`).join(', ')}; ${kills.tmux}, node ${kills.node}${kills.netns ? ', inside `unshare -n`' : ''}; ${kills.relay ?? 'event-loop'} relay): each run starts one CLI wrapped by`,
    '`agentwrap` (hooks on) in a pane of a fresh tmux server, against the mock model, and kills the server',
    '(`tmux -L … kill-server`); the pane\'s shell passes the hangup on to its job as bash does and writes the exit status.',
    '',
    `- **${s.runs} kills in a row** (${count(s.byAgent)}; killed ${count(s.byPhase, { starting: 'while starting', ready: 'at the ready prompt', working: 'in a turn' })}; moment reached before the kill: ${s.reached} of ${s.runs}):`,
    `  **${s.crashes} crashes** (stack trace, \`Error\` line, Node assertion, exit 134/139 or core file), ${s.stderrNonEmpty} runs with anything on agentwrap's stderr;`,
    `  ${s.notGone} agentwrap still running 10 s after the kill, ${s.leftProcesses} runs with a process left (CLI, helper, guardian);`,
    `  **${s.leftRecords} records left** (${s.leftSockets} control sockets) once agentwrap was gone, **${s.listedAfterTtl} sessions listed** by \`agentwrap status --json\` after the records' TTL ${ok ? '✓' : '✗'}`,
    `- Exit status: ${Object.entries(s.exitCodes).map(([code, n]) => `${code} ×${n}`).join(', ')} (129 = 128 + SIGHUP, launcher.md); agentwrap gone ${s.endedMs[0]}–${s.endedMs.at(-1)} ms after the kill (median ${s.endedMs[Math.floor(s.endedMs.length / 2)]} ms).`,
    '',
    '| # | CLI | killed | published before | exit | gone after | stderr | left behind |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of kills.runs) {
    const left = [...r.leftProcesses, ...r.leftRecords.map((f) => `record ${f}`), ...r.leftSockets.map((f) => `socket ${f}`), ...(r.listedAfterTtl ? [`${r.listedAfterTtl} listed after TTL`] : [])];
    const stderr = r.crash.length ? `CRASH: ${r.crash.join('; ')}` : r.stderr.trim().split('\n')[0].slice(0, 80);
    lines.push(`| ${r.index} | ${r.agent} | ${PHASE_TEXT[r.phase] ?? r.phase}${r.reached ? '' : ' (not reached)'} | ${r.before || '–'} | ${r.exitCode ?? '–'} | ${r.agentwrapGone ? `${r.endedMs} ms` : 'still running'} | ${stderr.replace(/\|/g, '\\|')} | ${left.join('; ').replace(/\|/g, '\\|') || '–'} |`);
  }
  lines.push('');
  return lines;
}

/** How long an OpenCode start run waits for the ready prompt; a run that never showed it counts as this late. */
export const OPENCODE_READY_CAP_MS = 40_000;

/** The states a run published before its first idle (all of them if it never said idle). */
const statesBeforeIdle = (published) => {
  const idle = published.findIndex((p) => p.state === 'idle');
  return published.slice(0, idle === -1 ? published.length : idle).map((p) => p.state);
};

/**
 * Per wrapped mode, against bare: the medians of the ready prompt and their difference, the
 * median of the rounds' own differences, idle after the prompt, the states published before
 * idle, and what ~/.config gained that the same round's bare run did not.
 */
export function summarizeOpenCodeStart(runs) {
  const of = (mode) => runs.filter((r) => r.mode === mode);
  const bare = of('bare');
  const bareConfig = new Map(bare.map((r) => [r.round, r.configAdded]));
  const summary = { bare: { readyMs: median(bare.map((r) => r.readyMs ?? OPENCODE_READY_CAP_MS)), configAdded: [...new Set(bare.flatMap((r) => r.configAdded))].sort() } };
  for (const mode of ['hooks-on', 'hooks-off']) {
    const xs = of(mode);
    const readyMs = median(xs.map((r) => r.readyMs ?? OPENCODE_READY_CAP_MS));
    const bareReady = (round) => bare.find((r) => r.round === round)?.readyMs ?? OPENCODE_READY_CAP_MS;
    summary[mode] = {
      readyMs,
      deltaMs: readyMs - summary.bare.readyMs,
      pairedDeltaMs: median(xs.map((r) => (r.readyMs ?? OPENCODE_READY_CAP_MS) - bareReady(r.round))),
      idleAfterReadyMs: xs.map((r) => (r.idleMs === null || r.readyMs === null ? null : r.idleMs - r.readyMs)),
      notIdle: xs.filter((r) => r.idleMs === null).length,
      beforeIdle: [...new Set(xs.flatMap((r) => statesBeforeIdle(r.published)))],
      configAddedByAgentwrap: [...new Set(xs.flatMap((r) => r.configAdded.filter((p) => !(bareConfig.get(r.round) ?? []).includes(p))))].sort(),
      configMissingAgainstBare: [...new Set(xs.flatMap((r) => (bareConfig.get(r.round) ?? []).filter((p) => !r.configAdded.includes(p))))].sort(),
      homeNamesAgentwrap: [...new Set(xs.flatMap((r) => r.homeNamesAgentwrap))],
      crashes: xs.filter((r) => r.crash.length > 0).length,
    };
  }
  return summary;
}

/** OpenCode's start goals (issue 14): ready within 1 s of bare, idle published there, nothing added to ~/.config. */
export const OPENCODE_START_GOALS = { readyDeltaMs: 1000, idleAfterReadyMs: 1000 };

/** The verdicts of one network's OpenCode start for one wrapped mode. */
export function judgeOpenCodeStart(summary) {
  const idle = summary.idleAfterReadyMs;
  return {
    ready: summary.deltaMs <= OPENCODE_START_GOALS.readyDeltaMs,
    idle: summary.notIdle === 0 && idle.every((ms) => ms !== null && ms <= OPENCODE_START_GOALS.idleAfterReadyMs),
    beforeIdle: summary.beforeIdle.every((state) => state === 'unknown'),
    config: summary.configAddedByAgentwrap.length === 0 && summary.homeNamesAgentwrap.length === 0,
    crashes: summary.crashes === 0,
  };
}

/** The OpenCode start section: per network and wrapped mode, against the same rounds' bare runs. */
export function renderOpenCodeStart(byNetwork) {
  const lines = [
    "## OpenCode's start, online and offline",
    '',
    '`node test/e2e/opencode-start.mjs` (docs/capture.md): OpenCode bare, wrapped by `agentwrap` and wrapped with `--no-hooks`,',
    'interleaved round by round, each in a pane of a fresh tmux server from a new user\'s home (~/.config/opencode holds only',
    'opencode.json). "ready": keystroke to the screen showing its ready prompt (`ctrl+p commands`, through `capture-pane`);',
    '"idle after ready": when agentwrap\'s record first said idle, after that; "~/.config": what a wrapped run left there that',
    `the same round's bare run did not. Goal: ready ≤ +${OPENCODE_START_GOALS.readyDeltaMs} ms over bare (medians), idle ≤ ${OPENCODE_START_GOALS.idleAfterReadyMs} ms after the prompt in every run, nothing`,
    'but unknown published before it, nothing added to ~/.config and no file named agentwrap in the home, 0 crashes.',
    '',
    '| network | agentwrap | ready (bare → wrapped, medians) | idle after ready (each run) | published before idle | ~/.config added by agentwrap (bare itself added) | crashes |',
    '|---|---|---|---|---|---|---|',
  ];
  const networkText = { none: 'none (`unshare -n`)', registry: 'npm registry reachable' };
  for (const network of ['none', 'registry']) {
    const r = byNetwork[network];
    if (r === undefined) continue;
    const summary = summarizeOpenCodeStart(r.runs);
    for (const mode of ['hooks-on', 'hooks-off']) {
      const s = summary[mode];
      const j = judgeOpenCodeStart(s);
      const bareAdded = summary.bare.configAdded.filter((p) => p.split('/').filter(Boolean).length <= 2);
      lines.push(`| ${networkText[network]} (${r.date}, ${r.rounds} rounds) | ${mode === 'hooks-on' ? 'hooks on' : '--no-hooks'} | ${summary.bare.readyMs} → ${s.readyMs} ms (${s.deltaMs >= 0 ? '+' : ''}${s.deltaMs} ms; paired ${s.pairedDeltaMs >= 0 ? '+' : ''}${s.pairedDeltaMs} ms)${mark(j.ready)} | ${s.idleAfterReadyMs.map((ms) => (ms === null ? 'none' : `${ms}`)).join(', ')} ms${mark(j.idle)} | ${s.beforeIdle.join(', ') || '–'}${mark(j.beforeIdle)} | ${[...s.configAddedByAgentwrap, ...s.homeNamesAgentwrap].join(', ') || 'nothing'} (${bareAdded.join(', ') || 'nothing'})${mark(j.config)} | ${s.crashes}${mark(j.crashes)} |`);
    }
  }
  lines.push('');
  return lines;
}

export function renderE2eMarkdown(cells, { since, kills, openCodeStart } = {}) {
  const lines = [];
  // A first-screen timing taken apart (--first-screen-only) has its own date and command.
  const dates = cells.flatMap((c) => [c.date, ...(c.firstScreen?.date === undefined ? [] : [c.firstScreen.date])]).sort();
  const versions = new Map(cells.map((c) => [c.agent, `${c.agent} ${c.version}`]));
  const commands = [...new Set(cells.flatMap((c) => [c.command, ...(c.firstScreen?.command === undefined ? [] : [c.firstScreen.command])]))];
  lines.push('# E2E: agentwrap in real tmux panes, live, end to end');
  lines.push('');
  lines.push('Written by `npm run e2e` (test/e2e/run.mjs; see docs/capture.md, "The e2e run"). Each row is one');
  lines.push('CLI × habitat × hooks cell: the pinned CLI wrapped by `agentwrap` in a pane of a fresh tmux server,');
  lines.push('driven through the capture lab\'s scenarios against the mock model inside `unshare -n`, and what');
  lines.push('agentwrap published (`agentwrap events`) scored against the lab\'s labels with the scorer `eval`');
  lines.push('uses. Habitats: `tmux` = a tmux server started without COLORTERM (TERM=tmux-256color, the');
  lines.push('common case); `tmux-truecolor` = one started with COLORTERM=truecolor.');
  lines.push('');
  lines.push(`- Dates: ${dates.length ? `${dates[0]} … ${dates.at(-1)}` : 'no runs yet'}`);
  lines.push(`- Versions: ${[...versions.values()].join(', ') || '–'}; ${[...new Set(cells.map((c) => `${c.tmux}, node ${c.node}`))].join('; ')}`);
  lines.push(`- agentwrap's relay: ${[...new Set(cells.map((c) => c.relay ?? 'event loop (the snapshot had no native addon)'))].join('; ') || '–'}`);
  lines.push(`- Commands: ${commands.map((c) => `\`${c}\``).join(', ') || '–'}`);
  lines.push(`- Goal per cell: accuracy ≥ ${GOALS.accuracy * 100}%, blocked recall 100%, 0 spurious, 0 missed, p95 ≤ ${GOALS.p95Ms} ms, 0 crashes, first screen ≤ +${GOALS.firstScreenMs} ms (✓/✗ per column).`);
  lines.push('');
  lines.push('| CLI | habitat | hooks | runs ok | accuracy | blocked recall | spurious | missed | p95 latency | crashes | first screen (bare → wrapped, medians) | replay = live |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cells) {
    const j = judgeCell(c);
    const t = c.total;
    const fs = c.firstScreen;
    const paired = fs?.pairedDeltaMs === undefined ? '' : `; paired ${fs.pairedDeltaMs >= 0 ? '+' : ''}${fs.pairedDeltaMs} ms`;
    const load = fs?.load === undefined ? '' : `, load ${fs.load.min}–${fs.load.max}`;
    const fsText = fs === null ? '–' : `${fs.bareMs} → ${fs.wrappedMs} ms (${j.delta >= 0 ? '+' : ''}${j.delta} ms${paired}, ${fs.runs} runs${load}${fs.timedOut ? `, ${fs.timedOut} timed out` : ''})${mark(j.firstScreen)}`;
    lines.push(
      `| ${c.agent} | ${c.habitat} | ${c.hooks} | ${c.scenarios.length - j.failedRuns}/${c.scenarios.length} | ${t ? pct(t.accuracy) : '–'}${mark(j.accuracy)} | ${pct(t?.per_state?.blocked?.recall ?? null)}${mark(j.blockedRecall)} | ${t ? t.spurious_transitions : '–'}${mark(j.spurious)} | ${t ? t.missed : '–'}${mark(j.missed)} | ${t?.latency_ms?.p95 ?? '–'} ms${mark(j.p95)} | ${j.killCrashes === 0 ? j.crashes : `${j.runCrashes} + ${j.killCrashes} at kill`}${mark(j.crashOk)} | ${fsText} | ${j.replaySame}/${j.replayTotal}${mark(j.replayTotal === 0 ? null : j.replaySame === j.replayTotal)} |`,
    );
  }
  const missing = missingCells(cells);
  if (missing.length > 0) lines.push('', `Not run${since === undefined ? ' yet' : ` since ${since}`}: ${missing.join(', ')}.`);
  lines.push('');
  if (kills !== undefined) lines.push(...renderKills(kills));
  if (openCodeStart !== undefined && Object.keys(openCodeStart).length > 0) lines.push(...renderOpenCodeStart(openCodeStart));
  lines.push('## Per scenario');
  lines.push('');
  lines.push('| CLI | habitat | hooks | scenario | result | accuracy | missed | spurious | p95 | evidence lines | replay vs live | stderr |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of cells) {
    for (const s of c.scenarios) {
      const sc = s.score;
      const stderr = s.crash.length ? `CRASH: ${s.crash.join('; ')}` : s.stderr.trim() === '' ? '' : s.stderr.trim().split('\n')[0].slice(0, 100).replace(/\|/g, '\\|');
      const replay = s.replay ? (s.replay.ok ? `same (max ${s.replay.maxOffsetMs} ms)` : s.replay.problem) : '–';
      lines.push(`| ${c.agent} | ${c.habitat} | ${c.hooks} | ${s.scenario} | ${s.ok ? 'ok' : `FAIL: ${String(s.error).slice(0, 80)}`} | ${sc ? pct(sc.accuracy) : '–'} | ${sc?.missed ?? '–'} | ${sc?.spurious_transitions ?? '–'} | ${sc?.latency_ms?.p95 ?? '–'} | ${s.evidenceLines ?? '–'} | ${String(replay).replace(/\|/g, '\\|')} | ${stderr} |`);
    }
  }
  lines.push('');
  lines.push('Notes: latency and accuracy are measured from what `agentwrap events` delivered (its `t`), on the');
  lines.push('cast\'s clock (aligned through the first output byte the pane showed); `stuck` is not in the stream,');
  lines.push('so it is not scored here. "replay = live": the run\'s own recording (`--record --record-input`, with');
  lines.push('its /proc and reporter event lines) replayed through `agentwrap eval`\'s pipeline gives the same state');
  lines.push('changes as were published live, each within 250 ms, up to the driver\'s exit keystroke. First screen:');
  lines.push('time from the keystroke that starts the command to the CLI\'s first paint (its `readyBytes` of');
  lines.push('output through `pipe-pane -O`), bare CLI against `agentwrap` with the cell\'s hooks setting,');
  lines.push('interleaved run by run with the order reversed every other round; judged on the difference of the');
  lines.push('medians; "paired" is the median of each round\'s own difference (wrapped − bare), and "load" the');
  lines.push('range of the 1-minute load average over those runs.');
  lines.push('agentwrap\'s stderr goes to a file in these runs (a crash is a stack trace, an `Error` line, a Node');
  lines.push('assertion, or exit 134/139); "N at kill" counts first-screen runs, which end by killing the tmux');
  lines.push('server under the wrapped CLI (a terminal that goes away must end quietly too). Recordings, events and stderr of each run stay under');
  lines.push('`~/.cache/agentwrap-capture/e2e/runs/`.');
  lines.push('');
  return lines.join('\n');
}
