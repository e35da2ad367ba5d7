/**
 * The config file as the CLI uses it: loaded once per process, its problems said once on
 * stderr (the command then runs on built-in defaults), and its `state_dir` applied as
 * $AGENT_STATUS_DIR when that is unset, so every reader and writer in this process, and the
 * agent's hooks (which inherit the environment), agree on one directory.
 */
import { loadConfig, type LoadedConfig } from '../app/platform.js';

let loaded: LoadedConfig | undefined;

export function userConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  loaded ??= loadConfig(env);
  return loaded;
}

/** One line per problem, ending with what agentwrap does about it. */
export function configWarnings(config: LoadedConfig): string[] {
  return config.problems.map((problem) => `agentwrap: ${problem} (config ignored; built-in defaults in use)`);
}

/** Warns about a broken config and applies `state_dir`; for every command that reads or writes state. */
export function applyUserConfig(env: NodeJS.ProcessEnv, stderr: (text: string) => void): void {
  const config = userConfig(env);
  for (const line of configWarnings(config)) stderr(`${line}\n`);
  const stateDir = config.config.stateDir;
  const explicit = env['AGENT_STATUS_DIR'];
  if (stateDir !== undefined && (explicit === undefined || explicit === '')) env['AGENT_STATUS_DIR'] = stateDir.value;
}
