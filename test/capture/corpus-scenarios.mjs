#!/usr/bin/env node
// node test/capture/corpus-scenarios.mjs [--agents A,B…]   (after npm run build; from the repo root)
// Prints the corpus table (scenario × CLI) from `agentwrap eval --json` over recordings/<agent>
// (default personality only, both sizes pooled per cell): accuracy, blocked recall, p95, missed, spurious.
// A cell with no recording in the top folder is filled from `server/` (recorded with the CLI's own
// server, whose events agentwrap follows: `--agent-server`), marked ‡.
// Default: the four first CLIs; `--agents pi,grok,qwen,copilot` for the newer ones.
import { execFileSync } from 'node:child_process';
const agentsAt = process.argv.indexOf('--agents');
const agents = agentsAt === -1 ? ['claude', 'codex', 'gemini', 'opencode'] : process.argv[agentsAt + 1].split(',');
const cells = {};
const serverCells = {};
const scenarios = new Set();
for (const agent of agents) {
  const json = JSON.parse(execFileSync('node', ['dist/src/cli/main.js', 'eval', `recordings/${agent}`, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
  for (const f of json.files) {
    const rel = f.file.replace(`recordings/${agent}/`, '');
    const isServer = rel.startsWith('server/') && !rel.slice('server/'.length).includes('/');
    if (rel.includes('/') && !isServer) continue;
    const scenario = rel.replace(/^server\//, '').replace(/-\d+x\d+\.cast$/, '');
    scenarios.add(scenario);
    const c = ((isServer ? serverCells : cells)[`${scenario}|${agent}`] ??= { n: 0, samples: 0, correct: 0, blockedLabeled: 0, blockedHit: 0, p95: 0, missed: 0, spurious: 0 });
    c.n++; c.samples += f.samples; c.correct += f.accuracy * f.samples;
    const b = f.per_state.blocked; if (b && b.labeled) { c.blockedLabeled += b.labeled; c.blockedHit += b.recall * b.labeled; }
    c.p95 = Math.max(c.p95, f.latency_ms?.p95 ?? 0); c.missed += f.missed; c.spurious += f.spurious_transitions;
  }
}
const fmt = (c) => !c ? '—' : `${(100 * c.correct / c.samples).toFixed(1)}% · ${c.blockedLabeled ? (100 * c.blockedHit / c.blockedLabeled).toFixed(0) + '%' : '–'} · ${c.p95} ms · ${c.missed}/${c.spurious} (${c.n})`;
console.log(`| scenario | ${agents.join(' | ')} |`);
console.log(`|---|${agents.map(() => '---').join('|')}|`);
const cell = (key) => (cells[key] === undefined && serverCells[key] !== undefined ? `${fmt(serverCells[key])} ‡` : fmt(cells[key]));
for (const s of [...scenarios].sort()) console.log(`| \`${s}\` | ${agents.map((a) => cell(`${s}|${a}`)).join(' | ')} |`);
if (Object.keys(serverCells).some((key) => cells[key] === undefined)) console.log('\n‡ recorded with the CLI\'s own server, whose events agentwrap follows (`--agent-server`, `server/`)');
