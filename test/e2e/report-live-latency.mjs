#!/usr/bin/env node
/**
 * Live, how long after an agent writes its OSC 7501 report the session record says so
 * (docs/signals.md, "Latency where the agent reported the change"). A stand-in agent (sh) redraws
 * a spinner frame every 90 ms, as a working agent does, and every 1.5 s writes a report,
 * alternating `state=working` and `state=blocked:kind=permission`, logging the wall time just
 * before it; a key is typed first (see below). `agentwrap run` wraps it in a pty (no --record: output reaches the detector on the
 * relay's schedule); the record is polled every 2 ms for its `state_since`.
 *
 *   node test/e2e/report-live-latency.mjs [--reports N] [--relay js]
 *
 * Needs `npx tsc -p tsconfig.json`. Prints each report's delay to the record and the summary.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';

const CLI = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'dist', 'src', 'cli', 'main.js');
const args = process.argv.slice(2);
const reports = Number(args.includes('--reports') ? args[args.indexOf('--reports') + 1] : '12');
const relay = args.includes('--relay') ? args[args.indexOf('--relay') + 1] : undefined;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(join(tmpdir(), 'agentwrap-report-latency-'));
const log = join(dir, 'sent');
const agent = join(dir, 'agent.sh');
writeFileSync(
  agent,
  `sleep 3; i=0; n=0
while [ $n -lt ${reports} ]; do
  i=$((i+1)); printf '\\r frame %d ' $i; sleep 0.09
  if [ $((i % 17)) -eq 0 ]; then
    n=$((n+1))
    if [ $((n % 2)) -eq 1 ]; then s='working'; else s='blocked:kind=permission'; fi
    date +%s%3N >> ${log}
    printf '\\033]7501;state=%s\\007' "$s"
  fi
done
sleep 1
`,
);
const env = { ...process.env, AGENT_STATUS_DIR: join(dir, 'state'), ...(relay === 'js' ? { AGENTWRAP_RELAY: 'js' } : {}) };
delete env.TMUX;
delete env.TMUX_PANE;
const child = pty.spawn(process.execPath, [CLI, 'run', '--no-hooks', '--', 'sh', agent], { cols: 80, rows: 24, env, cwd: dir });
child.onData(() => {});
// A key typed before the reports: working the operator did not ask for (before any input) is
// held 100 ms by debounce (docs/detector.md), which is not what this measures.
setTimeout(() => child.write('x'), 2000);
let ended = false;
child.onExit(() => {
  ended = true;
});

const changes = [];
let last;
while (!ended) {
  const sessions = join(dir, 'state', 'sessions');
  if (existsSync(sessions)) {
    for (const file of readdirSync(sessions).filter((n) => n.endsWith('.json'))) {
      try {
        const record = JSON.parse(readFileSync(join(sessions, file), 'utf8'));
        const key = `${record.state}@${record.state_since}`;
        if (key !== last) {
          last = key;
          changes.push({ state: record.state, since: record.state_since, seenAt: Date.now() });
        }
      } catch {
        // mid-rename
      }
    }
  }
  await sleep(2);
}
const sent = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(Number) : [];
const delays = [];
sent.forEach((t, n) => {
  const state = n % 2 === 0 ? 'working' : 'blocked';
  const change = changes.find((c) => c.state === state && c.since >= t - 5);
  const ms = change === undefined ? null : Math.round(change.since - t);
  delays.push(ms);
  console.log(`report ${n + 1} (${state}): record state_since ${ms === null ? 'never' : `${ms} ms`} after it was written, file seen ${change === undefined ? '-' : change.seenAt - t} ms after`);
});
const sorted = delays.filter((d) => d !== null).sort((a, b) => a - b);
console.log(JSON.stringify({ relay: relay ?? 'native', reports: sent.length, published: sorted.length, median_ms: sorted[Math.floor((sorted.length - 1) / 2)] ?? null, max_ms: sorted.at(-1) ?? null }));
rmSync(dir, { recursive: true, force: true });
