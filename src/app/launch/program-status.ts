/**
 * OSC 7501 program status on the passthrough (adapters/terminal/program-status.ts says what and
 * why). With the native relay its thread filters and answers; on the event-loop relay this file
 * does the same in the same order: the answer to the agent first, then the chunk to the
 * terminal. Either way the launch sees one interface: the findings, their changes, and
 * agentwrap's own probe.
 */
import type { PtyProcess } from '../../adapters/pty/index.js';
import { PROBE_ANSWER, PROGRAM_STATUS_PROBE, ProgramStatusFilter } from '../../adapters/terminal/program-status.js';
import type { OuterTerminal } from '../../adapters/terminal/terminal.js';
import type { LaunchedSession } from './launch.js';

export interface ProgramStatusPath {
  /** Event-loop relay: the agent's output to the terminal (answering a probe first). */
  relayOutput(chunk: Buffer): void;
  /** Event-loop relay: the user's input to the agent, minus a reply to agentwrap's own probe; returns what went. */
  relayInput(chunk: Buffer): Buffer;
  /** The launched session's side: the findings (STATUS_* bits) and their changes. */
  readonly view: Pick<LaunchedSession, 'programStatus' | 'onProgramStatus'>;
  /** Event-loop relay, at the end: output still withheld goes out. */
  finish(): void;
}

/**
 * Whether agentwrap may send its own 7501 probe: every terminal that parses OSC ignores one it
 * does not know, but the Linux console prints the text of an OSC other than its palette ones.
 */
export function mayProbe(env: NodeJS.ProcessEnv): boolean {
  return env['TERM'] !== 'linux' && env['TERM'] !== 'dumb';
}

/**
 * agentwrap's own probe, written before the agent starts: nothing of the agent's is on the way
 * yet, so it lands before its first byte (a few bytes, no wait: the first screen is not
 * delayed), and a terminal that understands 7501 has usually answered before the agent probes
 * itself, which then gets the terminal's one answer rather than agentwrap's. Returns how many
 * probes went out (0 or 1), for the filter.
 */
export function probeBeforeSpawn(isWanted: boolean, terminal: Pick<OuterTerminal, 'write'>, env: NodeJS.ProcessEnv): number {
  if (!isWanted || !mayProbe(env)) return 0;
  terminal.write(PROGRAM_STATUS_PROBE);
  return 1;
}

export function programStatusPath(pty: PtyProcess, terminal: Pick<OuterTerminal, 'write'>, ownProbes: number): ProgramStatusPath {
  const listeners = new Set<(bits: number) => void>();
  const onChange = (listener: (bits: number) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  if (pty.passthrough === 'native') {
    const unsubscribe = pty.onProgramStatus((bits) => {
      for (const listener of listeners) listener(bits);
    });
    return {
      relayOutput: () => undefined,
      relayInput: (chunk) => chunk,
      view: { programStatus: () => pty.programStatus() ?? 0, onProgramStatus: onChange },
      finish: unsubscribe,
    };
  }
  const filter = new ProgramStatusFilter();
  for (let k = 0; k < ownProbes; k++) filter.noteOwnProbe();
  let announced = 0;
  const announce = (): void => {
    if (filter.bits === announced) return;
    announced = filter.bits;
    for (const listener of listeners) listener(announced);
  };
  return {
    relayOutput(chunk) {
      const { pass, answers } = filter.filterOutput(chunk);
      for (let k = 0; k < answers; k++) pty.write(PROBE_ANSWER);
      if (pass.length > 0) terminal.write(pass);
      announce();
    },
    relayInput(chunk) {
      const pass = filter.filterInput(chunk);
      if (pass.length > 0) pty.write(pass);
      announce();
      return pass;
    },
    view: { programStatus: () => filter.bits, onProgramStatus: onChange },
    finish() {
      const held = filter.flushOutput();
      if (held.length > 0) terminal.write(held);
    },
  };
}
