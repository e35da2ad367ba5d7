/**
 * A terminal that is not there: a fixed-size stand-in for the user's terminal, driven by code.
 * `demo --auto` and tests run a wrapped agent through the very same launcher with it, typing
 * through `type()` and reading nothing back (the screen mirror is the reader).
 */
import type { OuterTerminal, TerminalSize } from '../adapters/terminal/terminal.js';

export interface VirtualTerminal extends OuterTerminal {
  /** Sends keystrokes to the wrapped program, as a user typing would. */
  type(data: string | Buffer): void;
  /** Changes the size, as a user resizing the window would. */
  resizeTo(size: TerminalSize): void;
  /** Bytes written to the "screen" so far (counted, not kept). */
  readonly bytesWritten: number;
}

export function createVirtualTerminal(initial: TerminalSize): VirtualTerminal {
  let size = initial;
  let written = 0;
  const inputs = new Set<(chunk: Buffer) => void>();
  const resizes = new Set<(size: TerminalSize) => void>();
  const subscribe = <T>(set: Set<T>, listener: T): (() => void) => {
    set.add(listener);
    return () => set.delete(listener);
  };
  return {
    isInteractive: true,
    onInput: (listener) => subscribe(inputs, listener),
    onInputEnd: () => () => undefined,
    write(chunk) {
      written += chunk.length;
    },
    size: () => size,
    onResize: (listener) => subscribe(resizes, listener),
    enterRaw: () => undefined,
    restore: () => undefined,
    suspendSelf: () => undefined,
    dispose() {
      inputs.clear();
      resizes.clear();
    },
    type(data) {
      const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (const listener of inputs) listener(chunk);
    },
    resizeTo(next) {
      size = next;
      for (const listener of resizes) listener(next);
    },
    get bytesWritten() {
      return written;
    },
  };
}
