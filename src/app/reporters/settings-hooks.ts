/**
 * Gemini CLI's and Qwen Code's reporter for one run, through their environment. Both read the
 * lowest of their settings files, the system defaults (below the user's, the workspace's and the
 * system's own settings), from a path an environment variable may name:
 * `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, `QWEN_CODE_SYSTEM_DEFAULTS_PATH`. agentwrap points it at a
 * private copy of that file: the machine's own system defaults, when there are any, with
 * agentwrap's hooks added. Both join the `hooks` lists of every settings file (their merge
 * strategy for them is `concat`), so the user's hooks keep running beside ours and nothing is
 * written to `~/.gemini`, `~/.qwen` or `/etc`.
 *
 * Each hook is the spool's shell line (hook-spool.ts), named `agentwrap`.
 * - Gemini CLI 0.61 runs hooks synchronously and shows every running hook in its status row for
 *   at least 3 s (WARNING_PROMPT_DURATION_MS), with no setting that hides it, so its hooks are off
 *   unless asked for (HOOKS_OFF_BY_DEFAULT). Asked for, they cover the turn: its start, the
 *   permission question, a tool's end, the turn's end; none at start-up or exit, which would
 *   only repeat the session id (docs/reporter.md).
 * - Qwen Code 0.24 (a Gemini CLI fork) takes Claude Code's hook names and runs an `async`
 *   command hook in the background, so it gets Claude's events.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { describeReadFailure, readRegularTextFileSync } from '../../adapters/bounded-file.js';
import { CONFIG_FILE_MAX_BYTES } from '../../core/input-bounds.js';
import { dirname, join } from 'node:path';
import { spoolHookLine } from './hook-spool.js';
import { appendHooks, isObject, makeSpoolDir, nothing, privateDir, spooledPlan, type HookPlan, type HookPlanInput, type Json } from './hook-plan.js';

/** One agent of the family: where it reads its settings, and what agentwrap adds. */
export interface SettingsHooksAgent {
  readonly agent: string;
  /** The reporter's name in explain. */
  readonly source: string;
  /** The variable that names the system-defaults file. */
  readonly defaultsEnv: string;
  /** The variable that names the system settings file (the defaults sit beside it). */
  readonly settingsEnv: string;
  /** The system settings file when no variable names it, by platform. */
  readonly settingsPath: { readonly linux: string; readonly darwin: string };
  readonly events: readonly string[];
  /** Subcommands without a session to report. */
  readonly subcommands: readonly string[];
  /** One hook entry of ours for `event`. */
  readonly hook: (spoolDir: string, event: string) => Record<string, unknown>;
}

/** The name Gemini CLI and Qwen Code show for our hooks (`/hooks`, a status row) instead of the shell line. */
export const SETTINGS_HOOK_NAME = 'agentwrap';

export const GEMINI_HOOKS: SettingsHooksAgent = {
  agent: 'gemini',
  source: 'gemini-hooks',
  defaultsEnv: 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH',
  settingsEnv: 'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  settingsPath: { linux: '/etc/gemini-cli/settings.json', darwin: '/Library/Application Support/GeminiCli/settings.json' },
  // Not BeforeTool: it comes just before the permission Notification and says nothing more.
  // Not BeforeModel/AfterModel: they run for every request and every streamed chunk.
  events: ['BeforeAgent', 'Notification', 'AfterTool', 'AfterAgent'],
  subcommands: ['mcp', 'extensions', 'extension', 'hooks', 'hook', 'skills', 'skill', 'gemma'],
  // Milliseconds; ours take a few.
  hook: (spoolDir, event) => ({ type: 'command', name: SETTINGS_HOOK_NAME, command: spoolHookLine(spoolDir, event), timeout: 5000 }),
};

export const QWEN_HOOKS: SettingsHooksAgent = {
  agent: 'qwen',
  source: 'qwen-hooks',
  defaultsEnv: 'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
  settingsEnv: 'QWEN_CODE_SYSTEM_SETTINGS_PATH',
  settingsPath: { linux: '/etc/qwen-code/settings.json', darwin: '/Library/Application Support/QwenCode/settings.json' },
  events: ['SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'Notification', 'Stop'],
  subcommands: ['mcp', 'extensions', 'extension', 'hooks', 'hook', 'skills', 'skill', 'auth', 'channel'],
  // Seconds; run in the background, never waited for.
  hook: (spoolDir, event) => ({ type: 'command', name: SETTINGS_HOOK_NAME, command: spoolHookLine(spoolDir, event), timeout: 5, async: true }),
};


/** Where the agent reads its system defaults from, as it decides it (Linux and macOS). */
export function systemDefaultsPath(spec: SettingsHooksAgent, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const given = env[spec.defaultsEnv];
  if (given !== undefined && given !== '') return given;
  const settings = env[spec.settingsEnv];
  const settingsPath = settings !== undefined && settings !== '' ? settings : platform === 'darwin' ? spec.settingsPath.darwin : spec.settingsPath.linux;
  return join(dirname(settingsPath), 'system-defaults.json');
}

/** The hooks block agentwrap adds: one command hook per event, spooling the payload on stdin. */
export function settingsHooks(spec: SettingsHooksAgent, spoolDir: string): Json {
  const hooks: Json = {};
  for (const event of spec.events) hooks[event] = [{ hooks: [spec.hook(spoolDir, event)] }];
  return hooks;
}


export function planSettingsHooks(spec: SettingsHooksAgent, input: HookPlanInput, root: string): HookPlan {
  const first = input.args[0];
  if (first !== undefined && spec.subcommands.includes(first)) return nothing(spec.agent, input.args, undefined);
  const source = systemDefaultsPath(spec, input.env);
  let defaults: Json = {};
  if (existsSync(source)) {
    let text: string;
    try {
      // Regular files only, without blocking (a FIFO at that path must not hang the launch), capped.
      text = readRegularTextFileSync(source, CONFIG_FILE_MAX_BYTES);
    } catch (error) {
      return nothing(spec.agent, input.args, `no reporter hooks for ${spec.agent}: ${source}: ${describeReadFailure(error)}`);
    }
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) return nothing(spec.agent, input.args, `no reporter hooks for ${spec.agent}: ${source} is not a JSON object`);
    defaults = parsed;
  }
  const temp = privateDir(root);
  const file = join(temp.dir, `${spec.agent}-system-defaults.json`);
  const spoolDir = makeSpoolDir(temp);
  writeFileSync(file, `${JSON.stringify(appendHooks(defaults, settingsHooks(spec, spoolDir)), null, 2)}\n`, { mode: 0o600 });
  return spooledPlan({
    agent: spec.agent,
    source: spec.source,
    args: input.args,
    env: { [spec.defaultsEnv]: file },
    events: spec.events,
    note: undefined,
    temp,
    spoolDir,
  });
}
