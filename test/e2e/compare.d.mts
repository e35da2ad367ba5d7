// Types for compare.mjs (the e2e run is plain .mjs; these let its offline tests type-check).
export interface Transition { t: number; state: string; stuck: boolean; winner?: string | null; rule_id?: string | null }
export interface PublishedEvent { t: number; session: string; agent: string; from: string | null; to: string; winner: string; rule_id: string | null }
export interface Comparison { ok: boolean; live: { t: number; state: string }[]; replay: { t: number; state: string }[]; maxOffsetMs: number; problem: string | undefined }
export const REPLAY_MATCH_MS: number;
export function eventsToTransitions(events: readonly PublishedEvent[], castStartWall: number, sessionKey?: string): Transition[];
export function compareLiveReplay(live: readonly Transition[], replay: readonly Transition[], untilS: number): Comparison;
export function crashSigns(stderr: string, exitCode: number | null): string[];
export function median(values: readonly (number | null)[]): number | null;
export function firstScreenOrder(runs: number): { mode: 'bare' | 'hooks-on' | 'hooks-off'; index: number }[];
