// A command in a pane of its own tmux server, driven the way a person at a terminal would be:
// keys through `send-keys`, the screen through `pipe-pane -O` (the bytes the program wrote, in
// the order tmux read them) and `capture-pane`. The returned `proc` has the node-pty surface the
// capture lab's driver uses (onData, onExit, write, resize, kill), so the lab's scenarios run
// unchanged inside a real tmux.
//
// Each pane gets a fresh server (`tmux -L e2e-<pid>-<n> -f /dev/null`) started with only the
// habitat's environment: tmux sets TERM (default-terminal, tmux-256color in 3.3) and TMUX, and
// COLORTERM is whatever the server was started with, as for a user's own tmux.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nowMs } from '../capture/mock.mjs';
import { frontOf, killLeftovers } from '../capture/driver.mjs';
import { TERMINAL_ENV_KEYS } from '../capture/personalities.mjs';

/** The habitats: how the user's tmux server was started. */
export const HABITATS = {
  // The common case: a server started from a login without COLORTERM (ssh, macOS Terminal).
  'tmux': { COLORTERM: undefined },
  // A server started from a truecolor terminal (most Linux terminal emulators set this).
  'tmux-truecolor': { COLORTERM: 'truecolor' },
};

const POLL_MS = 10;
/** How long the output must be still after the program's exit before the pane counts as ended. */
const EXIT_QUIET_MS = 150;
const EXIT_QUIET_CAP_MS = 2000;
/** A tmux client per check costs a process spawn: the server is checked once a second. */
const SERVER_CHECK_EVERY = 100;
let serverCount = 0;

function tmux(socket, ...args) {
  return execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** POSIX single-quoting for the pane's start script. */
export function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/**
 * Starts `argv` in a new tmux server's only pane, `cols`x`rows`, in `cwd`, with `env` exported
 * on top of the habitat's (TERM and COLORTERM are left to tmux and the habitat). The program
 * starts only when `go()` is called, after the output pipe is attached, so the first byte is
 * seen; `go()` returns the wall time of the keystroke that started it. stderr of `argv` goes to
 * `files.stderr`, its exit status to `files.exit` (with `keepStatusOnHangup`, also when the
 * server is killed under it: see runOutlivingHangup).
 */
export function startPane({ argv, env, cwd, cols, rows, habitat, files, keepStatusOnHangup = false }) {
  const socket = `e2e-${process.pid}-${++serverCount}`;
  const exports = Object.entries(env)
    .filter(([k, v]) => k !== 'TERM' && k !== 'COLORTERM' && v !== undefined)
    .map(([k, v]) => `export ${k}=${shellQuote(v)}`);
  // `read` holds the program until the pipe is attached; -echo keeps the Enter off the screen.
  writeFileSync(files.script, [
    'stty -echo',
    'read _go',
    'stty echo',
    ...exports,
    `cd ${shellQuote(cwd)}`,
    // What the program's terminal environment is, as tmux and the habitat made it (recordings' meta).
    `env | grep -E '^(${TERMINAL_ENV_KEYS.join('|')})=' > ${shellQuote(files.env)}`,
    ...(keepStatusOnHangup ? runOutlivingHangup(argv, files) : [`${argv.map(shellQuote).join(' ')} 2>${shellQuote(files.stderr)}`, `echo $? > ${shellQuote(files.exit)}`]),
    '',
  ].join('\n'));
  chmodSync(files.script, 0o700);
  writeFileSync(files.output, '');
  const serverEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp', LANG: env.LANG ?? 'C.UTF-8' };
  const colorterm = HABITATS[habitat]?.COLORTERM;
  if (colorterm !== undefined) serverEnv.COLORTERM = colorterm;
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'e2e', '-x', String(cols), '-y', String(rows), `sh ${shellQuote(files.script)}`], { env: serverEnv, cwd: '/tmp', stdio: 'ignore' });
  tmux(socket, 'pipe-pane', '-t', 'e2e', '-O', `cat >> ${shellQuote(files.output)}`);

  const dataListeners = [];
  const exitListeners = [];
  const decoder = new TextDecoder('utf-8');
  let offset = 0;
  let exited = false;
  let timer;
  const fd = openSync(files.output, 'r');
  const buffer = Buffer.alloc(256 * 1024);

  const drain = () => {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      if (n <= 0) return;
      offset += n;
      const text = decoder.decode(buffer.subarray(0, n), { stream: true });
      if (text !== '') for (const listener of dataListeners) listener(text);
    }
  };
  const finish = (exitCode) => {
    if (exited) return;
    exited = true;
    clearInterval(timer);
    drain();
    closeSync(fd);
    for (const listener of exitListeners) listener({ exitCode, signal: undefined });
  };
  let polls = 0;
  // tmux hands the program's last bytes to the pipe's `cat` after the program has exited (the
  // exit file can come first): the end waits until the output has been still for a while.
  let exitSeen;
  let lastGrowth = 0;
  const poll = () => {
    const before = offset;
    drain();
    const now = nowMs();
    if (offset !== before) lastGrowth = now;
    if (exitSeen === undefined && existsSync(files.exit)) exitSeen = now;
    if (exitSeen !== undefined) {
      if (now - Math.max(exitSeen, lastGrowth) < EXIT_QUIET_MS && now - exitSeen < EXIT_QUIET_CAP_MS) return;
      const code = Number.parseInt(readFileSync(files.exit, 'utf8'), 10);
      finish(Number.isFinite(code) ? code : -1);
    } else if (++polls % SERVER_CHECK_EVERY === 0 && spawnSync('tmux', ['-L', socket, 'has-session', '-t', 'e2e'], { stdio: 'ignore' }).status !== 0) {
      // The script writes the exit file; a server gone without it was killed under us.
      finish(-1);
    }
  };

  const proc = {
    socket,
    onData: (listener) => { dataListeners.push(listener); },
    onExit: (listener) => { exitListeners.push(listener); },
    /** Bytes as typed: send-keys -H sends them to the pane exactly, escapes included. */
    write: (s) => {
      if (exited) return;
      const hex = [...Buffer.from(s, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
      try { tmux(socket, 'send-keys', '-t', 'e2e', '-H', ...hex); } catch { /* the server went away with the program */ }
    },
    resize: (c, r) => {
      try { tmux(socket, 'resize-window', '-t', 'e2e', '-x', String(c), '-y', String(r)); } catch { /* gone */ }
    },
    /** The pane's whole tree goes with the server (this harness's own socket only). */
    kill: () => {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      finish(-9);
    },
    capture: () => {
      try { return tmux(socket, 'capture-pane', '-p', '-t', 'e2e'); } catch { return ''; }
    },
    close: () => spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' }),
  };
  const go = () => {
    timer = setInterval(poll, POLL_MS);
    const t = nowMs();
    tmux(socket, 'send-keys', '-t', 'e2e', '-H', '0d');
    return t;
  };
  return { proc, go, socket };
}

/**
 * The program run as an interactive shell runs a job when its terminal hangs up: the shell gets
 * the kernel's SIGHUP and passes it on to the job (bash does, for every job), but, unlike bash,
 * waits for the job to end and writes its exit status. The job is started in the background
 * only to be waitable around the signal; it reads the terminal (fd 3: an asynchronous list's
 * own stdin is /dev/null) and, without job control, stays in the terminal's foreground group.
 */
function runOutlivingHangup(argv, files) {
  return [
    "trap 'kill -HUP $child 2>/dev/null' HUP",
    'exec 3<&0',
    `${argv.map(shellQuote).join(' ')} 2>${shellQuote(files.stderr)} <&3 &`,
    'child=$!',
    'while :; do wait $child; status=$?; kill -0 $child 2>/dev/null || break; done',
    `echo $status > ${shellQuote(files.exit)}`,
  ];
}

/** Paths for one pane's files under `dir` with a name prefix. */
export function paneFiles(dir, name) {
  return {
    script: join(dir, `${name}.sh`),
    output: join(dir, `${name}.pane.raw`),
    stderr: join(dir, `${name}.stderr`),
    exit: join(dir, `${name}.exit`),
    env: join(dir, `${name}.env`),
  };
}

/** TERMINAL_ENV_KEYS as the pane's program saw them (null where unset), once its script has run. */
export function paneTerminalEnv(files) {
  const seen = existsSync(files.env) ? readFileSync(files.env, 'utf8').split('\n') : [];
  const value = (key) => seen.find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1) ?? null;
  return Object.fromEntries(TERMINAL_ENV_KEYS.map((key) => [key, value(key)]));
}

/**
 * A `spawn` for the capture lab's runScenario that runs the session in a real tmux pane: the CLI
 * wrapped by `agentwrap` (through its shell front, `--hooks` or `--no-hooks`) recording to
 * the lab's cast, publishing into `stateDir`. `onStart(proc)` gets the pane; the returned
 * session's `terminalEnv()` says what the CLI's environment was.
 */
export function paneSpawner({ habitat, hooks = 'on', stateDir, files, onStart = () => {} }) {
  return ({ agentwrapMain, agentName, agentBin, args, env, cwd, cols, rows, castPath }) => {
    const argv = wrappedArgv(agentwrapMain, hooks === 'on', ['--record', castPath, '--record-input', agentName, ...args]);
    const { proc, go } = startPane({ argv, env: paneEnv(env, agentBin, stateDir), cwd, cols, rows, habitat, files });
    onStart(proc);
    go();
    return { proc, mode: 'agentwrap-tmux', terminalEnv: () => paneTerminalEnv(files), onData() {}, onResize() {}, close() {} };
  };
}

/**
 * `agentwrap` (its shell front, as a user types it) with `--hooks` or `--no-hooks`, then `rest`.
 * `--hooks` is said outright: Gemini CLI's and Qwen Code's hooks are off unless asked for.
 */
const wrappedArgv = (main, hooksOn, rest) => [frontOf(main), hooksOn ? '--hooks' : '--no-hooks', ...rest];

/** A start's command line: the CLI bare (`mode` 'bare'), or wrapped with hooks on or off ('hooks-on', 'hooks-off'). */
export function startArgv(mode, { bin, name, args, main }) {
  return mode === 'bare' ? [bin, ...args] : wrappedArgv(main, mode === 'hooks-on', [name, ...args]);
}

/** The pane's environment: the seeded one, the CLI's folder first on PATH, agentwrap publishing into `stateDir`. */
export function paneEnv(env, agentBin, stateDir) {
  return { ...env, PATH: `${dirname(agentBin)}:${env.PATH}`, AGENT_STATUS_DIR: stateDir };
}

/**
 * Ends a start: the pane's tmux server, the mock, and, after `graceMs`, whatever of the CLI is
 * still working in `runDir`; removes `runDir` and `stateDir`. Returns agentwrap's stderr.
 */
export async function endStart({ proc, mock, runDir, stateDir, files, graceMs }) {
  proc.close();
  await mock.close();
  await new Promise((r) => setTimeout(r, graceMs));
  killLeftovers(runDir, () => {});
  const stderr = existsSync(files.stderr) ? readFileSync(files.stderr, 'utf8') : '';
  rmSync(runDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
  return stderr;
}
