#!/usr/bin/env node
// node test/capture/cut-fixture.mjs RECORDING.cast SECONDS SLUG [--no-title]
//
// Cuts a pack fixture from a labeled recording: the screen at SECONDS (agentwrap replay
// --capture-at, the built dist/), named and headed by the state the recording's LABELS give at
// that second, never by what the packs detect (so a fixture cannot bless a detection bug).
// Refuses a second labeled `uncertain`. Writes fixtures/<agent>/<state>_<slug>_<where>.txt,
// where <where> is `<personality>-<scenario>-<size>` (or `<scenario>-<size>` under the default
// personality, `habitat-<habitat>-<scenario>-<size>` for a recording made in a real tmux pane),
// with provenance lines naming the recording, the second and the label.
// --no-title leaves the OSC title out (and says so), so the screen rules alone decide.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { AGENTWRAP_MAIN, REPO } from './driver.mjs';
import { DEFAULT_PERSONALITY } from './personalities.mjs';

/** The label holding at `t` seconds: the last one at or before it. */
export function labelAt(labels, t) {
  let current;
  for (const label of labels) if (label.t <= t) current = label;
  return current;
}

function main([castPath, secondsArg, slug, flag]) {
  const noTitle = flag === '--no-title';
  if (!castPath || !secondsArg || !slug) throw new Error('usage: cut-fixture.mjs RECORDING.cast SECONDS SLUG');
  const seconds = Number(secondsArg);
  const base = castPath.replace(/\.cast$/, '');
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const labels = readFileSync(`${base}.labels.jsonl`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const label = labelAt(labels, seconds);
  if (!label || label.state === 'uncertain') throw new Error(`${castPath} is labeled ${label?.state ?? 'nothing'} at ${seconds}s: pick a scored second`);
  const next = labels.find((l) => l.t > label.t);
  const out = mkdtempSync(join(tmpdir(), 'cut-fixture-'));
  try {
    const r = spawnSync(process.execPath, [AGENTWRAP_MAIN, 'replay', castPath, '--capture-at', String(seconds), '--out', out], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`agentwrap replay --capture-at: ${r.stderr}`);
    const screenFile = readdirSync(out).find((f) => f.endsWith('.txt'));
    if (!screenFile) throw new Error(`agentwrap replay wrote no screen into ${out}`);
    const lines = readFileSync(join(out, screenFile), 'utf8').split('\n');
    const body = lines.filter((l) => !l.startsWith('# provenance:') && !(noTitle && l.startsWith('# title:')));
    // A habitat recording (a real tmux pane) has no personality: its terminal is the habitat's.
    const personality = meta.habitat ? `habitat-${meta.habitat}` : meta.personality ?? DEFAULT_PERSONALITY;
    const where = `${personality === DEFAULT_PERSONALITY ? '' : `${personality}-`}${basename(base)}`;
    const rel = relative(REPO, castPath);
    const state = label.state;
    const until = next ? `${next.t}s` : 'the end';
    const header = [
      `# provenance: ${rel} at ${seconds}s (agentwrap replay --capture-at); expected state from its labels: ${state} from ${label.t}s to ${until}`,
      `# provenance: ${meta.package} ${meta.reported_version ?? meta.version} against the capture lab's mock model, terminal ${meta.habitat ? `habitat ${meta.habitat} (a real tmux pane)` : `personality ${personality}`}, recorded ${String(meta.date).slice(0, 10)}`,
      ...(noTitle ? ['# provenance: the OSC title of that moment is left out, so the screen rules alone decide'] : []),
    ];
    const target = join(REPO, 'fixtures', meta.agent, `${state}_${slug}_${where}.txt`);
    if (existsSync(target)) throw new Error(`${target} exists`);
    writeFileSync(target, [...header, ...body].join('\n'));
    console.log(`wrote ${relative(REPO, target)} (label ${state} at ${seconds}s)`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (process.argv[1] && basename(process.argv[1]) === 'cut-fixture.mjs' && dirname(process.argv[1]).endsWith('capture')) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error(`cut-fixture: ${err.message}`);
    process.exit(1);
  }
}
