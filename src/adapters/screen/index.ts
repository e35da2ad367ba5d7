/**
 * The headless screen mirror (docs/screen.md). One concern per file:
 * - flow-control.ts  the screen itself (`createScreen`): queues, pacing, cuts, flush
 * - mirror-terminal.ts  @xterm/headless and the cached view
 * - viewport-rows.ts  which viewport rows changed since the last view (xterm's dirty-row range)
 * - osc-evidence.ts  titles, progress, notifications, marks and BEL from the parser
 * - program-status.ts  OSC 7501 program status (what the agent says it is doing), bounded
 * - payload-limiter.ts  OSC/DCS payloads bounded before xterm sees them
 * - parse-budget.ts, wakes.ts  how the live mirror paces its parse
 * - backlog-cut.ts, salvage.ts  what a flood cut skips, and what it keeps of the skipped bytes
 * - queue.ts, constants.ts, types.ts  the shared vocabulary
 */
export * from './constants.js';
export type * from './types.js';
export { createScreen } from './flow-control.js';
export { parseProgress } from './osc-evidence.js';
export { parseProgramStatus } from './program-status.js';
export { StringPayloadLimiter } from './payload-limiter.js';
