// OpenCode start-up proof (issue 14, item 3): time to OpenCode's ready prompt in a real tmux
// pane for bare `opencode`, `agentwrap --no-hooks opencode` and `agentwrap opencode` (hooks on),
// with a fresh HOME per run, then what each run left in that HOME's ~/.config.
//
//   node test/capture/opencode-startup.mjs --net none   # inside `unshare -n` (loopback only)
//   node test/capture/opencode-startup.mjs --net host   # host namespace: the npm registry reachable
//   options: --runs N (3) --variants bare,no-hooks,hooks --hold-ms MS (15000: how long each run
//            stays up after its ready prompt, so background installs get their chance)
//            --turn (one extra hooks-on run: prompt → tool approval → done, then `status explain`)
//            --json FILE (write every measurement)
//            --colorterm truecolor (the pane gets COLORTERM, as in a tmux server started from a
//            truecolor terminal; default: none, as in one started over ssh)
//
// Wrap a measured batch in `flock /tmp/agentwrap-heavy.lock …` (the machine is shared). The
// pinned OpenCode comes from test/capture/install.mjs; the model is the capture lab's mock on
// 127.0.0.1 (never any other address); each run's HOME is seeded by seed.mjs and then stripped
// of the lab's pre-installed config template, so ~/.config/opencode holds only opencode.json,
// as on a user's machine that never ran a plugin. Ready = the pane shows OpenCode's input box
// (its `╹▀▀▀` edge) with the `ctrl+p commands` hint, polled every 50 ms through capture-pane.
// Wrapped runs also poll `agentwrap status --json` (their own AGENT_STATUS_DIR) for `idle`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS } from './agents.mjs';
import { snapshotAgentwrap } from './driver.mjs';
import { ensureInstalled } from './install.mjs';
import { startMock } from './mock.mjs';
import { seed } from './seed.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
// The built agentwrap, copied for the batch (driver.mjs): a rebuild meanwhile cannot break it.
let MAIN = join(REPO, 'dist', 'src', 'cli', 'main.js');
const READY_TIMEOUT_MS = 120_000;
const POLL_MS = 50;

function parseArgs(argv) {
  const opts = { net: 'none', runs: 3, variants: ['bare', 'no-hooks', 'hooks'], holdMs: 15_000, turn: false, json: undefined, inside: false, colorterm: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--net') opts.net = next();
    else if (a === '--runs') opts.runs = Number(next());
    else if (a === '--variants') opts.variants = next().split(',');
    else if (a === '--hold-ms') opts.holdMs = Number(next());
    else if (a === '--turn') opts.turn = true;
    else if (a === '--json') opts.json = resolve(next());
    else if (a === '--inside') opts.inside = true;
    else if (a === '--colorterm') opts.colorterm = next();
    else throw new Error(`unknown option ${a} (see the header of ${fileURLToPath(import.meta.url)})`);
  }
  if (!['none', 'host'].includes(opts.net)) throw new Error('--net is none or host');
  return opts;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One tmux server of our own per network mode: a pane runs in its server's namespace. */
function tmuxFor(socket) {
  const run = (...args) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  return {
    run,
    capture: (target) => run('capture-pane', '-p', '-t', target).stdout ?? '',
    alive: (target) => run('has-session', '-t', target).status === 0,
  };
}

const isReady = (screen) => /ctrl\+p commands/.test(screen) && /^\s*╹▀{10,}/m.test(screen);

function statusJson(stateDir) {
  const r = spawnSync(process.execPath, [MAIN, 'status', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_STATUS_DIR: stateDir },
  });
  try {
    return JSON.parse(r.stdout).sessions?.find((s) => s.agentwrap) ?? undefined;
  } catch {
    return undefined;
  }
}

/** What a run left under HOME/.config that a user's own OpenCode would read or find. */
function configLeftovers(home) {
  const dir = join(home, '.config', 'opencode');
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  return { names, polluted: names.some((n) => ['node_modules', 'package.json', 'package-lock.json', 'bun.lock'].includes(n)) };
}

function commandFor(variant, bin) {
  if (variant === 'bare') return [join(bin, 'opencode')];
  return [process.execPath, MAIN, ...(variant === 'no-hooks' ? ['--no-hooks'] : []), 'opencode'];
}

async function waitFor(predicate, timeoutMs, pollMs = POLL_MS) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = predicate();
    if (v) return v;
    await sleep(pollMs);
  }
  return undefined;
}

async function oneRun({ variant, index, opts, tmux, install, mock, root, turn }) {
  const runDir = join(root, `${variant}-${index}${turn ? '-turn' : ''}`);
  mkdirSync(runDir, { recursive: true });
  const seeded = seed('opencode', { runDir, baseUrl: mock.baseUrl, version: install.version });
  // A user's ~/.config/opencode that never held a plugin: no package.json, lock or node_modules.
  for (const name of ['package.json', 'package-lock.json', 'node_modules']) rmSync(join(runDir, 'home', '.config', 'opencode', name), { recursive: true, force: true });
  const stateDir = join(runDir, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  const bin = dirname(install.bin);
  const env = { ...seeded.env, PATH: `${bin}:${seeded.env.PATH}`, TERM: 'tmux-256color', AGENT_STATUS_DIR: stateDir };
  delete env.COLORTERM; // as in a tmux server started without it, unless asked for
  if (opts.colorterm !== undefined) env.COLORTERM = opts.colorterm;
  const target = `${variant}-${index}${turn ? 't' : ''}`;
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const t0 = Date.now();
  const started = tmux.run('new-session', '-d', '-s', target, '-x', '120', '-y', '40', '-c', seeded.cwd, 'env', '-i', ...envArgs, ...commandFor(variant, bin), ...seeded.args);
  if (started.status !== 0) throw new Error(`tmux new-session: ${started.stderr}`);
  let readyScreen = '';
  const readyAt = await waitFor(() => {
    readyScreen = tmux.capture(target);
    return isReady(readyScreen) ? Date.now() : undefined;
  }, READY_TIMEOUT_MS);
  const result = { variant, index, net: opts.net, readyMs: readyAt === undefined ? null : readyAt - t0, idleMs: null, states: [], leftovers: null, explain: null };
  // The first ready screen, with this run's directory names made common, to compare variants.
  // OpenCode's placeholder is a random tip, and the version is right-aligned after the path.
  result.readyScreen = readyScreen.replaceAll(runDir, '<run>').replace(/Ask anything… "[^"]*"/, 'Ask anything… "<tip>"').replace(/ +/g, ' ');
  if (readyAt === undefined) result.screen = tmux.capture(target);
  if (variant !== 'bare' && readyAt !== undefined) {
    // The first settled state the session publishes: idle is right at a ready prompt; `done`
    // there is start-up work counted as a turn (issue 14 item 5, core's), reported as seen.
    const settled = await waitFor(() => {
      const state = statusJson(stateDir)?.state;
      return state === 'idle' || state === 'done' ? { state, at: Date.now() } : undefined;
    }, 20_000, 100);
    result.settledState = settled?.state ?? null;
    result.settledMs = settled === undefined ? null : settled.at - t0;
    const idleAt = settled?.state === 'idle' ? settled.at : undefined;
    result.idleMs = idleAt === undefined ? null : idleAt - t0;
  }
  if (turn && readyAt !== undefined) Object.assign(result, await driveTurn({ tmux, target, mock, stateDir }));
  const holdUntil = (readyAt ?? Date.now()) + opts.holdMs;
  while (Date.now() < holdUntil) await sleep(200);
  tmux.run('kill-session', '-t', target);
  await waitFor(() => !tmux.alive(target), 10_000, 100);
  await sleep(1500); // the wrapped agent's exit and agentwrap's clean-up
  result.leftovers = configLeftovers(join(runDir, 'home'));
  return result;
}

/** prompt → tool approval → done, through the pane as a user types it; then `status explain`. */
async function driveTurn({ tmux, target, mock, stateDir }) {
  mock.setScript([
    { think: 500, text: 'I will create the test file first.', chunkMs: 30, tool: { command: 'touch app.test.js', description: 'Create the test file' } },
    { think: 500, text: 'Created the test file.', chunkMs: 30 },
  ]);
  const states = [];
  const watch = setInterval(() => {
    const s = statusJson(stateDir)?.state;
    if (s !== undefined && states.at(-1) !== s) states.push(s);
  }, 150);
  try {
    await sleep(1000);
    tmux.run('send-keys', '-t', target, '-l', 'create an empty test file for app.js');
    await sleep(400);
    tmux.run('send-keys', '-t', target, 'Enter');
    const asked = await waitFor(() => /Permission required/.test(tmux.capture(target)), 60_000, 100);
    if (!asked) return { states, turnError: 'no permission panel within 60 s', explain: explainText(stateDir) };
    await sleep(1500);
    tmux.run('send-keys', '-t', target, 'Enter'); // "Allow once" is focused
    const ended = await waitFor(() => mock.events.some((e) => e.type === 'stream_end' && e.kind === 'main' && e.tool === false), 60_000, 100);
    if (!ended) return { states, turnError: 'the final answer never streamed', explain: explainText(stateDir) };
    await waitFor(() => ['done', 'idle'].includes(statusJson(stateDir)?.state ?? ''), 15_000, 150);
    await sleep(600);
    return { states, explain: explainText(stateDir) };
  } finally {
    clearInterval(watch);
  }
}

function explainText(stateDir) {
  const key = statusJson(stateDir)?.key;
  if (key === undefined) return '(no live session to explain)';
  const r = spawnSync(process.execPath, [MAIN, 'status', 'explain', key], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_STATUS_DIR: stateDir },
  });
  return `${r.stdout}${r.stderr}`;
}

function printTable(results, net) {
  const rows = [];
  const bare = median(results.filter((r) => r.variant === 'bare' && r.readyMs !== null).map((r) => r.readyMs));
  for (const variant of [...new Set(results.map((r) => r.variant))]) {
    const mine = results.filter((r) => r.variant === variant && !r.turn);
    const ready = mine.map((r) => r.readyMs);
    const idle = mine.map((r) => r.idleMs).filter((x) => x !== null);
    const settled = mine.filter((r) => r.settledState).map((r) => `${r.settledState} ${(r.settledMs / 1000).toFixed(1)}`);
    const med = median(ready.filter((x) => x !== null));
    rows.push(
      `| ${net} | ${variant} | ${ready.map((x) => (x === null ? 'timeout' : (x / 1000).toFixed(1))).join(', ')} | ${(med / 1000).toFixed(2)} | ` +
        `${Number.isNaN(bare) || variant === 'bare' ? '—' : `${((med - bare) / 1000).toFixed(2)}`} | ` +
        `${idle.length ? (median(idle) / 1000).toFixed(2) : '—'} | ${settled.join(', ') || '—'} | ${mine.filter((r) => r.leftovers?.polluted).length}/${mine.length} | ${[...new Set(mine.flatMap((r) => r.leftovers?.names ?? []))].join(' ')} |`,
    );
  }
  console.log('| network | variant | ready s (each run) | median s | vs bare s | idle published s (median) | first idle/done published (state s) | runs leaving node_modules/package.json | ~/.config/opencode afterwards |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.net === 'none' && !opts.inside) {
    // Re-run inside a network namespace of our own: loopback only, so nothing leaves the machine.
    const self = fileURLToPath(import.meta.url);
    const args = process.argv.slice(2).map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec '${process.execPath}' '${self}' ${args} --inside`], { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  if (!existsSync(MAIN)) throw new Error('run `npm run build` first');
  const snapshot = snapshotAgentwrap();
  MAIN = snapshot.main;
  const install = ensureInstalled('opencode', AGENTS.opencode.version);
  const mock = await startMock();
  const root = mkdtempSync(join(tmpdir(), 'opencode-startup-'));
  const tmux = tmuxFor(opts.net === 'none' ? 'opencode-nonet' : 'opencode');
  tmux.run('kill-server');
  tmux.run('start-server', ';', 'set', '-g', 'default-terminal', 'tmux-256color', ';', 'new-session', '-d', '-s', 'keep');
  const results = [];
  try {
    for (let index = 1; index <= opts.runs; index++) {
      for (const variant of opts.variants) {
        const r = await oneRun({ variant, index, opts, tmux, install, mock, root, turn: false });
        console.error(`[${opts.net}] ${variant} #${index}: ready ${r.readyMs ?? 'timeout'} ms, first settled ${r.settledState ?? '—'} ${r.settledMs ?? ''} ms, ~/.config/opencode: ${r.leftovers.names.join(' ')}`);
        if (r.screen !== undefined) console.error(`screen at the timeout:\n${r.screen}`);
        results.push(r);
      }
    }
    if (opts.turn) {
      const r = await oneRun({ variant: 'hooks', index: 1, opts: { ...opts, holdMs: 0 }, tmux, install, mock, root, turn: true });
      results.push({ ...r, turn: true });
      console.error(`[${opts.net}] turn: states ${r.states.join(' → ')}${r.turnError ? ` (${r.turnError})` : ''}`);
      console.error(r.explain);
    }
  } finally {
    tmux.run('kill-server');
    await mock.close();
  }
  printTable(results, opts.net);
  // A first ready frame may or may not show the git branch yet: same as any bare run's counts.
  const bareScreens = new Set(results.filter((r) => r.variant === 'bare' && r.readyMs !== null).map((r) => r.readyScreen));
  for (const variant of opts.variants.filter((v) => v !== 'bare' && bareScreens.size > 0)) {
    const mine = results.filter((r) => r.variant === variant && r.readyMs !== null && !r.turn);
    console.log(`first ready screen of ${variant}: ${mine.filter((r) => bareScreens.has(r.readyScreen)).length}/${mine.length} runs identical to a bare run's (run directory and placeholder tip aside)`);
  }
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ opencode: install.version, results }, null, 2)}\n`);
  rmSync(root, { recursive: true, force: true });
  rmSync(snapshot.dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
