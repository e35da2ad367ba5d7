// Types for the capture lab's mock server (mock.mjs), so its offline tests typecheck.
export interface MockStep {
  think?: number;
  text?: string;
  chunkMs?: number;
  chunkChars?: number;
  tool?: { command?: string; description?: string; name?: string; namespace?: string; input?: Record<string, unknown>; escalate?: boolean; workdir?: string };
  thread?: 'main' | 'sub';
  error?: { status: number; type: string; message: string };
  /** A cause of failures.mjs, answered in the request's own dialect. */
  failure?: 'usage-limit' | 'rate-limited' | 'overloaded' | 'auth' | 'network' | 'api-error';
  failureOptions?: { resetInMs?: number; retryAfterS?: number };
  retryable?: boolean;
  sticky?: boolean;
}
export type SseEvent = [string | null, unknown];
export interface Encoded { events: SseEvent[]; textDeltas: Set<SseEvent> }
export interface MockEvent { t: number; type: string; api?: string; kind?: string; step?: number; detail?: string; tool?: boolean; error?: number | 'network'; retryable?: boolean; thread?: 'sub' }
export function anthropicEvents(step: MockStep, opts?: { model?: string; msgId?: string; toolId?: string; chunkChars?: number }): Encoded;
export function responsesEvents(step: MockStep, opts?: { respId?: string; callId?: string; chunkChars?: number; shellTool?: unknown }): Encoded;
export function chatEvents(step: MockStep, opts?: { id?: string; model?: string; callId?: string; chunkChars?: number; toolName?: string }): Encoded;
export function geminiEvents(step: MockStep, opts?: { chunkChars?: number; toolName?: string }): Encoded;
export function codexShellCall(tool: NonNullable<MockStep['tool']>, shellTool?: unknown): { name: string; args: Record<string, unknown> };
export function valueForSchema(schema: unknown, key?: string): unknown;
export function encodeSse(name: string | null, data: unknown): string;
export function errorBody(api: string, error: { status: number; type: string; message: string }): unknown;
export function fillVars(input: unknown, vars: Record<string, string>): unknown;
export const nowMs: () => number;
export function startMock(opts?: { log?: (line: string) => void; port?: number }): Promise<{
  port: number;
  baseUrl: string;
  events: MockEvent[];
  setScript(steps: MockStep[]): void;
  remaining(): number;
  close(): Promise<void>;
}>;
