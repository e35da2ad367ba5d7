// The end of a capture run: its labels put on the cast's own clock, its meta, and its files
// (<out>/<scenario>-<cols>x<rows>.cast + .labels.jsonl + .meta.json; run.log's screens.txt and
// meta.json for pack authors). driver.mjs hands over what it saw.
import { readFileSync, writeFileSync, existsSync, rmSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { buildLabels, labelsToJsonl, keyClockOffsetMs } from './labels.mjs';
import { TERMINAL_ENV_KEYS } from './personalities.mjs';

/**
 * Aligns the run's marks to the cast's clock and writes its files. Returns runScenario's result:
 * { ok: true, castPath, labels, runDir, mode, castStartWall, meta }, or { ok: false, error, … }
 * with the cast kept in the run directory.
 */
export function writeRunOutput({
  agent, scenario, name, cols, rows, opts, profile, persona, seeded, serverArgs, seedValue, runDir, outDir, partial, log,
  rec, mock, startWall, firstOutputWall, keyWrites, marks, outputTimes, titles, screens, driverEvents, agentEvents,
  answerCounts, resizedTo, error, exitInfo,
}) {
  // Align labels to the cast's clock via the first output event (agentwrap starts the cast a
  // little after we spawn it; with the temporary writer the offset is the spawn time itself).
  let castStartWall = startWall;
  const castText = existsSync(partial) ? readFileSync(partial, 'utf8') : '';
  const firstO = castText.split('\n').slice(1).find((l) => l.includes('"o"'));
  if (firstO && firstOutputWall) castStartWall = firstOutputWall - JSON.parse(firstO)[0] * 1000;
  // Then correct it by the keys: agentwrap records each key the driver wrote as an `i` event, on
  // the cast's own clock. Aligned by output alone, marks came out ~40 ms late against them (the
  // relay's delivery delay), enough to turn a CLI's redraw right after Esc into a "spurious"
  // transition. The median offset over the driver's keys (matched by bytes, nearest in time)
  // puts each mark where agentwrap saw the key.
  const clockOffsetMs = keyClockOffsetMs(castText, keyWrites, castStartWall);
  if (clockOffsetMs !== undefined) castStartWall -= clockOffsetMs;
  const labels = buildLabels(marks, outputTimes, castStartWall);
  const base = join(outDir, name);
  const rel = (t) => Number(((t - castStartWall) / 1000).toFixed(3));
  const meta = {
    agent,
    package: profile.pkg,
    version: opts.version,
    reported_version: opts.reported,
    scenario,
    cols,
    rows,
    resized_to: resizedTo ?? null,
    date: new Date(startWall).toISOString(),
    recorder: rec.mode,
    // Which relay the recording agentwrap ran (snapshotAgentwrap's `relay`); null without agentwrap.
    relay: rec.mode.startsWith('agentwrap') ? (opts.relay ?? null) : null,
    personality: opts.habitat === undefined ? persona.name : null,
    // A real tmux server the session ran in (test/e2e/tmux-pane.mjs HABITATS), instead of a personality.
    habitat: opts.habitat ?? null,
    // The arguments that started the CLI's own server (`eventServer`), if any: with `--port`
    // (`--agent-server`) agentwrap followed its event stream and the cast holds its reports.
    server_args: serverArgs.length ? serverArgs : null,
    clock_offset_ms: clockOffsetMs === undefined ? null : Math.round(clockOffsetMs),
    terminal_env: rec.terminalEnv?.() ?? Object.fromEntries(TERMINAL_ENV_KEYS.map((k) => [k, seeded.env[k] ?? null])),
    terminal_answers: answerCounts,
    netns: Boolean(opts.netns),
    seed: seedValue,
    ok: !error,
    error: error ?? null,
    exit: exitInfo ?? null,
    titles: titles.map((x) => ({ t: rel(x.t), title: x.title })),
    mock_events: mock.events.map((e) => ({ t: rel(e.t), type: e.type, api: e.api, kind: e.kind, step: e.step, detail: e.detail, ...(e.thread ? { thread: e.thread } : {}) })),
    driver_events: driverEvents.map((e) => ({ t: rel(e.t), type: e.type, detail: e.detail })),
    label_marks: marks.map((m) => ({ t: rel(m.t), state: m.state, settle: m.settle ?? null, why: m.why ?? null })),
    // The agent's own session events (agentTurnEnd scenarios only), as they arrived.
    ...(agentEvents ? { agent_events: agentEvents.events.map((e) => ({ t: rel(e.t), type: e.type, status: e.status ?? null })) } : {}),
  };
  writeFileSync(join(runDir, 'screens.txt'), screens.map((s) => `=== t=${rel(s.t)} ${s.why} | title=${JSON.stringify(s.title)}\n${s.text}\n`).join('\n'));
  writeFileSync(join(runDir, 'meta.json'), JSON.stringify(meta, null, 2));
  if (error) {
    log(`[driver] ${name} FAILED; cast kept in ${runDir}, screens in ${join(runDir, 'screens.txt')}`);
    if (existsSync(partial)) renameSync(partial, join(runDir, `${name}.cast`));
    return { ok: false, error, runDir, castStartWall, meta };
  }
  // Keep run.log, screens.txt and meta.json for pack authors; drop the heavy HOME and project.
  rmSync(join(runDir, 'home'), { recursive: true, force: true });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  renameSync(partial, `${base}.cast`);
  writeFileSync(`${base}.labels.jsonl`, labelsToJsonl(labels));
  writeFileSync(`${base}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  return { ok: true, castPath: `${base}.cast`, labels, runDir, mode: rec.mode, castStartWall, meta };
}
