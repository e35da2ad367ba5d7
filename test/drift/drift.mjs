// The pure parts of `npm run drift` (run.mjs): which release to check, whether a cell meets the
// goals, how a pack's validated_versions widens to take a release in, and docs/drift.md from the
// stored results. No registry, files or clock here: run.mjs gathers those and passes them in.
import semver from 'semver';
import { parseVersionRange, versionStatus } from '../../dist/src/core/packs/versions.js';

/** The e2e goals (E2E.md, docs/capture.md), per cell and per release. */
export const GOALS = { accuracy: 0.98, blockedRecall: 1, missed: 0, spurious: 0, p95Ms: 1000 };

/** What a drift run records of a release: the scenarios every older release has, at both sizes. */
export const DRIFT_SCENARIOS = ['simple', 'approve', 'deny'];
export const DRIFT_SIZES = ['80x24', '120x40'];
/**
 * Where: the lab's own terminal (releases/<V>/, as every older release was recorded) and a real
 * tmux server with the CLI wrapped by agentwrap as a user runs it (releases/<V>/habitat-tmux/).
 */
export const DRIFT_PLACES = [
  { name: 'terminal', habitat: undefined, dir: '' },
  { name: 'tmux', habitat: 'tmux', dir: 'habitat-tmux' },
];

/**
 * The release to record for one agent: the one asked for (`--version`), else the newest on the
 * registry when it is newer than the pack's span. A newest release inside the span was checked
 * already; one older than the span (a yanked newer release) is reported, not recorded.
 */
export function releaseToCheck({ range, newest, asked }) {
  if (asked !== undefined) return { version: asked, status: versionStatus(asked, range), record: true, why: `asked for ${asked}` };
  const status = versionStatus(newest, range);
  if (status === 'newer') return { version: newest, status, record: true, why: `the newest release, ${newest}, is newer than "${range}"` };
  if (status === 'inside') return { version: newest, status, record: false, why: `the newest release, ${newest}, is inside "${range}"` };
  return { version: newest, status, record: false, why: `the newest release, ${newest}, is ${status} for "${range}": nothing newer to check` };
}

/** Whether one eval total meets the goals, and if not, which of them it misses (empty when met). */
export function goalMisses(total) {
  const misses = [];
  if (total === undefined) return ['not recorded'];
  if ((total.accuracy ?? 0) < GOALS.accuracy) misses.push(`accuracy ${pct(total.accuracy)} < ${pct(GOALS.accuracy)}`);
  const recall = total.per_state?.blocked?.recall;
  if (recall !== null && recall !== undefined && recall < GOALS.blockedRecall) misses.push(`blocked recall ${pct(recall)}`);
  if (total.missed > GOALS.missed) misses.push(`${total.missed} missed`);
  if (total.spurious_transitions > GOALS.spurious) misses.push(`${total.spurious_transitions} spurious`);
  if ((total.latency_ms?.p95 ?? 0) > GOALS.p95Ms) misses.push(`p95 ${total.latency_ms.p95} ms > ${GOALS.p95Ms} ms`);
  return misses;
}

/**
 * The pack's range widened to take `version` in, so that it is still exactly the recorded span
 * (test/app/validated-versions.test.ts): from its oldest release to `version`. A version inside
 * leaves it as it is; one older than the span or in a gap is not what a drift run widens for.
 */
export function widenRange(range, version) {
  const parsed = parseVersionRange(range);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const status = versionStatus(version, range);
  if (status === 'inside') return { ok: true, range, changed: false };
  if (status !== 'newer') return { ok: false, reason: `${version} is ${status} for "${range}"; only a newer release widens it` };
  if (parsed.range.set.length !== 1) return { ok: false, reason: `"${range}" has ${parsed.range.set.length} alternatives; widen it by hand` };
  const oldest = semver.minVersion(parsed.range)?.version;
  if (oldest === undefined) return { ok: false, reason: `"${range}" admits no version` };
  return { ok: true, range: `>=${oldest}, <=${semver.valid(semver.coerce(version))}`, changed: true };
}

const RANGE_LINE = /^validated_versions\s*=\s*"([^"]*)"\s*$/m;

/** A pack file's text with its validated_versions widened for `version` (the rest untouched). */
export function widenPackText(text, version) {
  const line = RANGE_LINE.exec(text);
  if (line === null) return { ok: false, reason: 'no validated_versions = "…" line' };
  const widened = widenRange(line[1], version);
  if (!widened.ok) return widened;
  return { ...widened, from: line[1], text: text.replace(RANGE_LINE, `validated_versions = "${widened.range}"`) };
}

const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const ms = (x) => (x === null || x === undefined ? '–' : String(x));
const metrics = (t) => (t === undefined ? '– | – | – | – | –' : `${pct(t.accuracy)} | ${pct(t.per_state?.blocked?.recall)} | ${t.missed} | ${t.spurious_transitions} | ${ms(t.latency_ms?.p95)}`);

/**
 * One release's table: a row per place × scenario × size, then a row per place for all of them,
 * scored with everything on (what the goal is checked on) and with the screen rules off (how much
 * the agent's own signals carry; no goal).
 */
export function releaseTable(release) {
  const head = '| place | scenario | accuracy | blocked recall | missed | spurious | p95 ms | goal | screen rules off: accuracy | blocked recall | missed | spurious | p95 ms |';
  const lines = [head, `|${'---|'.repeat(13)}`];
  for (const c of release.cells) {
    const misses = c.error === undefined ? goalMisses(c.all) : [`recording failed: ${c.error}`];
    const scenario = c.scenario === 'all' ? `**all ${c.files}**` : `${c.scenario} ${c.size}`;
    lines.push(`| ${c.place} | ${scenario} | ${metrics(c.all)} | ${misses.length === 0 ? 'yes' : `**no**: ${misses.join(', ')}`} | ${metrics(c.noScreenRules)} |`);
  }
  return lines.join('\n');
}

/** Whether every cell of a release meets the goals with everything on. */
export function releasePasses(release) {
  return release.cells.length > 0 && release.cells.every((c) => c.error === undefined && goalMisses(c.all).length === 0);
}

/**
 * docs/drift.md: the goals, the last check of every agent (`checks`, by agent) and the table of
 * every release a drift run recorded (`releases`, newest first per agent).
 */
export function driftDoc({ checks, releases, names }) {
  const out = [
    '# Drift: new agent releases against their packs',
    '',
    'Written by `npm run drift` ([capture.md](capture.md#drift-runs-npm-run-drift)); do not edit by hand.',
    'A drift run records a CLI release newer than its pack\'s `validated_versions` in the capture',
    `lab (${DRIFT_SCENARIOS.join(', ')} at ${DRIFT_SIZES.join(' and ')}, in the lab's own terminal and in a real`,
    'tmux server through agentwrap), scores each recording against its labels with the pack, and widens',
    'the range to that release when every cell meets the goals.',
    '',
    `Goal per cell, with everything on: accuracy ≥ ${GOALS.accuracy * 100}%, blocked recall ${GOALS.blockedRecall * 100}%, ${GOALS.missed} missed, ${GOALS.spurious} spurious, p95 ≤ ${GOALS.p95Ms} ms.`,
    'The screen-rules-off columns (`eval --no-screen-rules`) show what the agent\'s own signals carry; no goal.',
    '',
    '## Last check per CLI',
    '',
    '| CLI | checked | newest on npm | `validated_versions` when checked | result |',
    '|---|---|---|---|---|',
  ];
  for (const agent of Object.keys(checks).sort()) {
    const c = checks[agent];
    out.push(`| ${names[agent] ?? agent} | ${c.date} | ${c.newest} | \`${c.range}\` | ${c.result} |`);
  }
  for (const agent of Object.keys(releases).sort()) {
    const list = [...releases[agent]].sort((a, b) => semver.rcompare(a.version, b.version));
    if (list.length === 0) continue;
    out.push('', `## ${names[agent] ?? agent}`);
    for (const r of list) {
      const verdict = releasePasses(r) ? `every cell at the goal; \`validated_versions\` "${r.rangeBefore}" → "${r.rangeAfter}"` : `**not at the goal**; \`validated_versions\` left at "${r.rangeBefore}"`;
      out.push('', `### ${r.version} (${r.published === undefined ? '' : `published ${r.published}, `}recorded ${r.date})`, '', `\`recordings/${agent}/releases/${r.version}/\`: ${verdict}.`, '', releaseTable(r));
    }
  }
  return `${out.join('\n')}\n`;
}
