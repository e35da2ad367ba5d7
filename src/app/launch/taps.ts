/**
 * The launcher's taps: listeners that see output, input and resizes after passthrough did.
 * A throwing tap is caught, reported once per kind, and keeps being called. What arrives before
 * the first output or input tap attaches (the session loop loads while the agent starts) is
 * held and handed to it when it does.
 */

/**
 * Output held for taps that attach after the agent started: the newest this much, unless
 * lossless. A second of a busy TUI; the session loop attaches once the agent's first screen is
 * drawn, 3 s after the spawn at the latest (first-screen.ts), or at once with a recording.
 */
export const HELD_OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

type Tap<T extends unknown[]> = Set<(...args: T) => void>;

export type OutputTap = (chunk: Buffer, isFlooding: boolean, atMs: number | undefined) => void;

export class LaunchTaps {
  private readonly output: Tap<[Buffer, boolean, number | undefined]> = new Set();
  private readonly input: Tap<[Buffer]> = new Set();
  private readonly resize: Tap<[number, number]> = new Set();
  private readonly warnedTaps = new Set<string>();
  private readonly heldOutput: Array<{ chunk: Buffer; isFlooding: boolean; atMs: number }> = [];
  private readonly heldInput: Buffer[] = [];
  private heldBytes = 0;
  private isHeldCut = false;

  constructor(
    /** Bounded holding unless every byte matters (a recording): then by how fast the loop attaches. */
    private readonly isLossless: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  /** Output, after it reached the user's terminal. */
  sendOutput(chunk: Buffer, isFlooding: boolean, atMs: number | undefined): void {
    if (this.output.size === 0) this.holdOutput(chunk, isFlooding, atMs ?? performance.now());
    else this.call(this.output, 'output', chunk, isFlooding, atMs);
  }

  /** Input, after it reached the agent. */
  sendInput(chunk: Buffer): void {
    if (this.input.size === 0) this.heldInput.push(chunk);
    else this.call(this.input, 'input', chunk);
  }

  sendResize(cols: number, rows: number): void {
    this.call(this.resize, 'resize', cols, rows);
  }

  onOutput(listener: OutputTap): () => void {
    this.output.add(listener);
    // A CAN where the oldest held bytes were dropped: the mirror resynchronises after it.
    if (this.isHeldCut) this.call(this.output, 'output', Buffer.from([0x18]), false, this.heldOutput[0]?.atMs);
    this.isHeldCut = false;
    for (const held of this.heldOutput.splice(0)) this.call(this.output, 'output', held.chunk, held.isFlooding, held.atMs);
    this.heldBytes = 0;
    return () => this.output.delete(listener);
  }

  onInput(listener: (chunk: Buffer) => void): () => void {
    this.input.add(listener);
    for (const chunk of this.heldInput.splice(0)) this.call(this.input, 'input', chunk);
    return () => this.input.delete(listener);
  }

  onResize(listener: (cols: number, rows: number) => void): () => void {
    this.resize.add(listener);
    return () => this.resize.delete(listener);
  }

  private holdOutput(chunk: Buffer, isFlooding: boolean, atMs: number): void {
    this.heldOutput.push({ chunk, isFlooding, atMs });
    this.heldBytes += chunk.length;
    while (!this.isLossless && this.heldBytes > HELD_OUTPUT_MAX_BYTES && this.heldOutput.length > 1) {
      this.heldBytes -= this.heldOutput.shift()?.chunk.length ?? 0;
      this.isHeldCut = true;
    }
  }

  private call<T extends unknown[]>(taps: Tap<T>, name: string, ...args: T): void {
    for (const tap of taps) {
      try {
        tap(...args);
      } catch (error) {
        if (!this.warnedTaps.has(name)) {
          this.warnedTaps.add(name);
          this.warn(`a ${name} tap failed (passthrough continues): ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }
}
