/** The agent's environment and working directory: the user's, with only agentwrap's own variables added. */
import { realpathSync } from 'node:fs';

/**
 * Variables besides AGENTWRAP_* that agentwrap may set for one run, for the per-launch reporter
 * hooks (app/reporters/hooks.ts): OpenCode reads a server password only from
 * OPENCODE_SERVER_PASSWORD (never set when the user has one), and Gemini CLI and Qwen Code take
 * hooks for one run only from a settings file named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH or
 * QWEN_CODE_SYSTEM_DEFAULTS_PATH (a copy of the machine's own, settings-hooks.ts).
 */
export const HOOK_ENV_KEYS: readonly string[] = ['OPENCODE_SERVER_PASSWORD', 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH', 'QWEN_CODE_SYSTEM_DEFAULTS_PATH'];

/**
 * The environment of the agent: the user's, unchanged, plus the caller's AGENTWRAP_* variables
 * (and the reporter hooks' HOOK_ENV_KEYS). Anything else in `extra` is a bug in the caller, so
 * it throws rather than leak a surprise.
 */
export function childEnvironment(
  userEnv: NodeJS.ProcessEnv,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(userEnv)) {
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (!key.startsWith('AGENTWRAP_') && !HOOK_ENV_KEYS.includes(key)) throw new Error(`childEnvironment: ${key} is not an AGENTWRAP_* variable`);
    env[key] = value;
  }
  return env;
}

/**
 * The directory to start the child in. node-pty sets PWD to the cwd it is given; passing the
 * user's logical $PWD (when it is the same directory) keeps a symlinked PWD as the user had it.
 */
export function childCwd(userEnv: NodeJS.ProcessEnv, physicalCwd: string): string {
  const logical = userEnv['PWD'];
  if (logical === undefined || logical === '') return physicalCwd;
  try {
    return realpathSync(logical) === realpathSync(physicalCwd) ? logical : physicalCwd;
  } catch {
    // $PWD names a directory that no longer resolves: the physical cwd is the truth.
    return physicalCwd;
  }
}
