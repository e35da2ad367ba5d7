/**
 * The agent's pseudo-terminal, over node-pty 1.1.0 (pinned: this file reaches into two of its
 * internals, each named and guarded below). Bytes pass unchanged in both directions: output
 * arrives as Buffers, never decoded, so a UTF-8 sequence split across reads or invalid bytes
 * reach the user's terminal exactly as the agent wrote them.
 *
 * Three node-pty quirks are contained here:
 * - Lost tail of output (upstream #85, #726), two causes, both measured here (a 2 MB write
 *   with a consumer lagging 30 ms every 50 chunks lost 8-13 KB in most runs before the fix).
 *   (1) libuv ends the read stream early: on POLLHUP after a partial read it reports EOF while
 *   the pty still holds data; we drain the master fd by hand on 'end' (see there). (2) When the child exits, node-pty's onexit handler
 *   waits for the read socket to close, but only for DESTROY_SOCKET_TIMEOUT_MS = 200 ms; then
 *   it calls `_socket.destroy()`, which closes the master fd with whatever the kernel still
 *   buffers (up to ~64 KiB on Linux) unread. That happens whenever the consumer lags 200 ms
 *   behind — a slow outer terminal is enough, since writes to a TTY block the event loop.
 *   Fix: that no-argument destroy() is deferred until the read side really ended (EIO/EOF
 *   after the kernel buffer drained — Linux returns EIO on the master only once no input is
 *   left) or, for a pty some background process keeps open, until it has been quiet
 *   (DRAIN_QUIET_MS, checked after a poll turn) or DRAIN_MAX_MS passed. node-pty emits exit
 *   from the socket's close, so `exited` resolves only after the last data event.
 * - Environment sanitising: node-pty deletes TMUX, TMUX_PANE, STY, WINDOW, WINDOWID, TERMCAP,
 *   COLUMNS and LINES, but only when `env === process.env`; we always pass a copy.
 * - Encoding: `encoding: null` would give Buffers but also leaves IUTF8 off on the pty (the
 *   native fork sets IUTF8 only for 'utf8'), so a cooked-mode program would erase half a
 *   character on backspace. We spawn with 'utf8' and then remove the socket's string decoder
 *   before the first read, which gives both.
 */
import { readFileSync, readSync, realpathSync, statSync, accessSync, writeSync, constants as fsConstants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ReadStream } from 'node:tty';
import { parseStat, type ProcStat } from '../core/process.js';
import { loadNativeRelay, startRelay, type PassthroughRelay, type RelayBatch } from './relay.js';
import type { ModeState } from './terminal.js';
import * as nodePty from 'node-pty';

/** Read size when draining the pty by hand after libuv's early EOF (see the 'end' handler). */
const DRAIN_READ_BYTES = 64 * 1024;

/** After the child exits, the pty counts as drained once nothing arrived for this long. */
export const DRAIN_QUIET_MS = 500;
/**
 * Upper bound on draining after exit. Only a background process that inherited the pty and
 * keeps writing can reach it; the agent's own leftover output is at most the kernel buffer.
 */
export const DRAIN_MAX_MS = 5_000;

/** How the bytes between the user's terminal and the agent are relayed. */
export type Passthrough = 'native' | 'event-loop';

export interface PtyExit {
  /** The exit code the way a shell reports it: the child's status, or 128+N for signal N. */
  readonly code: number;
  /** The signal that killed the child, if one did. */
  readonly signal: number | undefined;
}

export interface PtySpawnOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cols: number;
  readonly rows: number;
  /** The complete environment the child gets (see childEnvironment). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Run the command under the job-control helper (default true): see JOB_CONTROL_SCRIPT. */
  readonly jobControl?: boolean;
  /**
   * Relay the PTY to and from these fds on the native relay thread (adapters/relay.ts), where
   * it is built: output reaches `outFd` and keystrokes from `inFd` reach the agent without the
   * event loop; onData and onInput then see copies afterwards. Without it (or where the addon
   * is missing) output only goes to onData and the caller relays it.
   */
  readonly passthrough?: {
    readonly inFd: number;
    readonly outFd: number;
    readonly lossless: boolean;
    /** How far a lossless onData may fall behind before the relay waits (RELAY_TAP_MAX_BYTES). */
    readonly tapMaxBytes?: number;
    /** The newest output kept for onData while it is not draining (RELAY_TAP_WINDOW_BYTES). */
    readonly tapWindowBytes?: number;
  };
}

/**
 * Why a helper at all: forkpty makes the child the leader of a new session, so its process
 * group is orphaned (its parent, agentwrap, is in another session), and Linux discards
 * SIGTSTP/SIGTTIN/SIGTTOU with default action for orphaned groups. Ctrl-Z would then do
 * nothing at all, where the same agent run from a shell stops. So a POSIX sh with job control
 * (`set -m`) leads the pty session, as a login shell does in a real terminal, and runs the
 * agent as its foreground job. When the job stops, the helper stops itself with SIGSTOP (the
 * one stop signal an orphaned group still obeys); agentwrap sees that through SIGCHLD and
 * suspends too. On SIGCONT the helper queues a SIGWINCH for the job (so it redraws) and puts
 * it back in the foreground. Its exit status is the job's (128+N after signal N).
 * A SIGSTOP from outside (status 147) is not a terminal suspend: the helper stays in the
 * foreground, polls /proc until the agent is continued, and waits on it again.
 * The shell's own job notices go to /dev/null; the agent gets the real stderr back on fd 2.
 * dash (Debian's sh) leaves the environment as it is; a bash-as-sh would bump SHLVL.
 */
export const JOB_CONTROL_SCRIPT = [
  'set -m',
  'exec 3>&2 2>/dev/null',
  '"$@" 2>&3 3>&-',
  'status=$?',
  'while kill -0 %1; do',
  // 147 = 128 + SIGSTOP: not Ctrl-Z but someone pausing the agent itself (kill -STOP). The
  // terminal stays with agentwrap, which keeps watching (a paused agent is reported `stuck`);
  // once something continues the agent, the helper waits on it in the foreground again.
  '  if [ "$status" -eq 147 ]; then',
  // The job's pid: the helper's only child (`jobs -p` would run in a subshell without the job table).
  '    read -r pid rest < "/proc/$$/task/$$/children"',
  // The shell took the terminal back when the job stopped, so once continued the agent runs in
  // the background, and its first read of the terminal stops it again (SIGTTIN): "it ran" is
  // seen from its context-switch counts changing, not only from its state leaving T.
  '    ran=$(grep ctxt "/proc/$pid/status")',
  '    while read -r stat < "/proc/$pid/stat"; do',
  '      state=${stat##*) }',
  '      [ "${state%% *}" = T ] || break',
  '      [ "$(grep ctxt "/proc/$pid/status")" = "$ran" ] || break',
  '      sleep 0.2',
  '    done',
  '  else',
  '    kill -STOP $$',
  '    kill -WINCH %1',
  '  fi',
  '  fg %1 >/dev/null 2>&3 3>&-',
  '  status=$?',
  'done',
  'exit $status',
].join('\n');

/** The shell that runs JOB_CONTROL_SCRIPT; POSIX job control is all it needs. */
export const JOB_CONTROL_SHELL = '/bin/sh';

export interface PtyProcess {
  /** The pty's own child: the job-control helper, or the command itself without one. */
  readonly pid: number;
  /** The command's pid: the helper's child once it forked, or `pid` without a helper. */
  commandPid(): number | undefined;
  /** The slave side, e.g. /dev/pts/3. */
  readonly ptsName: string;
  /**
   * Output as it arrives (with the native relay: after it was written to the terminal, in
   * batches; where the listeners fell behind a flood, a CAN, what was salvaged, and the newest
   * bytes — see adapters/relay.ts). `isFlooding`: taken during a flood, more follows within
   * FLOOD_DRAIN_INTERVAL_MS. `atMs`: when the relay thread read the chunk (performance.now()
   * time), where it handed over several at once; undefined means now.
   * Listeners run synchronously, in subscription order.
   */
  onData(listener: (chunk: Buffer, isFlooding: boolean, atMs: number | undefined) => void): () => void;
  /** Who carries the bytes: the native relay thread (see PtySpawnOptions.passthrough) or the caller's event loop. */
  readonly passthrough: Passthrough;
  /** Why the native relay is not in use, when passthrough was asked for and it is not. */
  readonly passthroughNote: string | undefined;
  /**
   * With the native relay, the terminal modes the agent switched on, tracked on the relay
   * thread over every byte (whatever the taps skipped), as of the last batch delivered.
   */
  readonly modes: ModeState | undefined;
  /** Output bytes the native relay never handed to onData because it fell behind a flood. */
  tapDroppedBytes(): number;
  /** Keystrokes the native relay wrote to the agent, afterwards. Never fires without it. */
  onInput(listener: (chunk: Buffer) => void): () => void;
  /**
   * Writes to the user's terminal between two output chunks, through the native relay. False
   * when it is not running (then the caller writes itself).
   */
  writeTerminal(data: Buffer | string): boolean;
  /** Resolves after the child exited and its last byte of output was delivered to onData. */
  readonly exited: Promise<PtyExit>;
  write(data: Buffer | string): void;
  resize(cols: number, rows: number): void;
  /** A signal to the pty's child (default SIGHUP, as a closing terminal would send). */
  kill(signal?: NodeJS.Signals): void;
  /** A signal to the pty child's process group (it leads its own session on the pty). */
  signalGroup(signal: NodeJS.Signals): void;
  /**
   * A signal to the pty's foreground process group, as the keyboard would send it (Ctrl-C →
   * SIGINT); the child's group where /proc cannot tell the foreground.
   */
  signalForeground(signal: NodeJS.Signals): void;
  /** Fires when the pty's child is stopped (the helper after its job stopped, or SIGSTOP). */
  onStopped(listener: () => void): () => void;
  /** Closes the pty and stops listening. Safe to call twice. */
  dispose(): void;
}

/** Maps node-pty's `{exitCode, signal}` (exitCode is 0 when a signal killed it) to a shell code. */
export function exitCodeOf(exitCode: number, signal: number | undefined): number {
  return signal !== undefined && signal > 0 ? 128 + signal : exitCode;
}

/**
 * Variables besides AGENTWRAP_* that agentwrap may set for one run: the per-launch reporter
 * hooks (app/hooks.ts) guard OpenCode's event-stream server with a password made for the run,
 * and OpenCode reads it only from OPENCODE_SERVER_PASSWORD (never set when the user has one).
 */
export const HOOK_ENV_KEYS: readonly string[] = ['OPENCODE_SERVER_PASSWORD'];

/**
 * The environment of the agent: the user's, unchanged, plus the caller's AGENTWRAP_* variables
 * (and the reporter hooks' HOOK_ENV_KEYS). Anything else in `extra` is a bug in the caller, so
 * it throws rather than leak a surprise.
 */
export function childEnvironment(
  userEnv: NodeJS.ProcessEnv,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(userEnv)) {
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (!key.startsWith('AGENTWRAP_') && !HOOK_ENV_KEYS.includes(key)) throw new Error(`childEnvironment: ${key} is not an AGENTWRAP_* variable`);
    env[key] = value;
  }
  return env;
}

/**
 * The directory to start the child in. node-pty sets PWD to the cwd it is given; passing the
 * user's logical $PWD (when it is the same directory) keeps a symlinked PWD as the user had it.
 */
export function childCwd(userEnv: NodeJS.ProcessEnv, physicalCwd: string): string {
  const logical = userEnv['PWD'];
  if (logical === undefined || logical === '') return physicalCwd;
  try {
    return realpathSync(logical) === realpathSync(physicalCwd) ? logical : physicalCwd;
  } catch {
    // $PWD names a directory that no longer resolves: the physical cwd is the truth.
    return physicalCwd;
  }
}

export type ResolvedExecutable =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: 'not-found' | 'not-executable'; readonly path: string };

/** Finds `name` the way a shell does: a name with a slash is a path, otherwise search PATH. */
export function resolveExecutable(name: string, env: NodeJS.ProcessEnv, cwd: string): ResolvedExecutable {
  const candidates = name.includes('/')
    ? [name.startsWith('/') ? name : join(cwd, name)]
    : (env['PATH'] ?? '').split(delimiter).map((dir) => join(dir === '' ? '.' : dir.startsWith('/') ? dir : join(cwd, dir), name));
  let sawNonExecutable: string | undefined;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
    } catch {
      // Absent in this PATH entry: try the next one, as execvp does.
      continue;
    }
    try {
      accessSync(candidate, fsConstants.X_OK);
      return { ok: true, path: candidate };
    } catch {
      // Present but not executable: a later PATH entry may still have a runnable one.
      sawNonExecutable ??= candidate;
    }
  }
  return sawNonExecutable === undefined
    ? { ok: false, reason: 'not-found', path: name }
    : { ok: false, reason: 'not-executable', path: sawNonExecutable };
}

/** /proc/<pid>/stat, or undefined where /proc is missing (not Linux) or the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // No /proc (macOS) or the process already went away: absent, not "running".
    return undefined;
  }
}

/** Children of `pid` (Linux /proc/<pid>/task/<pid>/children); empty where unavailable. */
export function readChildPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((word) => word !== '')
      .map(Number);
  } catch {
    // No /proc, or the process is gone: no children known.
    return [];
  }
}

/** The node-pty 1.1.0 internals we rely on, checked at spawn time. */
interface NodePtyInternals {
  readonly _socket?: unknown;
}

interface ReadableInternals {
  _readableState?: { decoder: unknown; encoding: unknown };
}

interface SocketReadInternals {
  _read: (size: number) => void;
  _handle?: { reading?: boolean; readStop?: () => number } | null;
}

/** Stops a net.Socket from ever reading again, without closing it (see the relay in spawnPty). */
function stopSocketReads(socket: ReadStream): void {
  socket.pause();
  const internals = socket as unknown as SocketReadInternals;
  internals._read = () => undefined;
  const handle = internals._handle;
  if (handle?.readStop !== undefined) {
    handle.reading = false;
    handle.readStop();
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: the target already exited; a signal to nobody is not an error here.
  }
}

export function spawnPty(options: PtySpawnOptions): PtyProcess {
  const [file, args] =
    options.jobControl ?? true
      ? [JOB_CONTROL_SHELL, ['-c', JOB_CONTROL_SCRIPT, 'agentwrap-job', options.file, ...options.args]]
      : [options.file, [...options.args]];
  const term = nodePty.spawn(file, args, {
    name: options.env['TERM'] ?? 'xterm',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd ?? process.cwd(),
    env: { ...options.env },
    // 'utf8' only to get IUTF8 on the pty; the decoder is removed below (see file comment).
    encoding: 'utf8',
  });
  const socket = (term as unknown as NodePtyInternals)._socket;
  if (!(socket instanceof ReadStream)) {
    term.kill('SIGKILL');
    throw new Error('node-pty internals changed: UnixTerminal._socket is not a tty.ReadStream (expected node-pty 1.1.0)');
  }
  const readable = (socket as unknown as ReadableInternals)._readableState;
  if (readable !== undefined) {
    readable.decoder = null;
    readable.encoding = null;
  }

  const dataListeners = new Set<(chunk: Buffer, isFlooding: boolean, atMs: number | undefined) => void>();
  const stopListeners = new Set<() => void>();
  let dataCount = 0;
  let lastDataAtMs = performance.now();
  let isReadEnded = false;
  let isDisposed = false;
  let drainStartedAtMs: number | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let drainImmediate: NodeJS.Immediate | undefined;

  const masterFd = (term as unknown as { fd?: unknown }).fd;
  // node-pty 1.1.0's pending writes (UnixTerminal._writeStream._writeQueue); a direct write is
  // only safe while it is empty. Absent in another version: every write goes through node-pty.
  const queue = (term as unknown as { _writeStream?: { _writeQueue?: unknown } })._writeStream?._writeQueue;
  const directWriteQueue = Array.isArray(queue) ? (queue as readonly unknown[]) : undefined;
  const dispatch = (chunk: Buffer, isFlooding = false, atMs?: number): void => {
    for (const listener of dataListeners) listener(chunk, isFlooding, atMs);
    dataCount += 1;
    lastDataAtMs = performance.now();
  };
  const drainSync = (): void => {
    if (typeof masterFd !== 'number') return;
    const buffer = Buffer.allocUnsafe(DRAIN_READ_BYTES);
    for (;;) {
      let count: number;
      try {
        count = readSync(masterFd, buffer, 0, buffer.length, null);
      } catch {
        // EIO: nothing left and the slave is closed (the normal end). EAGAIN: nothing left
        // right now; after POLLHUP that only happens if someone reopened the slave. Either
        // way everything written before the hangup has been read.
        return;
      }
      if (count <= 0) return;
      dispatch(Buffer.from(buffer.subarray(0, count)));
    }
  };

  const originalDestroy = socket.destroy.bind(socket);
  const destroyNow = (): void => {
    if (drainTimer !== undefined) clearTimeout(drainTimer);
    if (drainImmediate !== undefined) clearImmediate(drainImmediate);
    drainTimer = undefined;
    drainImmediate = undefined;
    originalDestroy();
  };
  // A drain check runs in a timer, then looks again after one poll turn (setImmediate runs
  // after the poll phase, which reads anything readable): a busy event loop cannot fake quiet.
  const checkDrained = (): void => {
    drainTimer = undefined;
    if (isReadEnded || socket.destroyed) return;
    if (drainStartedAtMs !== undefined && performance.now() - drainStartedAtMs >= DRAIN_MAX_MS) {
      finishReading();
      return;
    }
    const countBefore = dataCount;
    drainImmediate = setImmediate(() => {
      drainImmediate = undefined;
      if (isReadEnded || socket.destroyed) return;
      if (dataCount === countBefore && performance.now() - lastDataAtMs >= DRAIN_QUIET_MS) finishReading();
      else drainTimer = setTimeout(checkDrained, DRAIN_QUIET_MS);
    });
  };
  socket.destroy = (error?: Error): ReadStream => {
    // With an error (EIO at the end of output, or any read failure) or once the read side has
    // ended, destroying loses nothing. Without one it is node-pty's 200 ms exit timer: defer.
    if (error !== undefined || isReadEnded || isDisposed) return originalDestroy(error);
    if (drainStartedAtMs === undefined) {
      drainStartedAtMs = performance.now();
      drainTimer = setTimeout(checkDrained, DRAIN_QUIET_MS);
    }
    return socket;
  };
  // libuv reports EOF early on a pty: when poll says POLLHUP (the slave side closed) and the
  // last read was partial, uv__stream_io assumes the rest is empty. A pty hands its buffer
  // out in pieces, so up to ~64 KiB may still be there. 'end' runs before autoDestroy closes
  // the fd, so read the remainder here, synchronously, until the kernel says EIO (drained).
  socket.once('end', () => {
    drainSync();
    isReadEnded = true;
  });
  socket.once('close', () => {
    isReadEnded = true;
    if (drainTimer !== undefined) clearTimeout(drainTimer);
    if (drainImmediate !== undefined) clearImmediate(drainImmediate);
  });

  const inputListeners = new Set<(chunk: Buffer) => void>();
  // One batch may hold several chunks the thread read at different times: each goes out alone,
  // stamped with its own arrival time.
  const dispatchChunks = (batch: RelayBatch, output: Buffer, isFlooding: boolean): void => {
    const nowMs = performance.now();
    const count = batch.chunkOffsets.length;
    if (count === 0) dispatch(output, isFlooding);
    for (let k = 0; k < count; k++) {
      const start = batch.chunkOffsets[k] ?? 0;
      const end = k + 1 < count ? (batch.chunkOffsets[k + 1] ?? output.length) : output.length;
      if (end > start) dispatch(output.subarray(start, end), isFlooding, nowMs - (batch.chunkAgesMs[k] ?? 0));
    }
  };
  const relayModes = { revision: 0, reset: '' };
  let tapDroppedBytes = 0;
  const relayLoad = options.passthrough === undefined ? undefined : loadNativeRelay();
  let relay: PassthroughRelay | undefined;
  if (options.passthrough !== undefined && relayLoad?.ok === true && typeof masterFd === 'number') {
    // The relay thread reads the master from now on; node-pty's socket must never read again.
    // Its constructor started reading and its 'data' forwarding resumes the stream on the next
    // tick, so the read is stopped on the handle and the stream's _read made inert. No event
    // loop turn has passed since the spawn, so no byte was read here.
    stopSocketReads(socket);
    const onBatch = (batch: RelayBatch, isFlooding: boolean): void => {
      relayModes.revision = batch.modesRevision;
      tapDroppedBytes += batch.droppedOutput;
      relayModes.reset = batch.modesReset;
      if (batch.output !== undefined) dispatchChunks(batch, batch.output, isFlooding);
      if (batch.input !== undefined) for (const listener of inputListeners) listener(batch.input);
      if (batch.stopped) {
        isReadEnded = true;
        relay = undefined;
        destroyNow();
      }
    };
    relay = startRelay(relayLoad.module, { ...options.passthrough, masterFd, onBatch });
  } else {
    term.onData((data: string | Buffer) => {
      // After the decoder removal data is a Buffer; if a future Node ignored that, re-encoding a
      // string is the best left (lossy only for invalid UTF-8), and the tests would catch it.
      dispatch(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    });
  }
  const passthrough: Passthrough = relay === undefined ? 'event-loop' : 'native';
  const passthroughNote =
    options.passthrough === undefined || relay !== undefined
      ? undefined
      : relayLoad?.ok === false
        ? relayLoad.reason
        : 'node-pty gave no master fd';
  // Ends reading: with the relay, ask its thread to finish (its last batch destroys the socket).
  const finishReading = (): void => {
    if (relay !== undefined) relay.stop();
    else destroyNow();
  };

  const exited = new Promise<PtyExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      const realSignal = signal !== undefined && signal > 0 ? signal : undefined;
      resolve({ code: exitCodeOf(exitCode, realSignal), signal: realSignal });
    });
  });

  const pid = term.pid;
  const resize = (cols: number, rows: number): void => {
    if (isDisposed || isReadEnded) return;
    try {
      term.resize(Math.max(1, Math.floor(cols)), Math.max(1, Math.floor(rows)));
    } catch {
      // The pty closed between the check and the ioctl (child just exited): nothing to size.
    }
  };
  const onSigchld = (): void => {
    const stat = readProcStat(pid);
    if (stat?.state === 'T') for (const listener of stopListeners) listener();
  };

  return {
    pid,
    ptsName: (term as unknown as { ptsName?: string }).ptsName ?? '',
    onData(listener) {
      dataListeners.add(listener);
      return () => dataListeners.delete(listener);
    },
    passthrough,
    passthroughNote,
    modes:
      passthrough === 'native'
        ? {
            get revision() {
              return relayModes.revision;
            },
            resetSequence: () => relayModes.reset,
          }
        : undefined,
    tapDroppedBytes: () => tapDroppedBytes,
    onInput(listener) {
      inputListeners.add(listener);
      return () => inputListeners.delete(listener);
    },
    writeTerminal(data) {
      return relay?.writeOut(data) ?? false;
    },
    exited,
    write(data) {
      // Once reading ended the master fd is closed, and its number may already name another file.
      if (isDisposed || (isReadEnded && socket.destroyed)) return;
      // Keystrokes: node-pty writes with fs.write, a hop through libuv's thread pool and back
      // for every key (measured ~+100 µs of round trip on a loaded 2-core machine). When its
      // queue is empty, write to the (non-blocking) master directly; whatever the kernel does
      // not take now (EAGAIN, a short write) goes to node-pty's queue, which keeps the order.
      if (directWriteQueue !== undefined && directWriteQueue.length === 0 && typeof masterFd === 'number') {
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        let written = 0;
        try {
          written = writeSync(masterFd, bytes);
        } catch {
          // EAGAIN (the agent is not reading) or EIO (it is gone): node-pty's queue retries or
          // reports it, as it would have without this shortcut.
          written = 0;
        }
        if (written < bytes.length) term.write(written === 0 ? bytes : bytes.subarray(written));
        return;
      }
      term.write(data);
    },
    resize,
    kill(signal = 'SIGHUP') {
      signalQuietly(pid, signal);
    },
    signalGroup(signal) {
      signalQuietly(-pid, signal);
    },
    onStopped(listener) {
      if (stopListeners.size === 0) process.on('SIGCHLD', onSigchld);
      stopListeners.add(listener);
      return () => {
        stopListeners.delete(listener);
        if (stopListeners.size === 0) process.removeListener('SIGCHLD', onSigchld);
      };
    },
    signalForeground(signal) {
      const foreground = readProcStat(pid)?.tpgid;
      signalQuietly(foreground !== undefined && foreground > 0 ? -foreground : -pid, signal);
    },
    commandPid() {
      if (!(options.jobControl ?? true)) return pid;
      return readChildPids(pid)[0];
    },
    dispose() {
      if (isDisposed) return;
      isDisposed = true;
      process.removeListener('SIGCHLD', onSigchld);
      stopListeners.clear();
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      if (drainImmediate !== undefined) clearImmediate(drainImmediate);
      relay?.stop();
      // UnixTerminal.destroy (not in the typings) closes the socket, then SIGHUPs the child.
      if (!socket.destroyed) (term as unknown as { destroy(): void }).destroy();
    },
  };
}
