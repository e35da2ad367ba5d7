#!/usr/bin/env node
// node test/capture/relabel.mjs [--realign] RECORDING.cast…
//
// Rebuilds a recording's labels from the marks its meta.json kept (`label_marks`: what the
// driver did and what the mock saw, on the cast's clock) with the agent profile's current
// settling windows (agents.mjs `toolSettleMs`, `submitSettleMs`), and the output times of the cast itself for the
// "until quiet" windows. For when a settling window is re-measured after recording: the marks
// do not change, only how long after each one the label waits for the CLI to draw.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AGENTS } from './agents.mjs';
import { buildLabels, keyClockOffsetMs, labelsToJsonl } from './labels.mjs';

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

/**
 * Moves a recording's times (marks, driver and mock events, titles) onto the cast's clock by the
 * keys agentwrap recorded (labels.mjs keyClockOffsetMs over the meta's key events and the exit
 * keys after its `exit`), for a recording made before that alignment found shifts over 1 s.
 * Returns the shift applied (ms), 0 when the keys found none.
 */
export function realign(castPath) {
  const base = castPath.replace(/\.cast$/, '');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const profile = AGENTS[meta.agent];
  if (!profile) throw new Error(`${base}.meta.json: unknown agent ${meta.agent}`);
  const keys = meta.driver_events.flatMap((e) => {
    if (e.type === 'key') return [{ t: e.t * 1000, bytes: JSON.parse(e.detail.slice(e.detail.indexOf(' ') + 1)) }];
    // The driver wrote the exit keys 400 ms apart right after this event (driver.mjs).
    if (e.type === 'exit') return profile.keys.exit.map((bytes, i) => ({ t: e.t * 1000 + i * 400, bytes }));
    return [];
  });
  const shiftMs = keyClockOffsetMs(readFileSync(castPath, 'utf8'), keys, 0) ?? 0;
  const move = (list) => list.map((e) => ({ ...e, t: Number((e.t + shiftMs / 1000).toFixed(3)) }));
  meta.label_marks = move(meta.label_marks);
  meta.driver_events = move(meta.driver_events);
  meta.mock_events = move(meta.mock_events);
  if (Array.isArray(meta.titles)) meta.titles = move(meta.titles);
  meta.clock_offset_ms = Math.round((meta.clock_offset_ms ?? 0) + shiftMs);
  writeFileSync(`${base}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  return shiftMs;
}

if (process.argv[1] && basename(process.argv[1]) === 'relabel.mjs' && dirname(process.argv[1]).endsWith('capture')) {
  const realigning = process.argv.includes('--realign');
  for (const path of process.argv.slice(2).filter((a) => a !== '--realign')) {
    if (realigning) console.log(`${path}: clock moved by ${Math.round(realign(path))} ms`);
    const labels = relabel(path);
    console.log(`${path}: ${labels.map((l) => l.state[0]).join('')}`);
  }
}
