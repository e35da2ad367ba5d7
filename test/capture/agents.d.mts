// Types for the capture lab's agent profiles (agents.mjs), so its offline tests typecheck.
export interface AgentProfile {
  pkg: string;
  version: string;
  bin: string;
  args: string[];
  /** approve/deny as a list: a dialog answered in steps, the last key answers it. */
  keys: { submit: string; approve: string | string[]; deny: string | string[]; exit: string[] };
  startup: { key: string; then: string; restarts?: boolean; repaintBytes?: number; settleMs?: number }[];
  toolSettleMs?: number;
  /** The driver answers a dialog only once the output has been quiet this long (its busy row animates until the dialog is drawn). */
  dialogQuietMs?: number;
  /** The title the CLI sets while it asks: the driver answers once it is set and marks blocked from it, not from the tool call. */
  askTitle?: RegExp;
  /** npm packages installed beside the CLI (a runtime it needs, e.g. Bun). */
  extraPkgs?: string[];
  submitSettleMs?: number;
  readyBytes?: number;
  /** Ready also waits until the screen shows this (a CLI whose bytes, quiet and CPU can all hold before its first real paint). */
  readyScreen?: RegExp;
  /** A dependency tree this registry cannot resolve as published (install.mjs applyInstallFix). */
  install?: { overrides?: Record<string, string>; absent?: string[]; legacyPeerDeps?: boolean };
}
export const AGENTS: Record<string, AgentProfile>;
export const AGENT_NAMES: string[];
