// Types for the capture lab's terminal personalities (personalities.mjs).
export interface Answers {
  da1?: string;
  da2?: string;
  xtversion?: string;
  cpr?: boolean;
  dsr?: boolean;
  decxcpr?: boolean;
  colors?: { fg: string; bg: string; cursor: string; ansi: readonly string[] };
  decrqm?: readonly number[];
  windowOps?: readonly number[];
  swapSizeReport?: boolean;
  cellPixels?: { width: number; height: number };
  kittyKeyboard?: boolean;
  kittyGraphics?: boolean;
  xtgettcap?: 'invalid';
}
export interface Personality {
  about: string;
  env: Record<string, string | null>;
  answers: Answers;
}
export const PERSONALITIES: Record<string, Personality>;
export const DEFAULT_PERSONALITY: string;
export const PERSONALITY_NAMES: string[];
export function personality(name?: string): Personality & { name: string };
export function applyPersonalityEnv(base: Record<string, string>, name?: string): Record<string, string>;
