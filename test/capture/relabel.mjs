#!/usr/bin/env node
// node test/capture/relabel.mjs RECORDING.cast…
//
// Rebuilds a recording's labels from the marks its meta.json kept (`label_marks`: what the
// driver did and what the mock saw, on the cast's clock) with the agent profile's current
// settling windows (agents.mjs `toolSettleMs`, `submitSettleMs`), and the output times of the cast itself for the
// "until quiet" windows. For when a settling window is re-measured after recording: the marks
// do not change, only how long after each one the label waits for the CLI to draw.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AGENTS } from './agents.mjs';
import { buildLabels, labelsToJsonl } from './labels.mjs';

/** Output times (ms, cast clock) of an asciicast's `o` events. */
function outputTimesMs(castText) {
  const times = [];
  for (const line of castText.split('\n').slice(1)) {
    if (!line.includes('"o"')) continue;
    const e = JSON.parse(line);
    if (e[1] === 'o') times.push(e[0] * 1000);
  }
  return times;
}

export function relabel(castPath) {
  const base = castPath.replace(/\.cast$/, '');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const profile = AGENTS[meta.agent];
  if (!profile) throw new Error(`${base}.meta.json: unknown agent ${meta.agent}`);
  const marks = meta.label_marks.map((m) => {
    const settle = m.why?.startsWith('tool call') ? profile.toolSettleMs ?? m.settle
      : m.why === 'prompt submitted' ? profile.submitSettleMs ?? m.settle : m.settle;
    return { t: m.t * 1000, state: m.state, settle: settle ?? undefined, why: m.why ?? undefined };
  });
  const labels = buildLabels(marks, outputTimesMs(readFileSync(castPath, 'utf8')), 0);
  writeFileSync(`${base}.labels.jsonl`, labelsToJsonl(labels));
  meta.label_marks = marks.map((m) => ({ t: Number((m.t / 1000).toFixed(3)), state: m.state, settle: m.settle ?? null, why: m.why ?? null }));
  writeFileSync(`${base}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  return labels;
}

if (process.argv[1] && basename(process.argv[1]) === 'relabel.mjs' && dirname(process.argv[1]).endsWith('capture')) {
  for (const path of process.argv.slice(2)) {
    const labels = relabel(path);
    console.log(`${path}: ${labels.map((l) => l.state[0]).join('')}`);
  }
}
