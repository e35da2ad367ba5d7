#!/usr/bin/env node
// node test/capture/corpus-table.mjs [--releases] [--personalities] [--agent A[,B…]] [DIR]
//
// The corpus tables of docs/notebook/ (by release and by personality), from `agentwrap eval
// --json` runs (the built CLI, dist/src/cli/main.js; run `npm run build` first) over the
// committed recordings (DIR, default recordings/):
//   --releases       CLI × release × scenario: the pinned release's recordings at the top of
//                    recordings/<agent>/ and each older one's under releases/<version>/
//                    (`npm run capture -- --agent A --version V`), one cell per recording
//                    (simple/approve/deny at 80x24, then at 120x40) plus a pooled row per release.
//   --personalities  CLI × terminal personality: every recordings/<agent>/<personality>/ folder
//                    and every real-tmux habitat-<habitat>/ folder pooled, plus the whole
//                    recordings/<agent> tree.
// Both by default. Markdown on stdout; one eval process per cell, so it takes a few minutes.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import semver from 'semver';
import { AGENTS, AGENT_NAMES } from './agents.mjs';
import { PERSONALITY_NAMES, DEFAULT_PERSONALITY, habitatDir } from './personalities.mjs';
import { REPO, AGENTWRAP_MAIN } from './driver.mjs';
import { HABITATS } from '../e2e/tmux-pane.mjs';

const RELEASE_SCENARIOS = ['simple', 'approve', 'deny'];
const RELEASE_SIZES = ['80x24', '120x40'];

function evalTotal(paths) {
  const r = spawnSync(process.execPath, [AGENTWRAP_MAIN, 'eval', '--json', ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`eval ${paths.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout).total;
}

const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const ms = (x) => (x === null || x === undefined ? '–' : String(x));

function cells(t) {
  return [t.samples, pct(t.accuracy), pct(t.per_state.blocked?.recall ?? null), ms(t.latency_ms.p50), ms(t.latency_ms.p95), t.missed, t.spurious_transitions];
}

/** At goal: accuracy ≥ 98%, blocked recall 100% (or nothing blocked), 0 missed, 0 spurious, p95 ≤ 1 s. */
function atGoal(t) {
  const recall = t.per_state.blocked?.recall;
  return (t.accuracy ?? 0) >= 0.98 && (recall === null || recall === undefined || recall === 1) && t.missed === 0 && t.spurious_transitions === 0 && (t.latency_ms.p95 ?? 0) <= 1000;
}

const HEAD = 'samples | accuracy | blocked recall | p50 ms | p95 ms | missed | spurious | goal';

/** [{ version, dir }] of one agent, oldest first: the pin at the top, the rest under releases/. */
function releasesOf(root, agent) {
  const out = [{ version: AGENTS[agent].version, dir: join(root, agent) }];
  const rel = join(root, agent, 'releases');
  if (existsSync(rel)) for (const v of readdirSync(rel)) if (v !== AGENTS[agent].version) out.push({ version: v, dir: join(rel, v) });
  return out.sort((a, b) => semver.compare(a.version, b.version));
}

function recordedVersion(cast) {
  const meta = cast.replace(/\.cast$/, '.meta.json');
  return existsSync(meta) ? JSON.parse(readFileSync(meta, 'utf8')).version : undefined;
}

function releaseTable(root) {
  const lines = [`| CLI | release | scenario | ${HEAD} |`, `|---|---|---|${'---|'.repeat(8)}`];
  for (const agent of agents) {
    for (const { version, dir } of releasesOf(root, agent)) {
      const files = [];
      for (const size of RELEASE_SIZES) {
        for (const scenario of RELEASE_SCENARIOS) {
          const cast = join(dir, `${scenario}-${size}.cast`);
          if (!existsSync(cast)) continue;
          const v = recordedVersion(cast);
          if (v !== version) throw new Error(`${relative(REPO, cast)}: recorded with ${v}, filed under ${version}`);
          files.push(cast);
          const t = evalTotal([cast]);
          lines.push(`| ${agent} | ${version} | ${scenario} ${size} | ${cells(t).join(' | ')} | ${atGoal(t) ? 'yes' : '**no**'} |`);
        }
      }
      if (files.length === 0) continue;
      const t = evalTotal(files);
      lines.push(`| ${agent} | **${version}** | **all ${files.length}** | ${cells(t).join(' | ')} | ${atGoal(t) ? 'yes' : '**no**'} |`);
    }
  }
  return lines.join('\n');
}

function personalityTable(root) {
  const lines = [`| CLI | recordings | files | ${HEAD} |`, `|---|---|---|${'---|'.repeat(8)}`];
  const castsUnder = (dir) => readdirSync(dir).filter((f) => f.endsWith('.cast')).length;
  for (const agent of agents) {
    const base = join(root, agent);
    if (!existsSync(base)) continue;
    for (const p of [...PERSONALITY_NAMES, ...Object.keys(HABITATS).map(habitatDir)]) {
      const dir = p === DEFAULT_PERSONALITY ? undefined : join(base, p);
      if (dir === undefined || !existsSync(dir) || !statSync(dir).isDirectory()) continue;
      const t = evalTotal([dir]);
      lines.push(`| ${agent} | ${p}/ | ${castsUnder(dir)} | ${cells(t).join(' | ')} | ${atGoal(t) ? 'yes' : '**no**'} |`);
    }
    const t = evalTotal([base]);
    lines.push(`| ${agent} | **whole tree** | | ${cells(t).join(' | ')} | ${atGoal(t) ? 'yes' : '**no**'} |`);
  }
  return lines.join('\n');
}

const args = process.argv.slice(2);
const agentAt = args.indexOf('--agent');
const agents = agentAt === -1 ? AGENT_NAMES : args.splice(agentAt, 2)[1].split(',');
const root = args.find((a) => !a.startsWith('--')) ?? join(REPO, 'recordings');
const both = !args.includes('--releases') && !args.includes('--personalities');
if (both || args.includes('--releases')) console.log(`${releaseTable(root)}\n`);
if (both || args.includes('--personalities')) console.log(`${personalityTable(root)}\n`);
