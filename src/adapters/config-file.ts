/**
 * Reads the user's config file, `$XDG_CONFIG_HOME/agentwrap/config.toml` (else
 * `~/.config/agentwrap/config.toml`). Never throws: a missing file is the normal case (built-in
 * defaults), and a broken one yields its problems plus the built-in defaults, so the agent
 * still runs and the caller says what is wrong.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_CONFIG } from '../core/config/values.js';
import { CONFIG_FILE_MAX_BYTES } from '../core/input-bounds.js';
import { describeReadFailure, readRegularTextFileSync } from './bounded-file.js';
import type { ConfigSnapshot } from '../core/config/launch-settings.js';

export type ConfigStatus = 'absent' | 'ok' | 'invalid';

export interface LoadedConfig extends ConfigSnapshot {
  readonly status: ConfigStatus;
  /** Each formatted `FILE:LINE: reason`; empty unless invalid. */
  readonly problems: readonly string[];
}

function homeOf(env: NodeJS.ProcessEnv): string | undefined {
  const home = env['HOME'];
  if (home !== undefined && home !== '') return home;
  try {
    return homedir();
  } catch {
    // No home directory at all (a bare service account): there is then no default config path.
    return undefined;
  }
}

/** The config file's path; undefined when neither XDG_CONFIG_HOME nor a home is known. */
export function configFilePath(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env['XDG_CONFIG_HOME'];
  // The XDG spec: a relative value is invalid and ignored.
  if (xdg !== undefined && xdg.startsWith('/')) return join(xdg, 'agentwrap', 'config.toml');
  const home = homeOf(env);
  return home === undefined ? undefined : join(home, '.config', 'agentwrap', 'config.toml');
}

export async function loadConfig(env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const path = configFilePath(env);
  if (path === undefined) return { path, config: EMPTY_CONFIG, status: 'absent', problems: [] };
  let text: string;
  try {
    // A FIFO or a device at the path would hang every command (the tmux status line too).
    text = readRegularTextFileSync(path, CONFIG_FILE_MAX_BYTES);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, config: EMPTY_CONFIG, status: 'absent', problems: [] };
    return { path, config: EMPTY_CONFIG, status: 'invalid', problems: [`${path}: ${describeReadFailure(error)}`] };
  }
  // The TOML parser is loaded only when there is a file to parse (most runs have none).
  const { formatConfigIssue, parseConfig } = await import('../core/config/schema.js');
  const parsed = parseConfig(text, path, homeOf(env));
  if (parsed.kind === 'invalid') return { path, config: EMPTY_CONFIG, status: 'invalid', problems: parsed.errors.map(formatConfigIssue) };
  return { path, config: parsed.config, status: 'ok', problems: [] };
}
