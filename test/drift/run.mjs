#!/usr/bin/env node
// npm run drift -- [--agent A[,B…]] [--version V] [--check-only | --rescore] [--commit]
//
// A drift run: for each verified CLI of the capture lab (or the ones named) it asks npm for the
// newest release (or takes V), and when that is newer than its pack's validated_versions it
// installs it into the lab's cache, records the release scenarios with it (drift.mjs: simple,
// approve, deny at 80x24 and 120x40, in the lab's terminal and in a real tmux server) into
// recordings/<agent>/releases/<V>/, each scenario as one `npm run capture` under the live lock
// (/tmp/agentwrap-live.lock), scores every recording with `agentwrap eval` (everything on, and
// --no-screen-rules), and writes docs/drift.md. When every cell meets the goals it widens the
// pack's validated_versions to V; when one misses, it names it and leaves the range alone.
// --check-only asks the registry and updates docs/drift.md without recording; --rescore scores
// the release's recordings already made again (after a pack fix or a re-recorded cell) without
// recording; --commit commits the release's recordings, the pack and docs/drift.md together.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import { AGENTS, AGENT_NAMES } from '../capture/agents.mjs';
import { ensureInstalled, latestVersion } from '../capture/install.mjs';
import { REPO, AGENTWRAP_MAIN } from '../capture/driver.mjs';
import { DRIFT_PLACES, DRIFT_SCENARIOS, DRIFT_SIZES, driftDoc, goalMisses, releasePasses, releaseToCheck, widenPackText } from './drift.mjs';

const LIVE_LOCK = '/tmp/agentwrap-live.lock';
const RECORDINGS = join(REPO, 'recordings');
const CHECKS_FILE = join(RECORDINGS, 'drift-checks.json');
const DOC = join(REPO, 'docs', 'drift.md');
const NAMES = { claude: 'Claude Code', codex: 'Codex', opencode: 'OpenCode', gemini: 'Gemini CLI', pi: 'pi', grok: 'Grok CLI', qwen: 'Qwen Code', copilot: 'Copilot CLI' };

const packPath = (agent) => join(REPO, 'packs', `${agent}.toml`);

/** The lab's CLIs whose bundled pack is verified (written from recordings, not guessed). */
function verifiedAgents() {
  return AGENT_NAMES.filter((a) => existsSync(packPath(a)) && parse(readFileSync(packPath(a), 'utf8')).unverified !== true);
}

function parseArgs(argv) {
  const o = { agents: undefined, version: undefined, checkOnly: false, rescore: false, commit: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => { const v = argv[++i]; if (v === undefined) throw new Error(`${a} needs a value`); return v; };
    if (a === '--agent') o.agents = val().split(',');
    else if (a === '--version') o.version = val();
    else if (a === '--check-only') o.checkOnly = true;
    else if (a === '--rescore') o.rescore = true;
    else if (a === '--commit') o.commit = true;
    else throw new Error(`unknown argument ${a} (npm run drift -- [--agent A[,B]] [--version V] [--check-only | --rescore] [--commit])`);
  }
  const verified = verifiedAgents();
  o.agents ??= verified;
  for (const a of o.agents) if (!verified.includes(a)) throw new Error(`${a} is not a verified CLI of the capture lab (verified: ${verified.join(', ')})`);
  if (o.version !== undefined && o.agents.length !== 1) throw new Error('--version needs exactly one --agent');
  if (o.rescore && o.checkOnly) throw new Error('--rescore records nothing already; --check-only scores nothing: one or the other');
  return o;
}

/** When npm says `version` was published (YYYY-MM-DD), or undefined. */
function publishedDate(pkg, version) {
  try {
    return JSON.parse(execFileSync('npm', ['view', pkg, 'time', '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }))[version]?.slice(0, 10);
  } catch {
    return undefined;
  }
}

/**
 * Records one scenario at every size through the capture lab, holding the live lock for that
 * run only; returns the lab's FAIL messages by `<scenario>-<size>`.
 */
function recordScenario(agent, version, scenario, place) {
  const args = [LIVE_LOCK, process.execPath, join(REPO, 'test', 'capture', 'run.mjs'), '--agent', agent, '--version', version, '--scenario', scenario, '--size', DRIFT_SIZES.join(','), '--no-eval', ...(place.habitat ? ['--habitat', place.habitat] : [])];
  console.error(`[drift] flock ${LIVE_LOCK} node ${args.slice(2).map((x) => relative(REPO, x) || x).join(' ')}`);
  const r = spawnSync('flock', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 });
  process.stderr.write(r.stdout ?? '');
  const failures = {};
  for (const m of (r.stdout ?? '').matchAll(/^FAIL \S+ \S+ (\S+) [\d.]+s: (.*)$/gm)) failures[m[1]] = m[2];
  if (r.status !== 0 && Object.keys(failures).length === 0) for (const size of DRIFT_SIZES) failures[`${scenario}-${size}`] = `capture exited ${r.status ?? r.signal}`;
  return failures;
}

function evalTotal(paths, extra = []) {
  const r = spawnSync(process.execPath, [AGENTWRAP_MAIN, 'eval', '--json', ...extra, ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`eval ${paths.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout).total;
}

/** The release's cells: one per place × scenario × size, then one per place over all of them. */
function scoreRelease(agent, version, failures) {
  const cells = [];
  for (const place of DRIFT_PLACES) {
    const dir = join(RECORDINGS, agent, 'releases', version, place.dir);
    const casts = [];
    for (const size of DRIFT_SIZES) for (const scenario of DRIFT_SCENARIOS) {
      const name = `${scenario}-${size}`;
      const cast = join(dir, `${name}.cast`);
      const error = failures[`${place.name} ${name}`] ?? (existsSync(cast) ? undefined : 'no recording');
      if (error !== undefined) { cells.push({ place: place.name, scenario, size, error }); continue; }
      const recorded = JSON.parse(readFileSync(cast.replace(/\.cast$/, '.meta.json'), 'utf8')).version;
      if (recorded !== version) throw new Error(`${relative(REPO, cast)}: recorded with ${recorded}, filed under ${version}`);
      casts.push(cast);
      cells.push({ place: place.name, scenario, size, all: evalTotal([cast]), noScreenRules: evalTotal([cast], ['--no-screen-rules']) });
    }
    if (casts.length > 0) cells.push({ place: place.name, scenario: 'all', files: casts.length, all: evalTotal(casts), noScreenRules: evalTotal(casts, ['--no-screen-rules']) });
  }
  return cells;
}

/** Every release a drift run recorded, by agent (their drift.json beside the recordings). */
function storedReleases() {
  const out = {};
  for (const agent of readdirSync(RECORDINGS)) {
    const rel = join(RECORDINGS, agent, 'releases');
    if (!existsSync(rel)) continue;
    for (const v of readdirSync(rel)) {
      const file = join(rel, v, 'drift.json');
      if (existsSync(file)) (out[agent] ??= []).push(JSON.parse(readFileSync(file, 'utf8')));
    }
  }
  return out;
}

function driftAgent(agent, o, checks, today) {
  const a = AGENTS[agent];
  const range = parse(readFileSync(packPath(agent), 'utf8')).validated_versions;
  const newest = latestVersion(a.pkg);
  const choice = releaseToCheck({ range, newest, asked: o.version });
  console.error(`[drift] ${agent}: ${choice.why}`);
  if (!choice.record || o.checkOnly) {
    checks[agent] = { date: today, newest, range, result: choice.record ? `${choice.version} to record (--check-only)` : `nothing to record: ${newest} is ${choice.status}` };
    return undefined;
  }
  const { version } = choice;
  const failures = {};
  if (!o.rescore) ensureInstalled(agent, version);
  if (!o.rescore) for (const place of DRIFT_PLACES) for (const scenario of DRIFT_SCENARIOS) {
    for (const [name, error] of Object.entries(recordScenario(agent, version, scenario, place))) failures[`${place.name} ${name}`] = error;
  }
  const release = { agent, version, published: publishedDate(a.pkg, version), date: today, rangeBefore: range, rangeAfter: range, cells: scoreRelease(agent, version, failures) };
  if (releasePasses(release)) {
    const widened = widenPackText(readFileSync(packPath(agent), 'utf8'), version);
    if (!widened.ok) throw new Error(`packs/${agent}.toml: ${widened.reason}`);
    writeFileSync(packPath(agent), widened.text);
    release.rangeAfter = widened.range;
  }
  const failing = release.cells.filter((c) => c.error !== undefined || goalMisses(c.all).length > 0);
  for (const c of failing) console.log(`FAIL ${agent} ${version} ${c.place} ${c.scenario} ${c.size ?? ''}: ${c.error ?? goalMisses(c.all).join(', ')}`);
  checks[agent] = { date: today, newest, range, result: failing.length === 0 ? `${version}: every cell at the goal, widened to \`${release.rangeAfter}\`` : `${version}: ${failing.length} cell(s) below the goal, range left alone` };
  writeFileSync(join(RECORDINGS, agent, 'releases', version, 'drift.json'), `${JSON.stringify(release, null, 2)}\n`);
  console.log(`${agent} ${version}: ${failing.length === 0 ? `every cell at the goal; validated_versions "${range}" -> "${release.rangeAfter}"` : `${failing.length} cell(s) below the goal; validated_versions left at "${range}"`}`);
  return release;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(AGENTWRAP_MAIN)) throw new Error(`${relative(REPO, AGENTWRAP_MAIN)} is missing: npm run build first (npm run drift does)`);
  const today = new Date().toISOString().slice(0, 10);
  const checks = existsSync(CHECKS_FILE) ? JSON.parse(readFileSync(CHECKS_FILE, 'utf8')) : {};
  const recorded = [];
  for (const agent of o.agents) {
    const release = driftAgent(agent, o, checks, today);
    if (release !== undefined) recorded.push(release);
  }
  writeFileSync(CHECKS_FILE, `${JSON.stringify(checks, null, 2)}\n`);
  writeFileSync(DOC, driftDoc({ checks, releases: storedReleases(), names: NAMES }));
  console.log(`wrote ${relative(REPO, DOC)}`);
  if (o.commit) {
    const paths = [relative(REPO, CHECKS_FILE), relative(REPO, DOC), ...recorded.flatMap((r) => [`recordings/${r.agent}/releases/${r.version}`, `packs/${r.agent}.toml`])];
    execFileSync('git', ['add', '--', ...paths], { cwd: REPO, stdio: 'inherit' });
    const what = recorded.map((r) => `${NAMES[r.agent]} ${r.version} ${releasePasses(r) ? `passes, validated_versions widened to "${r.rangeAfter}"` : 'misses the goal, range left alone'}`).join('; ');
    execFileSync('git', ['commit', '-m', `Drift run ${today}: ${what || 'no new release to record'} (npm run drift).`], { cwd: REPO, stdio: 'inherit' });
  }
  return recorded.every(releasePasses) ? 0 : 1;
}

try {
  process.exit(main());
} catch (err) {
  console.error(`[drift] ${err?.stack ?? err}`);
  process.exit(2);
}
