// Types for the capture lab's agent event follower (agent-events.mjs), so its offline tests typecheck.
export interface AgentEvent { t: number; type: string; status?: string; idle: boolean }
export const KEPT_EVENTS: readonly string[];
export function isIdleEvent(event: unknown): boolean;
export function splitSse(text: string): { data: string[]; rest: string };
export function followOpenCodeEvents(
  port: number,
  log?: (line: string) => void,
): {
  events: AgentEvent[];
  connected(): boolean;
  waitConnected(capMs: number): Promise<boolean>;
  firstIdleAfter(t: number, capMs: number): Promise<AgentEvent | undefined>;
  close(): void;
};
