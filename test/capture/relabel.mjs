#!/usr/bin/env node
// node test/capture/relabel.mjs [--realign] RECORDING.cast…
//
// Rebuilds a recording's labels from the marks its meta.json kept (`label_marks`: what the
// driver did and what the mock saw, on the cast's clock) with the agent profile's current
// settling windows (agents.mjs `toolSettleMs`, `submitSettleMs`), and the output times of the cast itself for the
// "until quiet" windows. For when a settling window is re-measured after recording: the marks
// do not change, only how long after each one the label waits for the CLI to draw.
// --realign first moves the meta's times (marks, driver and mock events, titles) onto the cast's
// clock by the keys agentwrap recorded (labels.mjs keyClockOffsetMs), for a recording whose
// driver could not match them when it was made (`clock_offset_ms: null`, or an offset the
// window of the time missed).
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

/**
 * Shifts every time of `meta` by the offset between the driver's keys (its `key` events, whose
 * detail ends in the key as JSON, and the exit keys after its `exit`) and the cast's `i` events; returns the offset in ms, or
 * undefined when no key matches (then nothing moves).
 */
export function realignMeta(meta, castText) {
  const exitKeys = AGENTS[meta.agent]?.keys.exit ?? [];
  const keys = meta.driver_events.flatMap((e) => {
    if (e.type === 'key') return [{ t: e.t * 1000, bytes: JSON.parse(e.detail.slice(e.detail.indexOf(' ') + 1)) }];
    // The driver wrote the exit keys 400 ms apart right after this event (driver.mjs).
    if (e.type === 'exit') return exitKeys.map((bytes, i) => ({ t: e.t * 1000 + i * 400, bytes }));
    return [];
  });
  const offsetMs = keyClockOffsetMs(castText, keys, 0);
  if (offsetMs === undefined) return undefined;
  const shift = (t) => Number((t + offsetMs / 1000).toFixed(3));
  for (const list of [meta.label_marks, meta.driver_events, meta.mock_events, meta.titles ?? []]) for (const e of list) e.t = shift(e.t);
  meta.clock_offset_ms = Math.round((meta.clock_offset_ms ?? 0) + offsetMs);
  return offsetMs;
}

export function relabel(castPath, { realign = false } = {}) {
  const base = castPath.replace(/\.cast$/, '');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  if (realign) {
    const offsetMs = realignMeta(meta, readFileSync(castPath, 'utf8'));
    console.error(`${castPath}: ${offsetMs === undefined ? 'no key matched; times left as they were' : `times moved by ${Math.round(offsetMs)} ms`}`);
  }
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
  const realign = process.argv.includes('--realign');
  for (const path of process.argv.slice(2).filter((a) => a !== '--realign')) {
    const labels = relabel(path, { realign });
    console.log(`${path}: ${labels.map((l) => l.state[0]).join('')}`);
  }
}
