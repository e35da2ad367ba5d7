/** An OuterTerminal held in memory: what agentwrap wrote, raw/restore calls, typed input, resizes. */
import type { OuterTerminal, TerminalSize } from '../../src/adapters/terminal/terminal.js';

export class FakeTerminal implements OuterTerminal {
  readonly isInteractive = true;
  readonly written: Buffer[] = [];
  readonly calls: string[] = [];
  private currentSize: TerminalSize;
  private readonly inputListeners = new Set<(chunk: Buffer) => void>();
  private readonly resizeListeners = new Set<(size: TerminalSize) => void>();

  constructor(size: TerminalSize = { cols: 80, rows: 24 }) {
    this.currentSize = size;
  }

  text(): string {
    return Buffer.concat(this.written).toString('utf8');
  }

  type(data: string | Buffer): void {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    for (const listener of this.inputListeners) listener(chunk);
  }

  setSize(size: TerminalSize): void {
    this.currentSize = size;
    for (const listener of this.resizeListeners) listener(size);
  }

  onInput(listener: (chunk: Buffer) => void): () => void {
    this.inputListeners.add(listener);
    return () => this.inputListeners.delete(listener);
  }

  onInputEnd(): () => void {
    return () => undefined;
  }

  write(chunk: Buffer | string): void {
    this.written.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }

  size(): TerminalSize {
    return this.currentSize;
  }

  onResize(listener: (size: TerminalSize) => void): () => void {
    this.resizeListeners.add(listener);
    return () => this.resizeListeners.delete(listener);
  }

  enterRaw(): void {
    this.calls.push('enterRaw');
  }

  restore(): void {
    this.calls.push('restore');
  }

  suspendSelf(): void {
    this.calls.push('suspendSelf');
  }

  dispose(): void {
    this.calls.push('dispose');
  }
}
