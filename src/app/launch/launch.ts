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
} from '../../adapters/pty/index.js';
import { ModeTracker, processTerminal, type ModeState, type OuterTerminal, type TerminalSize } from '../../adapters/terminal/terminal.js';
import { treeCpuRate } from '../../adapters/process/procfs-probe.js';
import { FirstScreenWatch } from './first-screen.js';
import { GuardianUpdates } from './guardian-updates.js';
import { probeBeforeSpawn, programStatusPath } from './program-status.js';
import { FORWARDED_SIGNALS, handleSignals, holdSignalsDuringLaunch, ignoreSignalsWhileEnding } from './signals.js';
import { LaunchTaps } from './taps.js';

export { FIRST_SCREEN_BYTES, FIRST_SCREEN_QUIET_MS, FIRST_SCREEN_WAIT_MAX_MS } from './first-screen.js';
export { GUARDIAN_UPDATE_MIN_MS } from './guardian-updates.js';
export { FORWARDED_SIGNALS, SIGNAL_GRACE_MS } from './signals.js';
export { HELD_OUTPUT_MAX_BYTES } from './taps.js';

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
  /**
   * Send agentwrap's own OSC 7501 probe to the terminal before the agent starts (a live session
   * then says the agent's state there if it answers: app/live/signals-out.ts). Default false.
   */
  readonly probeProgramStatus?: boolean;
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
  /**
   * Types into the agent as if from the keyboard (`agentwrap answer` / `send`); the input taps
   * see it like a keystroke. A write after the agent exited is dropped.
   */
  writeAgent(data: string): void;
  /**
   * What the passthrough found out about OSC 7501 program status (STATUS_* bits of
   * adapters/terminal/program-status.ts): whether the user's terminal answered a 7501 probe,
   * whether the agent probed (and agentwrap answered it), whether the agent's own 7501 reached
   * the terminal.
   */
  programStatus(): number;
  onProgramStatus(listener: (bits: number) => void): () => void;
  /** 'native' when the relay thread carries the bytes, else the event loop does. */
  readonly passthrough: Passthrough;
  /** Why the native relay is not in use (absent when it is). */
  readonly passthroughNote: string | undefined;
  /** Output the native relay kept from the taps because they fell behind a flood (salvaged). */
  tapDroppedBytes(): number;
  /**
   * Resolves once the agent has drawn its first screen, the user typed, the agent exited, or
   * FIRST_SCREEN_WAIT_MAX_MS passed (launch/first-screen.ts): work that can wait for that
   * leaves the cores to the agent's start-up. Never rejects.
   */
  readonly firstScreen: Promise<void>;
}

/**
 * Starts `file args` in a PTY wrapped around the user's terminal. Taps may attach later (the
 * session loop loads while the agent starts): what arrived before the first output or input
 * tap is held and handed to it when it attaches (launch/taps.ts, HELD_OUTPUT_MAX_BYTES).
 */
export function launchWrapped(options: LaunchOptions): LaunchedSession {
  const terminal = options.terminal ?? processTerminal();
  const userEnv = options.env ?? process.env;
  const pending: string[] = [];
  const warn = options.warn ?? ((message: string) => pending.push(message));

  let size = terminal.size();
  // Raw mode before the agent starts (keys typed from now on are the agent's, unechoed; its
  // first bytes pass as they are: OPOST off by one ioctl where the relay addon is); the terminal
  // guardian (a process start) once it is spawned (completeRaw below), while the agent loads: its
  // first screen does not wait for it. Without the addon `stty -opost` waits until then too, and
  // a "\r\n" the agent writes meanwhile goes out as "\r\r\n", which looks the same.
  const releaseHeldSignals = (options.forwardSignals ?? true) ? holdSignalsDuringLaunch() : () => undefined;
  const completeRaw = terminal.enterRawInputFirst?.() ?? enterRawAtOnce(terminal);
  const ownProbes = probeBeforeSpawn(options.probeProgramStatus === true, terminal, userEnv);
  const pty = spawnAgent(options, terminal, size, userEnv, ownProbes);
  // With the native relay the bytes already reached their destination when the taps see them.
  const isRelayed = pty.passthrough === 'native';
  const taps = new LaunchTaps(options.lossless ?? false, warn);
  // The native relay tracks modes on its thread over every byte; here only without it.
  let tracker: ModeTracker | undefined;
  const modes: ModeState = pty.modes ?? (tracker = new ModeTracker());
  const guardian = new GuardianUpdates(modes, terminal.setCrashReset?.bind(terminal));
  const firstScreen = new FirstScreenWatch(treeCpuRate(pty.pid));
  const programStatus = programStatusPath(pty, terminal, ownProbes);
  // Last, programStatus.finish: at the exit, output it still withheld goes out.
  const disposers: Array<() => void> = [() => guardian.dispose(), () => firstScreen.done(), () => programStatus.finish()];
  const noteInput = (chunk: Buffer): void => {
    if (chunk.length === 0) return;
    firstScreen.noteInput(chunk);
    taps.sendInput(chunk);
  };

  disposers.push(
    pty.onData((chunk, isFlooding, atMs) => {
      if (!isRelayed) programStatus.relayOutput(chunk);
      // The relay thread drops output a hung-up terminal refuses; a look per batch (two
      // isatty calls) turns that into the hangup's ending (onGone above).
      else terminal.isGone?.();
      tracker?.feed(chunk);
      guardian.noteOutput();
      firstScreen.noteOutput(chunk.length);
      taps.sendOutput(chunk, isFlooding, atMs);
    }),
    // Keystrokes, after they reached the agent: on the event loop they go there here first
    // (all but a reply to agentwrap's own 7501 probe: launch/program-status.ts).
    isRelayed ? pty.onInput(noteInput) : terminal.onInput((input) => noteInput(programStatus.relayInput(input))),
  );
  const applySize = (next: TerminalSize): void => {
    if (next.cols === size.cols && next.rows === size.rows) return;
    size = next;
    pty.resize(next.cols, next.rows);
    taps.sendResize(next.cols, next.rows);
  };
  disposers.push(terminal.onResize(applySize));
  const signals = handleSignals(pty, terminal, applySize, options.forwardSignals ?? true);
  releaseHeldSignals();

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
    process.removeListener('exit', onProcessExit);
    for (const dispose of disposers.splice(0)) dispose();
    signals.dispose();
    // A second hangup signal (the shell's SIGHUP after the kernel's, or a SIGTERM) must not kill
    // agentwrap while the session removes its record: it is ending anyway.
    if (options.forwardSignals ?? true) ignoreSignalsWhileEnding();
    terminal.write(modes.resetSequence());
    terminal.restore();
    terminal.dispose();
    pty.dispose();
    for (const message of pending.splice(0)) process.stderr.write(`agentwrap: ${message}\n`);
    return exit;
  });

  // Last, once the signal handlers and exit hooks are on: a signal or an exit during these two
  // process starts (the agent may print and end meanwhile) then takes the normal way out.
  completeRaw();

  return {
    pid: pty.pid,
    agentPid: () => pty.commandPid(),
    size: () => size,
    onOutput: (listener) => taps.onOutput(listener),
    onInput: (listener) => taps.onInput(listener),
    onResize: (listener) => taps.onResize(listener),
    exited,
    kill(signal = 'SIGHUP') {
      pty.signalForeground(signal);
    },
    writeTerminal(data) {
      if (!pty.writeTerminal(data)) terminal.write(data);
    },
    writeAgent(data) {
      if (isFinished || data === '') return;
      pty.write(data);
      noteInput(Buffer.from(data, 'utf8'));
    },
    ...programStatus.view,
    passthrough: pty.passthrough,
    passthroughNote: pty.passthroughNote,
    tapDroppedBytes: () => pty.tapDroppedBytes(),
    firstScreen: firstScreen.drawn,
  };
}

/** The agent in a PTY the size of the user's terminal, relayed by the native thread where it can be. */
function spawnAgent(options: LaunchOptions, terminal: OuterTerminal, size: TerminalSize, userEnv: NodeJS.ProcessEnv, ownProbes: number): PtyProcess {
  return spawnPty({
    file: options.file,
    args: options.args,
    cols: size.cols,
    rows: size.rows,
    env: childEnvironment(userEnv, options.extraEnv),
    cwd: childCwd(userEnv, process.cwd()),
    ...(terminal.fds === undefined
      ? {}
      : { passthrough: { inFd: terminal.fds.input, outFd: terminal.fds.output, lossless: options.lossless ?? false, ownProbes } }),
  });
}

/** A terminal without the two-step raw mode enters it whole, before the spawn. */
function enterRawAtOnce(terminal: OuterTerminal): () => void {
  terminal.enterRaw();
  return () => undefined;
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
