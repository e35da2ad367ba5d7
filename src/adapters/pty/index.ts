/**
 * The agent's pseudo-terminal (docs/launcher.md). One concern per file:
 * - spawn.ts  spawnPty: composes the parts below into a PtyProcess
 * - types.ts  PtySpawnOptions, PtyProcess, PtyExit, Passthrough
 * - job-control.ts  the sh helper that makes Ctrl-Z work; /proc reads and signals
 * - environment.ts  the agent's environment and working directory
 * - node-pty-internals.ts  the two node-pty 1.1.0 internals relied on, checked
 * - read-tail.ts  the output tail node-pty would lose; the onData fan-out
 * - relay-choice.ts  native relay thread or event loop
 */
export { spawnPty } from './spawn.js';
export * from './types.js';
export { childCwd, childEnvironment, HOOK_ENV_KEYS } from './environment.js';
export { JOB_CONTROL_SCRIPT, JOB_CONTROL_SHELL, readChildPids, readProcStat, signalQuietly } from './job-control.js';
export { DRAIN_MAX_MS, DRAIN_QUIET_MS } from './read-tail.js';
