/**
 * The config file as the CLI uses it: loaded once per process, its problems said once on
 * stderr (the command then runs on built-in defaults), and its `state_dir` applied as
 * $AGENT_STATUS_DIR when that is unset, so every reader and writer in this process, and the
 * agent's hooks (which inherit the environment), agree on one directory.
 */
import { loadConfig, type LoadedConfig } from '../app/sessions/state-access.js';

let loaded: LoadedConfig | undefined;

/** Reads the config file, once per process. */
export async function loadUserConfig(env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  loaded ??= await loadConfig(env);
  return loaded;
}

/** The config main loaded before the command ran (every command but the hooks', doctor's and completions'). */
export function userConfig(): LoadedConfig {
  if (loaded === undefined) throw new Error('the config file was read before main loaded it');
  return loaded;
}

/** One line per problem, ending with what agentwrap does about it. */
export function configWarnings(config: LoadedConfig): string[] {
  return config.problems.map((problem) => `agentwrap: ${problem} (config ignored; built-in defaults in use)`);
}

/** Warns about a broken config and applies `state_dir`; for every command that reads or writes state. */
export async function applyUserConfig(env: NodeJS.ProcessEnv, stderr: (text: string) => void): Promise<void> {
  const config = await loadUserConfig(env);
  for (const line of configWarnings(config)) stderr(`${line}\n`);
  const stateDir = config.config.stateDir;
  const explicit = env['AGENT_STATUS_DIR'];
  if (stateDir !== undefined && (explicit === undefined || explicit === '')) env['AGENT_STATUS_DIR'] = stateDir.value;
}
