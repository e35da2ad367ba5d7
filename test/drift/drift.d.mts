// Types for the pure parts of `npm run drift` (drift.mjs), so their tests typecheck.
export interface EvalTotal {
  accuracy: number | null;
  per_state: { blocked?: { recall: number | null } };
  latency_ms: { p95: number | null };
  missed: number;
  spurious_transitions: number;
}
export interface DriftCell {
  place: string;
  scenario: string;
  size?: string;
  files?: number;
  error?: string;
  all?: EvalTotal;
  noScreenRules?: EvalTotal;
}
export interface DriftRelease {
  agent: string;
  version: string;
  published?: string;
  date: string;
  rangeBefore: string;
  rangeAfter: string;
  cells: DriftCell[];
}
export interface DriftCheck { date: string; newest: string; range: string; result: string }
export const GOALS: { accuracy: number; blockedRecall: number; missed: number; spurious: number; p95Ms: number };
export const DRIFT_SCENARIOS: string[];
export const DRIFT_SIZES: string[];
export const DRIFT_PLACES: { name: string; habitat: string | undefined; dir: string }[];
export function releaseToCheck(o: { range: string; newest: string; asked?: string | undefined }): { version: string; status: string; record: boolean; why: string };
export function goalMisses(total: EvalTotal | undefined): string[];
export function widenRange(range: string, version: string): { ok: true; range: string; changed: boolean } | { ok: false; reason: string };
export function widenPackText(text: string, version: string): { ok: true; range: string; changed: boolean; from: string; text: string } | { ok: false; reason: string };
export function releaseTable(release: DriftRelease): string;
export function releasePasses(release: DriftRelease): boolean;
export function driftDoc(o: { checks: Record<string, DriftCheck>; releases: Record<string, DriftRelease[]>; names: Record<string, string> }): string;
