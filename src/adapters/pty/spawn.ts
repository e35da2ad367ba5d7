/**
 * The agent's pseudo-terminal, over node-pty 1.1.0 (pinned: pty/node-pty-internals.ts reaches
 * into two of its internals, each named and guarded there). spawnPty composes the parts:
 * job-control.ts (the helper that makes Ctrl-Z work), environment.ts, node-pty-internals.ts,
 * read-tail.ts (the lost-tail fixes below) and relay-choice.ts (native relay or event loop). Bytes pass unchanged in both directions: output
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
import { createRequire } from 'node:module';
import { jobCommand, readChildPids, readProcStat, signalQuietly, signalTarget, StopWatch } from './job-control.js';
import { takeInternals, writeToAgent } from './node-pty-internals.js';
import { OutputFanout, ReadTail } from './read-tail.js';
import { startOutputPath } from './relay-choice.js';
import { exitCodeOf, type PtyExit, type PtyProcess, type PtySpawnOptions } from './types.js';

/**
 * node-pty is CommonJS: loaded by require, not `import`, because an ESM import of a CommonJS
 * module first scans its source for named exports (cjs-module-lexer) and wraps it, all before
 * the agent is spawned. Measured on the launch path (2-core machine at load ~3.5, `run
 * --no-hooks`, main.js to the spawn call, medians of 10-12 interleaved runs, twice): 106 → 85 ms
 * and 113 → 97 ms.
 */
const nodePty = createRequire(import.meta.url)('node-pty') as typeof import('node-pty');

export function spawnPty(options: PtySpawnOptions): PtyProcess {
  const [file, args] = jobCommand(options);
  const term = nodePty.spawn(file, args, {
    name: options.env['TERM'] ?? 'xterm',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd ?? process.cwd(),
    env: { ...options.env },
    // 'utf8' only to get IUTF8 on the pty; the decoder is removed (see the file comment).
    encoding: 'utf8',
  });
  const internals = takeInternals(term);
  const { socket, masterFd } = internals;
  const output = new OutputFanout();
  const tail = new ReadTail(socket, masterFd, output);
  const inputListeners = new Set<(chunk: Buffer) => void>();
  const path = startOutputPath({ term, socket, masterFd, passthrough: options.passthrough, output, inputListeners, tail });
  tail.finishReading = () => path.finishReading();

  const exited = new Promise<PtyExit>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      const realSignal = signal !== undefined && signal > 0 ? signal : undefined;
      resolve({ code: exitCodeOf(exitCode, realSignal), signal: realSignal });
    });
  });
  const pid = term.pid;
  const stops = new StopWatch(pid);

  return {
    pid,
    ptsName: (term as unknown as { ptsName?: string }).ptsName ?? '',
    onData(listener) {
      output.listeners.add(listener);
      return () => output.listeners.delete(listener);
    },
    passthrough: path.passthrough,
    passthroughNote: path.passthroughNote,
    modes: path.modes,
    tapDroppedBytes: () => path.tapDroppedBytes(),
    onInput(listener) {
      inputListeners.add(listener);
      return () => inputListeners.delete(listener);
    },
    writeTerminal: (data) => path.writeTerminal(data),
    programStatus: () => path.programStatus(),
    onProgramStatus(listener) {
      path.programStatusListeners.add(listener);
      return () => path.programStatusListeners.delete(listener);
    },
    exited,
    write(data) {
      // Once reading ended the master fd is closed, and its number may already name another file.
      if (tail.isDisposed || (tail.isReadEnded && socket.destroyed)) return;
      writeToAgent(term, internals, data);
    },
    resize(cols, rows) {
      if (tail.isDisposed || tail.isReadEnded) return;
      try {
        term.resize(Math.max(1, Math.floor(cols)), Math.max(1, Math.floor(rows)));
      } catch {
        // The pty closed between the check and the ioctl (child just exited): nothing to size.
      }
    },
    kill(signal = 'SIGHUP') {
      signalQuietly(pid, signal);
    },
    signalGroup(signal) {
      signalQuietly(-pid, signal);
    },
    onStopped: (listener) => stops.add(listener),
    signalForeground(signal) {
      const agentPid = (options.jobControl ?? true) ? readChildPids(pid)[0] : undefined;
      const target = signalTarget(pid, readProcStat(pid), agentPid, agentPid === undefined ? undefined : readProcStat(agentPid));
      // Without /proc the child's own session is not seen: no group yet means the child alone.
      if (!signalQuietly(target, signal) && target === -pid) signalQuietly(pid, signal);
    },
    commandPid() {
      if (!(options.jobControl ?? true)) return pid;
      return readChildPids(pid)[0];
    },
    dispose() {
      if (tail.isDisposed) return;
      tail.isDisposed = true;
      stops.dispose();
      tail.clearTimers();
      path.stop();
      // UnixTerminal.destroy (not in the typings) closes the socket, then SIGHUPs the child.
      if (!socket.destroyed) (term as unknown as { destroy(): void }).destroy();
    },
  };
}
