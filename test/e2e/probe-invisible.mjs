#!/usr/bin/env node
/**
 * Is agentwrap's answer to Claude Code's OSC 7501 probe invisible to the person at the terminal?
 * (issue #30; E2E.md's note on the probe; docs/capture.md, "The probe, seen by a user".)
 *
 * Claude Code (the pinned release, from the capture lab's cache) runs against the lab's mock model
 * in a pane of a fresh tmux server (tmux 3.3a does not answer the probe), bare and wrapped by
 * agentwrap (hooks off, and hooks on), which answers the probe, so Claude reports its state. Each
 * round starts every mode once, in a rotated order, each in a fresh HOME (Claude's config dir is
 * $HOME/.claude and $HOME/.claude.json) seeded by the lab, all inside `unshare -n`. Compared:
 *   (a) `tmux capture-pane` of the first ready screen (the first paint, then still for 700 ms) and
 *       of the screen after one turn (`what is in this folder?`, the mock's fixed answer, then
 *       still for 1 s), after the masks below;
 *   (b) time to the first screen (its first 4000 bytes, as `npm run e2e` times it), medians and
 *       the median of each round's own wrapped − bare;
 *   (c) every file under HOME after the CLI exited: paths and contents, normalised (run folder,
 *       UUIDs, times), wrapped against bare in the same round, and bare against the next round's
 *       bare, which is what differs between two runs of the same thing anyway.
 * Masks on screens: the run's folder (same length), durations (`12s`, `1.2s`, `300ms`), the clock
 * (`9:36 PM`) and the verb of the turn's closing line (`✻ Crunched for 2s`: Claude Code picks it at
 * random), which differ between any two runs. Nothing else.
 *
 *   flock /tmp/agentwrap-live.lock node test/e2e/probe-invisible.mjs [--rounds N] [--json FILE]
 *
 * Needs `npx tsc -p tsconfig.json` (it runs dist/) and the capture lab's Claude install.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ensureInstalled } from '../capture/install.mjs';
import { AGENTWRAP_MAIN } from '../capture/driver.mjs';
import { startMock, nowMs } from '../capture/mock.mjs';
import { seed } from '../capture/seed.mjs';
import { AGENTS } from '../capture/agents.mjs';
import { startPane, paneFiles, startArgv, paneEnv, endStart } from './tmux-pane.mjs';

const MODES = ['bare', 'hooks-off', 'hooks-on'];
const SIZE = [120, 40];
const PROMPT = 'what is in this folder?';
const ANSWER = 'This project holds a README, an app.js exporting add(a, b), and a notes file with one todo.';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', '5'));
const jsonOut = option('--json', undefined);

if (process.env.AGENTWRAP_PROBE_NETNS !== '1') {
  const inst = ensureInstalled('claude');
  const env = { ...process.env, AGENTWRAP_PROBE_INST: JSON.stringify(inst), AGENTWRAP_PROBE_NETNS: '1' };
  const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...process.argv.slice(1)], { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}
const inst = JSON.parse(process.env.AGENTWRAP_PROBE_INST ?? '{}');
if (!existsSync(AGENTWRAP_MAIN)) throw new Error(`${AGENTWRAP_MAIN} missing: npx tsc -p tsconfig.json first`);

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 === 1 ? s[(s.length - 1) / 2] : Math.round((s[s.length / 2 - 1] + s[s.length / 2]) / 2);
};

/** Waits until `read()` is unchanged for `stillMs` (and `ok(text)` holds), up to `capMs`; returns the text. */
async function still(read, { stillMs, capMs, ok = () => true }) {
  const started = nowMs();
  let last = read();
  let since = nowMs();
  while (nowMs() - started < capMs) {
    await sleep(50);
    const text = read();
    if (text !== last) {
      last = text;
      since = nowMs();
    } else if (nowMs() - since >= stillMs && ok(text)) return { text, settled: true };
  }
  return { text: last, settled: false };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const maskScreen = (text, runDir) =>
  text
    .split(runDir).join(runDir.replace(/[^/]/g, 'X').slice(0, runDir.length))
    .replace(/\b\d+(\.\d+)?(ms|s)\b/g, (m) => '#'.repeat(m.length))
    // The turn's closing line: a verb drawn at random from Claude Code's list, and the clock.
    .replace(/^(\s*✻ )\S+( for )/gm, '$1<verb>$2')
    .replace(/\b\d{1,2}:\d\d ?(AM|PM)\b/g, '#:## $1');
/** The run's folder (as is, and as Claude Code names its project folder: `/` → `-`), UUIDs, times. */
const normalise = (text, runDir) =>
  text
    .split(runDir).join('<RUN>')
    .split(runDir.replace(/\//g, '-')).join('-<RUN>')
    .replace(UUID, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<time>')
    // Unix ms as a number, so JSON stays JSON and its keys can be compared.
    .replace(/\b1[6-9]\d{11}\b/g, '0');

/** Every file under `home` (but its tmp), path and normalised content, plus the parsed JSON where it is JSON. */
function filesUnder(home, runDir) {
  const out = new Map();
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(home, path);
      if (rel === 'tmp') continue;
      const st = statSync(path, { throwIfNoEntry: false });
      if (st === undefined) continue;
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) {
        const text = normalise(readFileSync(path, 'utf8'), runDir);
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        out.set(normalise(rel, runDir), { hash: createHash('sha256').update(text).digest('hex').slice(0, 12), json, lines: text.split('\n').length });
      }
    }
  };
  walk(home);
  return out;
}

/** Dotted keys whose values differ between two JSON values. */
function jsonDiff(a, b, prefix = '') {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix || '(root)'];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => jsonDiff(a[k], b[k], prefix === '' ? k : `${prefix}.${k}`));
}

/** What differs between two HOMEs: paths in one only, and per common file that differs, its differing JSON keys (or `content`). */
function homeDiff(a, b) {
  const onlyA = [...a.keys()].filter((k) => !b.has(k));
  const onlyB = [...b.keys()].filter((k) => !a.has(k));
  const differ = {};
  for (const [path, fa] of a) {
    const fb = b.get(path);
    if (fb === undefined || fb.hash === fa.hash) continue;
    differ[path] = fa.json !== undefined && fb.json !== undefined ? jsonDiff(fa.json, fb.json) : [`content (${fa.lines} vs ${fb.lines} lines)`];
  }
  return { onlyA, onlyB, differ };
}

async function runOnce(mode, round) {
  const runDir = mkdtempSync(join(tmpdir(), 'probe-inv-'));
  const mock = await startMock({});
  mock.setScript([{ think: 900, text: ANSWER, chunkMs: 50 }]);
  const seeded = seed('claude', { runDir, baseUrl: mock.baseUrl, version: inst.version });
  const stateDir = mkdtempSync('/tmp/probe-inv-state-');
  const files = paneFiles(runDir, 'probe');
  const { proc, go } = startPane({
    argv: startArgv(mode, { bin: inst.bin, name: 'claude', args: AGENTS.claude.args, main: AGENTWRAP_MAIN }),
    env: paneEnv(seeded.env, inst.bin, stateDir),
    cwd: seeded.cwd,
    cols: SIZE[0],
    rows: SIZE[1],
    habitat: 'tmux',
    files,
  });
  let bytes = 0;
  let paintAt;
  let output = '';
  proc.onData((d) => {
    bytes += Buffer.byteLength(d);
    output += d;
    if (bytes >= (AGENTS.claude.readyBytes ?? 200)) paintAt ??= nowMs();
  });
  let exited = false;
  proc.onExit(() => {
    exited = true;
  });
  const load1 = Number(loadavg()[0].toFixed(2));
  const start = go();
  while (paintAt === undefined && nowMs() - start < 40_000) await sleep(10);
  const ready = await still(() => proc.capture(), { stillMs: 700, capMs: 20_000, ok: (t) => t.includes('❯') });
  // Which state agentwrap published for the ready screen, and by what evidence (the probe answered: program-status).
  const record = (() => {
    const dir = join(stateDir, 'sessions');
    if (!existsSync(dir)) return null;
    const file = readdirSync(dir).find((n) => n.endsWith('.json'));
    return file === undefined ? null : JSON.parse(readFileSync(join(dir, file), 'utf8'));
  })();
  proc.write(PROMPT);
  await sleep(400);
  proc.write('\r');
  const turn = await still(() => proc.capture(), { stillMs: 1000, capMs: 30_000, ok: (t) => t.includes('a notes file with one todo') });
  proc.write('\x03');
  await sleep(400);
  proc.write('\x03');
  for (let k = 0; k < 100 && !exited; k++) await sleep(50);
  await sleep(300);
  const home = filesUnder(join(runDir, 'home'), runDir);
  const stderr = await endStart({ proc, mock, runDir, stateDir, files, graceMs: 200 });
  return {
    mode,
    round,
    load1,
    paintMs: paintAt === undefined ? null : Math.round(paintAt - start),
    readyScreen: maskScreen(ready.text, runDir),
    readySettled: ready.settled,
    turnScreen: maskScreen(turn.text, runDir),
    turnSettled: turn.settled,
    winner: record?.winner ?? null,
    reportsReachedTmux: (output.match(/\x1b\]7501;state=/g) ?? []).length,
    probesReachedTmux: (output.match(/\x1b\]7501;\?/g) ?? []).length,
    exited,
    stderr: stderr.slice(0, 300),
    home,
  };
}

const runs = [];
for (let round = 0; round < rounds; round += 1) {
  const order = MODES.map((_, k) => MODES[(k + round) % MODES.length]);
  for (const mode of order) {
    const r = await runOnce(mode, round);
    runs.push(r);
    console.error(`[probe] round ${round} ${mode}: first screen ${r.paintMs} ms, winner ${r.winner}, settled ${r.readySettled}/${r.turnSettled}, exited ${r.exited}`);
  }
}

const of = (mode, round) => runs.find((r) => r.mode === mode && r.round === round);
const result = { date: new Date().toISOString(), claude: inst.version, rounds, size: SIZE.join('x'), modes: {} };
for (const mode of MODES) {
  const own = runs.filter((r) => r.mode === mode);
  const entry = {
    firstScreenMs: median(own.map((r) => r.paintMs)),
    runs: own.map((r) => r.paintMs),
    winners: [...new Set(own.map((r) => r.winner))],
    reportsReachedTmux: own.reduce((n, r) => n + r.reportsReachedTmux, 0),
    probesReachedTmux: own.reduce((n, r) => n + r.probesReachedTmux, 0),
  };
  if (mode !== 'bare') {
    const rs = own.map((r) => r.round);
    entry.pairedDeltaMs = median(rs.map((k) => (of(mode, k)?.paintMs ?? 0) - (of('bare', k)?.paintMs ?? 0)));
    entry.readyScreenSameAsBare = rs.filter((k) => of(mode, k)?.readyScreen === of('bare', k)?.readyScreen).length;
    entry.turnScreenSameAsBare = rs.filter((k) => of(mode, k)?.turnScreen === of('bare', k)?.turnScreen).length;
    const diffs = rs.map((k) => homeDiff(of('bare', k).home, of(mode, k).home));
    entry.home = {
      onlyBare: [...new Set(diffs.flatMap((d) => d.onlyA))],
      onlyWrapped: [...new Set(diffs.flatMap((d) => d.onlyB))],
      differ: Object.fromEntries([...new Set(diffs.flatMap((d) => Object.keys(d.differ)))].map((p) => [p, [...new Set(diffs.flatMap((d) => d.differ[p] ?? []))]])),
    };
    const firstMismatch = rs.find((k) => of(mode, k)?.readyScreen !== of('bare', k)?.readyScreen || of(mode, k)?.turnScreen !== of('bare', k)?.turnScreen);
    if (firstMismatch !== undefined) {
      const a = of('bare', firstMismatch);
      const b = of(mode, firstMismatch);
      const lines = (x, y) => x.split('\n').map((line, i) => [i, line, y.split('\n')[i]]).filter(([, l1, l2]) => l1 !== l2).slice(0, 8);
      entry.firstMismatch = { round: firstMismatch, ready: lines(a.readyScreen, b.readyScreen), turn: lines(a.turnScreen, b.turnScreen) };
    }
  }
  result.modes[mode] = entry;
}
// What two bare runs differ in anyway (round k against round k+1).
const bareDiffs = [];
for (let k = 0; k + 1 < rounds; k += 1) bareDiffs.push(homeDiff(of('bare', k).home, of('bare', k + 1).home));
result.bareVsBare = {
  readyScreenSame: [...Array(Math.max(0, rounds - 1)).keys()].filter((k) => of('bare', k).readyScreen === of('bare', k + 1).readyScreen).length,
  turnScreenSame: [...Array(Math.max(0, rounds - 1)).keys()].filter((k) => of('bare', k).turnScreen === of('bare', k + 1).turnScreen).length,
  home: {
    onlyOne: [...new Set(bareDiffs.flatMap((d) => [...d.onlyA, ...d.onlyB]))],
    differ: Object.fromEntries([...new Set(bareDiffs.flatMap((d) => Object.keys(d.differ)))].map((p) => [p, [...new Set(bareDiffs.flatMap((d) => d.differ[p] ?? []))]])),
  },
};
const loads = runs.map((r) => r.load1);
result.load = { min: Math.min(...loads), max: Math.max(...loads) };
result.crashes = runs.filter((r) => r.stderr.trim() !== '').map((r) => `${r.mode} ${r.round}: ${r.stderr}`);
console.log(JSON.stringify(result, null, 2));
if (jsonOut !== undefined) writeFileSync(jsonOut, JSON.stringify({ ...result, screens: runs.map(({ home, ...r }) => r) }, null, 2) + '\n');
