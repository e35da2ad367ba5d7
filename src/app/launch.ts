/**
 * The transparent launcher: the agent runs in a PTY the size of the user's terminal, every byte
 * passes through unchanged both ways, and the session loop watches through taps.
 *
 * Order is the contract: a chunk of output is written to the user's terminal first, then the
 * taps see it; a keystroke reaches the agent first, then the taps see it. Taps cannot slow or
 * break passthrough: a throwing tap is caught, reported once, and keeps being called.
 *
 * Every way out restores the terminal: the agent's exit (code or signal), a signal to
 * agentwrap (forwarded to the agent, whose exit then ends the session), and a crash inside
 * agentwrap (the process 'exit' hook writes the mode resets and cooks the terminal).
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import {
  childCwd,
  childEnvironment,
  exitCodeOf,
  spawnPty,
  type Passthrough,
  type PtyExit,
  type PtyProcess,
} from '../adapters/pty.js';
import { signalStoppedAgent } from '../adapters/stopped-agent.js';
import { ModeTracker, processTerminal, type ModeState, type OuterTerminal, type TerminalSize } from '../adapters/terminal.js';

/**
 * After forwarding SIGTERM/SIGHUP/SIGINT/SIGQUIT, how long the agent may take to exit before
 * it is killed. Long enough for an agent to save its session, short enough that `kill` on
 * agentwrap still means "stop".
 */
export const SIGNAL_GRACE_MS = 5_000;

/**
 * Output held for taps that attach after the agent started (see heldOutput): the newest this
 * much, unless lossless. A second of a busy TUI; the session loop attaches within ~0.1 s.
 */
export const HELD_OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

/** The most often the terminal guardian is told new mode resets (see the output handler). */
export const GUARDIAN_UPDATE_MIN_MS = 100;

/** Signals to agentwrap that go on to the agent. */
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT'];

/** Takes a forwarded signal once the agent has exited (see the exit path). */
const ignoreWhileEnding = (): void => undefined;

export type LaunchExit = PtyExit;

export interface LaunchOptions {
  /** The executable to run (resolved, e.g. by resolveExecutable). */
  readonly file: string;
  readonly args: readonly string[];
  /** The user's environment; default process.env. Passed on unchanged. */
  readonly env?: NodeJS.ProcessEnv;
  /** AGENTWRAP_* variables added for the agent (and its hooks). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** The user's terminal; default the process's stdin/stdout. */
  readonly terminal?: OuterTerminal;
  /** Where tap failures and other notes go; default stderr once the terminal is restored. */
  readonly warn?: (message: string) => void;
  /** Forward SIGTERM/SIGHUP/SIGINT/SIGQUIT/SIGTSTP to the agent (default true). */
  readonly forwardSignals?: boolean;
  /**
   * The output taps must see every byte (a recording is on): the native relay then waits for
   * them when they fall far behind, instead of letting them skip (see adapters/relay.ts).
   */
  readonly lossless?: boolean;
}

export interface LaunchedSession {
  /**
   * The pty's own child: the job-control helper whose only child is the agent, so its process
   * tree is the agent's tree plus one idle shell.
   */
  readonly pid: number;
  /** The agent's own pid, once the helper forked it (Linux /proc); undefined before or elsewhere. */
  agentPid(): number | undefined;
  /** The PTY's current size. */
  size(): TerminalSize;
  /**
   * Output chunks, after they were written to the user's terminal. `isFlooding`: the native
   * relay handed this over during a flood and more follows within FLOOD_DRAIN_INTERVAL_MS.
   * `atMs`: when it was read (performance.now() time), if earlier than now.
   */
  onOutput(listener: (chunk: Buffer, isFlooding: boolean, atMs: number | undefined) => void): () => void;
  /** Input chunks, after they were written to the agent. */
  onInput(listener: (chunk: Buffer) => void): () => void;
  /** New sizes, after the PTY was resized. */
  onResize(listener: (cols: number, rows: number) => void): () => void;
  /**
   * Resolves once the agent exited, all of its output reached the terminal and the taps,
   * leftover modes were reset and the terminal restored. Never rejects.
   */
  readonly exited: Promise<LaunchExit>;
  /** A signal to the pty's foreground process group (the agent, or the job it runs). */
  kill(signal?: NodeJS.Signals): void;
  /** Writes to the user's terminal between the agent's output chunks (notifications). */
  writeTerminal(data: string): void;
  /** 'native' when the relay thread carries the bytes, else the event loop does. */
  readonly passthrough: Passthrough;
  /** Why the native relay is not in use (absent when it is). */
  readonly passthroughNote: string | undefined;
  /** Output the native relay kept from the taps because they fell behind a flood (salvaged). */
  tapDroppedBytes(): number;
}

type Tap<T extends unknown[]> = Set<(...args: T) => void>;

/**
 * Starts `file args` in a PTY wrapped around the user's terminal. Taps may attach later (the
 * session loop loads while the agent starts): what arrived before the first output or input
 * tap is held and handed to it when it attaches (see HELD_OUTPUT_MAX_BYTES).
 */
export function launchWrapped(options: LaunchOptions): LaunchedSession {
  const terminal = options.terminal ?? processTerminal();
  const userEnv = options.env ?? process.env;
  const pending: string[] = [];
  const warn = options.warn ?? ((message: string) => pending.push(message));
  const warnedTaps = new Set<string>();

  let size = terminal.size();
  // Raw before the agent starts: the relay thread writes its first output straight to the
  // terminal, which must already be raw (a cooked one would turn "\r\n" into "\r\r\n").
  terminal.enterRaw();
  const pty: PtyProcess = spawnPty({
    file: options.file,
    args: options.args,
    cols: size.cols,
    rows: size.rows,
    env: childEnvironment(userEnv, options.extraEnv),
    cwd: childCwd(userEnv, process.cwd()),
    ...(terminal.fds === undefined
      ? {}
      : { passthrough: { inFd: terminal.fds.input, outFd: terminal.fds.output, lossless: options.lossless ?? false } }),
  });
  // With the native relay the bytes already reached their destination when the taps see them.
  const isRelayed = pty.passthrough === 'native';

  const outputTaps: Tap<[Buffer, boolean, number | undefined]> = new Set();
  // What arrived before the first tap attached (the session loop loads while the agent starts):
  // handed to that tap when it does, each chunk with its arrival time. Bounded unless every
  // byte matters (lossless: a recording), then by how fast the loop attaches.
  const heldOutput: Array<{ chunk: Buffer; isFlooding: boolean; atMs: number }> = [];
  const heldInput: Buffer[] = [];
  let heldBytes = 0;
  let isHeldCut = false;
  const holdOutput = (chunk: Buffer, isFlooding: boolean, atMs: number): void => {
    heldOutput.push({ chunk, isFlooding, atMs });
    heldBytes += chunk.length;
    while (!(options.lossless ?? false) && heldBytes > HELD_OUTPUT_MAX_BYTES && heldOutput.length > 1) {
      heldBytes -= heldOutput.shift()?.chunk.length ?? 0;
      isHeldCut = true;
    }
  };
  const inputTaps: Tap<[Buffer]> = new Set();
  const resizeTaps: Tap<[number, number]> = new Set();
  const callTaps = <T extends unknown[]>(taps: Tap<T>, name: string, ...args: T): void => {
    for (const tap of taps) {
      try {
        tap(...args);
      } catch (error) {
        if (!warnedTaps.has(name)) {
          warnedTaps.add(name);
          warn(`a ${name} tap failed (passthrough continues): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  };

  // The native relay tracks modes on its thread over every byte; here only without it.
  let tracker: ModeTracker | undefined;
  const modes: ModeState = pty.modes ?? (tracker = new ModeTracker());
  const disposers: Array<() => void> = [];
  // The terminal guardian (adapters/terminal-guardian.ts) learns the resets when they change:
  // one integer comparison per chunk. Not on every change, though: a TUI using synchronized
  // output (mode 2026) switches a mode on and off in every frame, and telling the guardian
  // (a pipe write and a shell waking up) each time cost ~10% of agentwrap's CPU in a flood.
  // So a new reset goes out at once when none went out in the last GUARDIAN_UPDATE_MIN_MS,
  // else once that interval is over; the guardian's reset may lag the screen by that much.
  let guardedRevision = modes.revision;
  let guardedReset = modes.resetSequence();
  let lastGuardianUpdateMs = Number.NEGATIVE_INFINITY;
  let guardianTimer: NodeJS.Timeout | undefined;
  const updateGuardian = (): void => {
    guardianTimer = undefined;
    const reset = modes.resetSequence();
    if (reset === guardedReset) return;
    guardedReset = reset;
    lastGuardianUpdateMs = performance.now();
    terminal.setCrashReset?.(reset);
  };
  disposers.push(() => {
    if (guardianTimer !== undefined) clearTimeout(guardianTimer);
  });

  disposers.push(
    pty.onData((chunk, isFlooding, atMs) => {
      if (!isRelayed) terminal.write(chunk);
      // The relay thread drops output a hung-up terminal refuses; a look per batch (two
      // isatty calls) turns that into the hangup's ending (onGone above).
      else terminal.isGone?.();
      tracker?.feed(chunk);
      if (modes.revision !== guardedRevision) {
        guardedRevision = modes.revision;
        if (guardianTimer === undefined) {
          const waitMs = lastGuardianUpdateMs + GUARDIAN_UPDATE_MIN_MS - performance.now();
          if (waitMs <= 0) updateGuardian();
          else {
            guardianTimer = setTimeout(updateGuardian, waitMs);
            guardianTimer.unref();
          }
        }
      }
      if (outputTaps.size === 0) holdOutput(chunk, isFlooding, atMs ?? performance.now());
      else callTaps(outputTaps, 'output', chunk, isFlooding, atMs);
    }),
  );
  const toInputTaps = (chunk: Buffer): void => {
    if (inputTaps.size === 0) heldInput.push(chunk);
    else callTaps(inputTaps, 'input', chunk);
  };
  disposers.push(
    isRelayed
      ? pty.onInput(toInputTaps)
      : terminal.onInput((chunk) => {
          pty.write(chunk);
          toInputTaps(chunk);
        }),
  );
  const applySize = (next: TerminalSize): void => {
    if (next.cols === size.cols && next.rows === size.rows) return;
    size = next;
    pty.resize(next.cols, next.rows);
    callTaps(resizeTaps, 'resize', next.cols, next.rows);
  };
  disposers.push(terminal.onResize(applySize));

  // Ctrl-Z: in raw mode it is just byte 0x1a for the agent. When the agent then stops (its tty
  // sent it SIGTSTP, or it stopped itself as vim does), the pair stops: agentwrap hands the
  // terminal back and stops too; on `fg` it takes the terminal again, continues the agent's
  // group and asks it to redraw.
  let isResuming = false;
  // The job-control helper (pty.ts) stops when the agent stopped, and once continued puts the
  // agent back in the pty's foreground with a SIGWINCH so it redraws.
  disposers.push(
    pty.onStopped(() => {
      isResuming = true;
      terminal.suspendSelf();
      applySize(terminal.size());
      pty.signalGroup('SIGCONT');
    }),
  );

  let graceTimer: NodeJS.Timeout | undefined;
  if (options.forwardSignals ?? true) {
    // To the pty's foreground group, as if typed (kill -INT agentwrap ≈ Ctrl-C in the agent).
    // A stopped agent is not the foreground (the job-control helper is) and would keep the
    // signal pending: its group gets it, then SIGCONT, and the helper is left alone (killing it
    // would orphan the stopped group, whose SIGHUP from the kernel would come first).
    const forward = (signal: NodeJS.Signals): void => {
      if (!signalStoppedAgent(pty.commandPid(), signal)) pty.signalForeground(signal);
      graceTimer ??= setTimeout(() => {
        if (!signalStoppedAgent(pty.commandPid(), 'SIGKILL')) pty.signalForeground('SIGKILL');
      }, SIGNAL_GRACE_MS);
    };
    // A terminal that went away without a SIGHUP reaching agentwrap (found by a failed write or
    // read, or on the SIGCONT of a hangup) ends the session as the hangup would have.
    if (terminal.onGone !== undefined) disposers.push(terminal.onGone(() => forward('SIGHUP')));
    // Gone already (hung up while agentwrap was starting): the listener above came too late.
    if (terminal.isGone?.() === true) forward('SIGHUP');
    for (const signal of FORWARDED_SIGNALS) {
      process.on(signal, forward);
      disposers.push(() => process.removeListener(signal, forward));
    }
    // A SIGTSTP sent to agentwrap (not typed: raw mode turns ISIG off) stops the agent's group
    // the way a typed Ctrl-Z would; the stop handler above then stops agentwrap.
    const onTstp = (): void => pty.signalForeground('SIGTSTP');
    process.on('SIGTSTP', onTstp);
    disposers.push(() => process.removeListener('SIGTSTP', onTstp));
    // Continued after someone else stopped agentwrap (kill -STOP, then fg): the shell took the
    // terminal back in between, so raw mode has to be set again.
    const onCont = (): void => {
      if (isResuming) {
        isResuming = false;
        return;
      }
      terminal.restore();
      terminal.enterRaw();
    };
    process.on('SIGCONT', onCont);
    disposers.push(() => process.removeListener('SIGCONT', onCont));
  }

  // A crash inside agentwrap ends the process without reaching `finish`: still reset the
  // modes the agent left on and let the agent go (the terminal restore is terminal.ts's hook).
  let isFinished = false;
  const onProcessExit = (): void => {
    if (isFinished) return;
    terminal.write(modes.resetSequence());
    terminal.restore();
    pty.signalForeground('SIGHUP');
    pty.kill('SIGHUP');
  };
  process.on('exit', onProcessExit);

  const exited = pty.exited.then((exit) => {
    isFinished = true;
    if (graceTimer !== undefined) clearTimeout(graceTimer);
    process.removeListener('exit', onProcessExit);
    for (const dispose of disposers.splice(0)) dispose();
    // A second hangup signal (the shell's SIGHUP after the kernel's, or a SIGTERM) must not kill
    // agentwrap while the session removes its record: it is ending anyway.
    if (options.forwardSignals ?? true) for (const signal of FORWARDED_SIGNALS) process.on(signal, ignoreWhileEnding);
    terminal.write(modes.resetSequence());
    terminal.restore();
    terminal.dispose();
    pty.dispose();
    for (const message of pending.splice(0)) process.stderr.write(`agentwrap: ${message}\n`);
    return exit;
  });

  return {
    pid: pty.pid,
    agentPid: () => pty.commandPid(),
    size: () => size,
    onOutput(listener) {
      outputTaps.add(listener);
      // A CAN where the oldest held bytes were dropped: the mirror resynchronises after it.
      if (isHeldCut) callTaps(outputTaps, 'output', Buffer.from([0x18]), false, heldOutput[0]?.atMs);
      isHeldCut = false;
      for (const held of heldOutput.splice(0)) callTaps(outputTaps, 'output', held.chunk, held.isFlooding, held.atMs);
      heldBytes = 0;
      return () => outputTaps.delete(listener);
    },
    onInput(listener) {
      inputTaps.add(listener);
      for (const chunk of heldInput.splice(0)) callTaps(inputTaps, 'input', chunk);
      return () => inputTaps.delete(listener);
    },
    onResize(listener) {
      resizeTaps.add(listener);
      return () => resizeTaps.delete(listener);
    },
    exited,
    kill(signal = 'SIGHUP') {
      pty.signalForeground(signal);
    },
    writeTerminal(data) {
      if (!pty.writeTerminal(data)) terminal.write(data);
    },
    passthrough: pty.passthrough,
    passthroughNote: pty.passthroughNote,
    tapDroppedBytes: () => pty.tapDroppedBytes(),
  };
}

/**
 * Runs `file args` directly on agentwrap's own stdio, without a PTY: the policy when stdin or
 * stdout is not a terminal (a pipe, a file, CI). The agent then behaves exactly as it would
 * without agentwrap (it sees the pipe), and its exit code is passed on.
 */
export function runUnwrapped(options: Pick<LaunchOptions, 'file' | 'args' | 'env' | 'extraEnv'>): Promise<LaunchExit> {
  const userEnv = options.env ?? process.env;
  const child = spawn(options.file, [...options.args], {
    stdio: 'inherit',
    env: childEnvironment(userEnv, options.extraEnv),
    cwd: childCwd(userEnv, process.cwd()),
  });
  // Keyboard signals reach the agent directly (same process group); agentwrap must outlive
  // them to report the agent's exit. Signals sent to agentwrap alone are passed on.
  const forward = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGTERM' || signal === 'SIGHUP') child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((resolve) => {
    const finish = (exit: LaunchExit): void => {
      for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, forward);
      resolve(exit);
    };
    child.once('error', () => finish({ code: 127, signal: undefined }));
    child.once('exit', (code, signalName) => {
      const signal = signalName === null ? undefined : signalNumber(signalName);
      finish({ code: exitCodeOf(code ?? 0, signal), signal });
    });
  });
}

function signalNumber(name: NodeJS.Signals): number | undefined {
  return (osConstants.signals as Partial<Record<string, number>>)[name];
}
