// Types for the capture lab's agent profiles (agents.mjs), so its offline tests typecheck.
export interface AgentProfile {
  pkg: string;
  version: string;
  bin: string;
  args: string[];
  keys: { submit: string; approve: string; deny: string; exit: string[] };
  startup: { key: string; then: string; restarts?: boolean; repaintBytes?: number; settleMs?: number }[];
  toolSettleMs?: number;
  submitSettleMs?: number;
  readyBytes?: number;
}
export const AGENTS: Record<string, AgentProfile>;
export const AGENT_NAMES: string[];
