/** The PTY's vocabulary: what spawnPty takes and what it gives back. */
import type { ModeState } from '../terminal/terminal.js';

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
    /** agentwrap's own OSC 7501 probes written to `outFd` before the spawn (their replies are kept from the agent). */
    readonly ownProbes?: number;
  };
}

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
  /**
   * With the native relay, what its OSC 7501 filter found (terminal/program-status.ts STATUS_*
   * bits) as of the last batch; undefined without it (then the caller filters: launch/).
   */
  programStatus(): number | undefined;
  /** Fires when those findings change (native relay only). */
  onProgramStatus(listener: (bits: number) => void): () => void;
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
