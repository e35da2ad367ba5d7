// Types for the capture lab's terminal answerer (answerer.mjs), so its offline tests typecheck.
import type { Terminal } from '@xterm/headless';
import type { Answers } from './personalities.mjs';
export function xtermRgb(hex: string): string;
export function paletteHex(ansi: readonly string[], n: number): string;
export interface Answerer {
  feed(data: string): void;
  encodeKey(key: string): string;
  kittyFlags(): number;
  dispose(): void;
}
export function attachAnswerer(term: Terminal, answers: Answers | undefined, reply: (bytes: string) => void): Answerer;
