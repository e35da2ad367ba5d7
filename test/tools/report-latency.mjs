#!/usr/bin/env node
/**
 * Where the latency of a change the agent reported itself goes (docs/signals.md, "Latency where
 * the agent reported the change"). For every labeled change of every recording under PATH (the
 * scorer's changes, core/recordings/score.ts), when an OSC 7501 report of the new state arrived
 * in the recording between the change's start and its detection, or a hook event that authors
 * it (a turn start, gating.ts TURN_START_EVENTS: Claude Code's UserPromptSubmit, for working), it
 * prints, each from the change's start (the label mark: the key, or the mock's tool call):
 *   report     when the agent's first report of it arrived (the agent's own delay);
 *   published  when replay published the new state (report → published is agentwrap's share);
 *   sample     eval's latency: the first 100 ms sample showing it (published → sample is the
 *              sampling grid's share, 0–100 ms).
 * and then p50/p95/max of each over those changes. Changes without such a report are counted.
 *
 *   npx tsc -p tsconfig.json && node test/tools/report-latency.mjs recordings/claude/habitat-tmux [--quiet]
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DIST = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'dist', 'src');
const { evaluateRecordings } = await import(pathToFileURL(join(DIST, 'cli', 'commands', 'eval.js')).href);
const { analyzeRecording, nearestRank } = await import(pathToFileURL(join(DIST, 'core', 'recordings', 'score.js')).href);
const { TURN_START_EVENTS } = await import(pathToFileURL(join(DIST, 'core', 'detector', 'gating.js')).href);

const args = process.argv.slice(2);
const quiet = args.includes('--quiet');
const paths = args.filter((a) => !a.startsWith('--'));
const claimOf = (state) => (state === 'done' || state === 'error' ? 'idle' : state);

/** Every OSC 7501 report in a .cast, and every turn-start hook of `agent`: [t seconds, claimed state], in time order. */
function reportsIn(castPath, agent) {
  const turnStarts = TURN_START_EVENTS[agent] ?? [];
  const out = [];
  for (const line of readFileSync(castPath, 'utf8').split('\n').slice(1)) {
    if (line === '') continue;
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event[1] === 'agentwrap.report' && turnStarts.includes(JSON.parse(event[2])?.params?.event)) out.push([event[0], 'working']);
    if (event[1] !== 'o') continue;
    for (const m of String(event[2]).matchAll(/\x1b\]7501;state=(\w+)/g)) out.push([event[0], claimOf(m[1])]);
  }
  return out;
}

const run = await evaluateRecordings(paths, {});
const rows = [];
let unreported = 0;
for (const r of run.recordings) {
  const a = analyzeRecording({ file: r.score.file, agent: r.score.agent, labels: r.labels, published: r.published, durationS: r.durationS });
  const reports = reportsIn(a.file, r.score.agent);
  for (const c of a.changes) {
    if (c.detectedT === undefined) continue;
    const report = reports.find(([t, state]) => state === c.to && t >= c.startT - 0.01 && t <= c.detectedT);
    if (report === undefined) {
      unreported += 1;
      continue;
    }
    const published = r.published.find((p) => p.t >= report[0] - 0.01 && claimOf(p.state) === c.to);
    const ms = (t) => (t === undefined ? null : Math.round((t - c.startT) * 1000));
    const row = { file: a.file, change: `${c.from}->${c.to}`, report: ms(report[0]), published: ms(published?.t), sample: c.latencyMs, winner: published?.winner };
    rows.push(row);
    if (!quiet) console.log(`${row.file} ${row.change}: report ${row.report} ms, published ${row.published} ms (${row.winner}), sample ${row.sample} ms`);
  }
}
const summary = (values) => {
  const sorted = values.filter((v) => v !== null).sort((x, y) => x - y);
  return { p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95), max: sorted.at(-1) ?? null };
};
console.log(JSON.stringify({
  reported_changes: rows.length,
  unreported_changes: unreported,
  report_ms: summary(rows.map((r) => r.report)),
  report_to_published_ms: summary(rows.map((r) => (r.published === null ? null : r.published - r.report))),
  published_ms: summary(rows.map((r) => r.published)),
  sample_ms: summary(rows.map((r) => r.sample)),
}));
