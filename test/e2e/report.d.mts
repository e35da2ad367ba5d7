// Types for report.mjs (the e2e run is plain .mjs; these let its offline tests type-check).
export const GOALS: { accuracy: number; blockedRecall: number; spurious: number; missed: number; p95Ms: number; crashes: number; firstScreenMs: number };
export interface CellVerdict {
  failedRuns: number; accuracy: boolean; blockedRecall: boolean | null; spurious: boolean; missed: boolean; p95: boolean | null;
  crashes: number; runCrashes: number; killCrashes: number; crashOk: boolean; delta: number | null; firstScreen: boolean | null; replaySame: number; replayTotal: number;
}
export function judgeCell(cell: unknown): CellVerdict;
export const KILL_SERVER_RESULT: string;
export function renderKills(kills: unknown): string[];
export const OPENCODE_START_RESULT: string;
export const OPENCODE_READY_CAP_MS: number;
export function summarizeOpenCodeStart(runs: readonly unknown[]): Record<string, any>;
export const OPENCODE_START_GOALS: { readyDeltaMs: number; idleAfterReadyMs: number };
export interface OpenCodeStartVerdict { ready: boolean; idle: boolean; beforeIdle: boolean; config: boolean; crashes: boolean }
export function judgeOpenCodeStart(summary: unknown): OpenCodeStartVerdict;
export function renderOpenCodeStart(byNetwork: Record<string, unknown>): string[];
export function renderE2eMarkdown(cells: readonly unknown[], options?: { since?: string; kills?: unknown; openCodeStart?: Record<string, unknown> }): string;
