/**
 * Gemini CLI's reporter for one run, through its environment: `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`
 * names the lowest of its settings files (system defaults, below the user's, the workspace's and
 * the system's own settings). agentwrap points it at a private copy of that file: the machine's
 * own system defaults, when there are any, with agentwrap's hooks added. Gemini CLI 0.61 joins
 * the `hooks` lists of every settings file (its merge strategy for them is `concat`), so the
 * user's hooks keep running beside ours and nothing is written to `~/.gemini` or `/etc`.
 *
 * Each hook is the spool's shell line (hook-spool.ts), named `agentwrap`. Gemini CLI runs hooks
 * synchronously and shows a running hook in its status row for at least 3 s
 * (WARNING_PROMPT_DURATION_MS), so the events are few and chosen where that row does not
 * mislead: none at start-up, none at the turn's end (docs/reporter.md).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spoolHookLine } from './hook-spool.js';
import { makeSpoolDir, nothing, privateDir, spooledPlan, type HookPlan, type HookPlanInput } from './hook-plan.js';

/** The Gemini CLI hook events agentwrap listens to. */
export const GEMINI_HOOK_EVENTS: readonly string[] = ['Notification'];

/** Milliseconds Gemini CLI allows one of our hooks (they take a few). */
const GEMINI_HOOK_TIMEOUT_MS = 5000;

/** The name Gemini CLI shows for our hooks (`/hooks panel`, its status row) instead of the shell line. */
export const GEMINI_HOOK_NAME = 'agentwrap';

/** Gemini CLI subcommands without a session to report. */
const GEMINI_SUBCOMMANDS: readonly string[] = ['mcp', 'extensions', 'extension', 'hooks', 'hook', 'skills', 'skill', 'gemma'];

const ENV_DEFAULTS = 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH';
const ENV_SETTINGS = 'GEMINI_CLI_SYSTEM_SETTINGS_PATH';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where Gemini CLI reads its system defaults from, as it decides it (Linux and macOS). */
export function geminiSystemDefaultsPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const given = env[ENV_DEFAULTS];
  if (given !== undefined && given !== '') return given;
  const settings = env[ENV_SETTINGS];
  const settingsPath =
    settings !== undefined && settings !== '' ? settings : platform === 'darwin' ? '/Library/Application Support/GeminiCli/settings.json' : '/etc/gemini-cli/settings.json';
  return join(dirname(settingsPath), 'system-defaults.json');
}

/** The hooks block agentwrap adds: one command hook per event, spooling the payload on stdin. */
export function geminiHooks(spoolDir: string): Json {
  const hooks: Json = {};
  for (const event of GEMINI_HOOK_EVENTS) {
    hooks[event] = [{ hooks: [{ type: 'command', name: GEMINI_HOOK_NAME, command: spoolHookLine(spoolDir, event), timeout: GEMINI_HOOK_TIMEOUT_MS }] }];
  }
  return hooks;
}

/** System defaults with agentwrap's hooks after theirs in each event's list, everything else kept. */
export function mergeGeminiDefaults(defaults: Json, ours: Json): Json {
  const theirs = isObject(defaults['hooks']) ? defaults['hooks'] : {};
  const hooks: Json = { ...theirs };
  for (const [event, groups] of Object.entries(ours)) {
    const existing = hooks[event];
    hooks[event] = [...(Array.isArray(existing) ? existing : []), ...(Array.isArray(groups) ? groups : [])];
  }
  return { ...defaults, hooks };
}

export function planGemini(input: HookPlanInput, root: string): HookPlan {
  const first = input.args[0];
  if (first !== undefined && GEMINI_SUBCOMMANDS.includes(first)) return nothing('gemini', input.args, undefined);
  const source = geminiSystemDefaultsPath(input.env);
  let defaults: Json = {};
  if (existsSync(source)) {
    const parsed: unknown = JSON.parse(readFileSync(source, 'utf8'));
    if (!isObject(parsed)) return nothing('gemini', input.args, `no reporter hooks for gemini: ${source} is not a JSON object`);
    defaults = parsed;
  }
  const temp = privateDir(root);
  const file = join(temp.dir, 'gemini-system-defaults.json');
  const spoolDir = makeSpoolDir(temp);
  writeFileSync(file, `${JSON.stringify(mergeGeminiDefaults(defaults, geminiHooks(spoolDir)), null, 2)}\n`, { mode: 0o600 });
  return spooledPlan({
    agent: 'gemini',
    source: 'gemini-hooks',
    args: input.args,
    env: { [ENV_DEFAULTS]: file },
    events: GEMINI_HOOK_EVENTS,
    note: undefined,
    temp,
    spoolDir,
  });
}
