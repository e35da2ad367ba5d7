// Types for the capture lab's label builder (labels.mjs), so its offline tests typecheck.
export type LabelState = 'working' | 'blocked' | 'idle' | 'uncertain';
export interface Mark { t: number; state: LabelState; settle?: number | 'quiet' | undefined; why?: string }
export interface Label { t: number; state: LabelState }
export const SETTLE_MS: number;
export const KEY_SLACK_MS: number;
export const QUIET_MS: number;
export const QUIET_MIN_MS: number;
export const QUIET_CAP_MS: number;
export function quietAfter(outputTimes: readonly number[], from: number): number;
export function buildLabels(marks: readonly Mark[], outputTimes: readonly number[], castStartWall: number): Label[];
export function labelsToJsonl(labels: readonly Label[]): string;
export function keyClockOffsetMs(castText: string, keyWrites: readonly { t: number; bytes: string }[], castStartWall: number): number | undefined;
export const PAINT_CHUNK_BYTES: number;
export function paintStart(sizes: readonly number[], first: number, fallback: number): number;
