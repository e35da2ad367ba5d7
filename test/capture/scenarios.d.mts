// Types for the capture lab's scenarios (scenarios.mjs), so its offline tests typecheck.
export interface ScenarioTool { name?: string; input?: Record<string, unknown>; command?: string; description?: string; escalate?: boolean }
export interface ScenarioStep { think?: number; text?: string; chunkMs?: number; chunkChars?: number; tool?: ScenarioTool; error?: { status: number; type: string; message: string }; retryable?: boolean; sticky?: boolean; failure?: string; failureOptions?: Record<string, unknown> }
export interface Scenario {
  agents?: string[];
  firstRun?: boolean;
  seed?: Record<string, unknown>;
  vary: (rng: () => number, agent?: string) => { script: ScenarioStep[]; actions: Record<string, unknown>[] };
}
export const SCENARIOS: Record<string, Scenario>;
export const SCENARIO_NAMES: string[];
export const DEFAULT_SIZES: [number, number][];
