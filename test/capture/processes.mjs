// The processes of a capture run: the agentwrap snapshot it records through, the recorded
// session's PTY (through agentwrap or direct), the tmux server of a habitat, and the run
// directory's processes (CPU quiet, restarts, leftovers killed at the end). driver.mjs drives
// the scenario; this starts and stops what it drives.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, readdirSync, readlinkSync, rmSync, cpSync, symlinkSync, statSync, utimesSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nowMs } from './mock.mjs';
import { TemporaryCastWriter } from './cast-writer.mjs';
import { cacheRoot } from './install.mjs';

const require = createRequire(import.meta.url);
const pty = require('node-pty');

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AGENTWRAP_MAIN = join(REPO, 'dist', 'src', 'cli', 'main.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Copies the built agentwrap (dist/src and its bundle, packs, package.json, the `agentwrap` command's shell front, and the native relay addon
 * build/Release/agentwrap_relay.node when built; node_modules symlinked) into the cache, so a
 * capture run is not broken half-way by someone rebuilding dist/ in the tree. With the addon it
 * runs on the relay thread as an installed agentwrap does; without it, on the event-loop relay
 * (and without the addon's exit hook). Returns the snapshot's main.js and which relay it runs
 * (`relay`, written into each recording's meta).
 */
export function snapshotAgentwrap() {
  mkdirSync(cacheRoot(), { recursive: true });
  const dir = mkdtempSync(join(cacheRoot(), 'agentwrap-snapshot-'));
  cpSync(join(REPO, 'dist', 'src'), join(dir, 'dist', 'src'), { recursive: true });
  // The bundle the shell front starts when it is as new as the tree (test/tools/bundle.mjs):
  // copied after the tree, and stamped now, as an install's script stamps it.
  const bundle = join(REPO, 'dist', 'bundle');
  if (existsSync(join(bundle, 'main.cjs')) && statSync(join(bundle, 'main.cjs')).mtimeMs >= statSync(join(REPO, 'dist', 'src', 'cli', 'main.js')).mtimeMs) {
    cpSync(bundle, join(dir, 'dist', 'bundle'), { recursive: true });
    const now = new Date();
    utimesSync(join(dir, 'dist', 'bundle', 'main.cjs'), now, now);
  }
  if (existsSync(join(REPO, 'packs'))) cpSync(join(REPO, 'packs'), join(dir, 'packs'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'src', 'cli', 'bin'), { recursive: true });
  cpSync(join(REPO, 'src', 'cli', 'bin', 'agentwrap'), frontOf(join(dir, 'dist', 'src', 'cli', 'main.js')));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  const addon = join(REPO, 'build', 'Release', 'agentwrap_relay.node');
  let relay = 'event loop (build/Release/agentwrap_relay.node not built)';
  if (existsSync(addon)) {
    mkdirSync(join(dir, 'build', 'Release'), { recursive: true });
    cpSync(addon, join(dir, 'build', 'Release', 'agentwrap_relay.node'));
    relay = 'native';
  }
  return { dir, main: join(dir, 'dist', 'src', 'cli', 'main.js'), relay };
}

/**
 * The `agentwrap` command a user runs (the shell front, src/cli/bin/agentwrap) of a snapshot's
 * main.js: the e2e starts agentwrap through it, as an installed agentwrap is started.
 */
export function frontOf(main) {
  const suffix = join('dist', 'src', 'cli', 'main.js');
  if (!main.endsWith(suffix)) throw new Error(`frontOf: ${main} is not a snapshot's dist/src/cli/main.js`);
  return join(main.slice(0, -suffix.length), 'src', 'cli', 'bin', 'agentwrap');
}

/**
 * THE recorder switch. 'agentwrap' records through `node dist/src/cli/main.js --record FILE
 * <agent> args…` (the agent found on PATH); 'direct' runs the CLI itself and writes the cast
 * with the temporary writer. Returns { proc, mode, onData(wall, data), onResize(wall, c, r), close() }.
 */
export function spawnRecorded({ mode, agentwrapMain = AGENTWRAP_MAIN, agentName, agentBin, args, env, cwd, cols, rows, castPath, startWall }) {
  const ptyEnv = { ...env, PATH: `${dirname(agentBin)}:${env.PATH}` };
  // node-pty sets TERM from `name`: the personality's TERM must win.
  const name = ptyEnv.TERM ?? 'xterm-256color';
  if (mode === 'agentwrap') {
    // --record-input: the driver types only scripted prompts and keys, and replay needs the
    // keystrokes to mark a session seen exactly as the live loop does.
    const proc = pty.spawn(process.execPath, [agentwrapMain, '--record', castPath, '--record-input', agentName, ...args], { name, cols, rows, cwd, env: ptyEnv });
    return { proc, mode, onData() {}, onResize() {}, close() {} };
  }
  const proc = pty.spawn(agentBin, args, { name, cols, rows, cwd, env: ptyEnv });
  const writer = new TemporaryCastWriter(castPath, { cols, rows, startWall, env });
  return {
    proc,
    mode: 'direct-temporary',
    onData(wall, data) { writer.event(wall, 'o', data); },
    onResize(wall, c, r) { writer.event(wall, 'r', `${c}x${r}`); },
    close() { writer.close(); },
  };
}

/** Is `agentwrap --record` usable? Runs `agentwrap run --record X -- echo` in a PTY. */
export async function agentwrapRecordWorks(main = AGENTWRAP_MAIN) {
  if (!existsSync(main)) return { ok: false, why: `${main} missing (npm run build)` };
  const dir = mkdtempSync(join(cacheRoot(), 'probe-'));
  const cast = join(dir, 'probe.cast');
  const p = pty.spawn(process.execPath, [main, 'run', '--record', cast, '--', '/bin/echo', 'capture-probe'], { name: 'xterm-256color', cols: 80, rows: 24, cwd: dir, env: { ...process.env, HOME: dir } });
  let out = '';
  p.onData((d) => { out += d; });
  const code = await Promise.race([new Promise((r) => p.onExit((e) => r(e.exitCode))), sleep(15_000).then(() => 'timeout')]);
  if (code === 'timeout') p.kill();
  const text = existsSync(cast) ? readFileSync(cast, 'utf8') : '';
  rmSync(dir, { recursive: true, force: true });
  const ok = code === 0 && text.startsWith('{') && text.includes('capture-probe');
  return { ok, why: ok ? 'ok' : `exit=${code} cast=${text ? 'present' : 'absent'} out=${JSON.stringify(out.slice(0, 200))}` };
}

/** Kills processes left behind by a run (e.g. Codex's app-server daemon), by pid. */
export function killLeftovers(runDir, log) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd = '';
    let cwd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue; // the process exited while we looked, or is not ours to read
    }
    if (cmd.includes(runDir) || cwd.startsWith(runDir)) {
      log(`[driver] killing leftover pid ${pid}: ${cmd.replace(/\0/g, ' ').slice(0, 120)}`);
      try { process.kill(Number(pid), 'SIGKILL'); } catch (err) { log(`[driver] kill ${pid}: ${err}`); }
    }
  }
}

/** Pids of processes working in `runDir` (cwd or command line) that started after `wallMs`. */
export function processesStartedAfter(runDir, wallMs) {
  const btimeS = Number(/^btime (\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0);
  const CLK_TCK = 100; // Linux user-visible jiffies; /proc/<pid>/stat field 22 is in these units
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (!cwd.startsWith(runDir)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const startWall = btimeS * 1000 + (Number(fields[19]) * 1000) / CLK_TCK;
      if (startWall >= wallMs) found.push(Number(pid));
    } catch {
      continue; // exited while we looked
    }
  }
  return found;
}

/**
 * CPU time (clock ticks) used so far by the processes working in `runDir` (the CLI and its
 * helpers). Used only to tell when the CLI has finished booting, never for labels of content.
 */
export function runDirCpuTicks(runDir) {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readlinkSync(`/proc/${pid}/cwd`).startsWith(runDir)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime + stime
    } catch {
      continue; // exited while we looked, or not ours to read
    }
  }
  return ticks;
}

/**
 * Waits until the CLI's processes have used at most `maxTicks` clock ticks over a window of
 * `windowMs` (it has finished booting), at most `capMs`. Returns { at, waitedMs, capped }.
 */
export async function waitCpuQuiet(runDir, { windowMs = 600, maxTicks = 3, capMs = 25_000, isExited = () => false, log = () => {} } = {}) {
  const t0 = nowMs();
  const samples = [{ t: t0, ticks: runDirCpuTicks(runDir) }];
  for (;;) {
    await sleep(100);
    const now = nowMs();
    const ticks = runDirCpuTicks(runDir);
    samples.push({ t: now, ticks });
    const base = samples.find((s) => s.t >= now - windowMs - 50);
    if (base && now - samples[0].t >= windowMs && ticks - base.ticks <= maxTicks && now - base.t >= windowMs - 100) {
      log(`[driver] cpu quiet after ${(now - t0).toFixed(0)} ms (${ticks - base.ticks} ticks in ${(now - base.t).toFixed(0)} ms)`);
      return { at: now, waitedMs: now - t0, capped: false };
    }
    if (now - t0 >= capMs || isExited()) {
      log(`[driver] cpu never quiet within ${capMs} ms (last window ${ticks - (base?.ticks ?? ticks)} ticks)`);
      return { at: now, waitedMs: now - t0, capped: true };
    }
  }
}

/**
 * Starts a throwaway tmux server (its own socket, no config) for a personality whose TMUX must
 * name a live server; returns the TMUX/TMUX_PANE values for it and a stop().
 */
export function startTmuxServer(label, cols, rows, log) {
  const socket = `agentwrap-lab-${process.pid}-${label}`;
  const tmux = (...args) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
  const started = tmux('new-session', '-d', '-s', 'lab', '-x', String(cols), '-y', String(rows));
  if (started.status !== 0) throw new Error(`tmux new-session: ${started.stderr}`);
  const where = tmux('display-message', '-p', '-t', 'lab', '#{socket_path},#{pid},#{session_id}\t#{pane_id}').stdout.trim();
  const [tmuxVar = '', pane = ''] = where.split('\t');
  log(`[driver] tmux server ${socket}: TMUX=${tmuxVar} TMUX_PANE=${pane}`);
  const socketPath = tmuxVar.split(',')[0];
  // kill-server; the socket file is removed too (seen left behind by a server that was killed).
  const stop = () => { tmux('kill-server'); if (socketPath) rmSync(socketPath, { force: true }); };
  return { env: { TMUX: tmuxVar.replace(',$', ','), TMUX_PANE: pane }, stop };
}
