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
  /** The launched session's side: the findings (STATUS_* bits), their changes, agentwrap's own probe. */
  readonly view: Pick<LaunchedSession, 'programStatus' | 'onProgramStatus' | 'probeOuter'>;
  /** Event-loop relay, at the end: output still withheld goes out. */
  finish(): void;
}

export function programStatusPath(pty: PtyProcess, terminal: Pick<OuterTerminal, 'write'>): ProgramStatusPath {
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
      view: { programStatus: () => pty.programStatus() ?? 0, onProgramStatus: onChange, probeOuter: () => void pty.probeOuter() },
      finish: unsubscribe,
    };
  }
  const filter = new ProgramStatusFilter();
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
    view: {
      programStatus: () => filter.bits,
      onProgramStatus: onChange,
      probeOuter() {
        filter.noteOwnProbe();
        terminal.write(PROGRAM_STATUS_PROBE);
      },
    },
    finish() {
      const held = filter.flushOutput();
      if (held.length > 0) terminal.write(held);
    },
  };
}
