/**
 * The light door to the machine for the state directory's readers (`status`, `events`, `ack`,
 * the hooks' `report`): the config file (which may name the state root), where the state root
 * is, its layout, whether a pid lives, whether a `--host` is safe to hand to ssh. platform.ts is the full door; importing it loads every
 * adapter behind it (child_process, the TOML parser, tty), ~40 ms of start-up on this 2-core
 * machine that a command run once a second by a status bar should not pay.
 */
export { isPidAlive } from '../../adapters/process/alive.js';
export { checkStateRootForReading, resolveStateRoot, stateLayout } from '../../adapters/state-dir.js';
export { isSafeHost } from '../../core/records/host-name.js';
export { loadConfig, type LoadedConfig } from '../../adapters/config-file.js';
