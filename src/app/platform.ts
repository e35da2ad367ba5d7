/**
 * What the CLI may know about the machine, through app like everything else it uses: where
 * agentwrap's files and the state directory are, whether a pid lives, where an executable is,
 * which version of an agent is installed. The CLI never imports src/adapters directly
 * (test/architecture.test.ts): this file is its one door to them, so a new need shows up here,
 * in one list, instead of as another line of a cli → adapters import.
 */
export { detectAgentVersion, type AgentVersion } from '../adapters/agent-version.js';
export { AGENTWRAP_VERSION, BUNDLED_FIXTURES_DIR, BUNDLED_PACKS_DIR, DEMO_AGENT_PATH, userPacksDir } from '../adapters/paths.js';
export { isPidAlive } from '../adapters/process/alive.js';
export { resolveExecutable } from '../adapters/executable.js';
// Type only: erased at run time, so the CLI's light commands never load node-pty through here.
export type { Passthrough } from '../adapters/pty/index.js';
export { checkStateRootForReading, resolveStateRoot, stateLayout } from '../adapters/state-dir.js';
export { loadNativeRelay } from '../adapters/relay.js';
export { resolveOnPath } from '../adapters/agent-version.js';
export { isSafeHost } from '../adapters/ssh.js';
export { jumpToPane } from '../adapters/tmux.js';
export { runSsh } from '../adapters/ssh.js';
export { writeFileAtomicSync } from '../adapters/fs-atomic.js';
export { describeReadFailure, readRegularTextFileSync } from '../adapters/bounded-file.js';
export { detachHungUpStdio, isHungUpTerminal } from '../adapters/terminal/hangup.js';
