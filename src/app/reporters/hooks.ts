/**
 * Per-launch reporter integration: for one run of an agent CLI, the extra arguments and
 * environment that make its own hook/plugin system call `agentwrap report`. Nothing is written
 * to the user's configuration; the few files needed live in a private temporary directory that
 * `dispose()` removes after the agent exits. The user's own hooks keep running: Claude Code
 * merges `--settings` with its other settings sources itself, Codex, Gemini CLI and Qwen Code
 * join the hooks of every config layer, OpenCode gets no plugin at all, and a user's own Codex
 * `notify` program is never replaced. Copilot CLI takes hooks only from files (the repository's
 * `.github/hooks/`, the user's home), so it gets none.
 *
 * What each agent gets (and what gating trusts it for: core/detector/gating.ts, docs/reporter.md):
 * - claude: `--settings <file>` with async command hooks on SessionStart, UserPromptSubmit,
 *   PermissionRequest, Notification, Elicitation, Stop, SessionEnd (blocker-grade, turn-start
 *   working from UserPromptSubmit, identity),
 *   each writing its payload into a spool that agentwrap delivers (hook-spool.ts);
 * - codex: `-c notify=[…]` and `-c hooks.<Event>=[…]` async spool hooks with their trust
 *   (codex-hooks.ts: blocker-grade from PermissionRequest + identity);
 * - gemini, qwen: a private copy of their system-defaults settings file with our spool hooks
 *   added, named by their environment variable (settings-hooks.ts);
 * - opencode: nothing (a server of ours would delay its first screen, a plugin would install
 *   @opencode-ai/plugin into the user's config directory first); when the user starts its
 *   server (`--port N`), agentwrap follows that server's `/event` stream (opencode-events.ts:
 *   full-lifecycle, authoritative below screen blockers).
 */
import { writeFileSync } from 'node:fs';
import { describeReadFailure, readRegularTextFileSync } from '../../adapters/bounded-file.js';
import { CONFIG_FILE_MAX_BYTES } from '../../core/input-bounds.js';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLI_MAIN_PATH } from '../../adapters/paths.js';
import type { Following } from './opencode-events.js';
import { spoolHookLine } from './hook-spool.js';
import { appendHooks, isObject, makeSpoolDir, nothing, privateDir, spooledPlan, type HookPlan, type HookPlanInput, type Json } from './hook-plan.js';
import { planCodex } from './codex-hooks.js';
import { GEMINI_HOOKS, planSettingsHooks, QWEN_HOOKS } from './settings-hooks.js';
// The control client and OpenCode's event stream are loaded by the one plan that needs them
// (await import below): a plan is made before the agent is spawned, and module loading for
// every launch was time its first byte waited for.

export type { HookPlan, HookPlanInput, ReporterSession } from './hook-plan.js';
export { shellQuote } from './hook-spool.js';

/** The Claude Code hook events agentwrap listens to, each run async (never delays the agent). */
export const CLAUDE_HOOK_EVENTS: readonly string[] = [
  'SessionStart',
  'UserPromptSubmit',
  'PermissionRequest',
  'Notification',
  'Elicitation',
  'Stop',
  'SessionEnd',
];

/** Seconds Claude Code allows one of our hooks (they take well under one; async anyway). */
const CLAUDE_HOOK_TIMEOUT_S = 5;

/** Claude Code subcommands that are not an interactive session: no hooks for them. */
const CLAUDE_SUBCOMMANDS: readonly string[] = ['mcp', 'config', 'doctor', 'update', 'upgrade', 'install', 'setup-token', 'plugin', 'plugins', 'migrate-installer', 'auth', 'login', 'logout'];

/** The agents planHooks adds a reporter for. */
const HOOKED_AGENTS: readonly string[] = ['claude', 'codex', 'gemini', 'opencode', 'qwen'];

const HELP_OR_VERSION: readonly string[] = ['-h', '--help', '-v', '-V', '--version', 'help'];

/** The command a hook runs: this node and this installation's CLI entry, absolute, so PATH does not matter. */
export function defaultReportCommand(): string[] {
  return [process.execPath, CLI_MAIN_PATH];
}

/**
 * What to add to one launch so the agent reports to its session. Unknown agents, subcommands,
 * and configurations agentwrap cannot merge safely get nothing (with a note saying why).
 */
export async function planHooks(input: HookPlanInput): Promise<HookPlan> {
  const agent = basename(input.agent);
  const first = input.args[0];
  if (first !== undefined && HELP_OR_VERSION.includes(first)) return nothing(agent, input.args, undefined);
  const program = input.command === undefined ? agent : basename(input.command);
  if (program !== agent && HOOKED_AGENTS.includes(agent)) {
    return nothing(agent, input.args, `no reporter hooks: ${program} is not ${agent}'s own command, so ${agent}'s hook flags would reach the wrong program`);
  }
  const command = input.reportCommand ?? defaultReportCommand();
  const root = input.tmpRoot ?? tmpdir();
  try {
    switch (agent) {
      case 'claude':
        return planClaude(input, root);
      case 'codex':
        return await planCodex(input, command, root);
      case 'gemini':
        return planSettingsHooks(GEMINI_HOOKS, input, root);
      case 'qwen':
        return planSettingsHooks(QWEN_HOOKS, input, root);
      case 'opencode':
        return await planOpenCode(input);
      default:
        return nothing(agent, input.args, undefined);
    }
  } catch (error) {
    return nothing(agent, input.args, `no reporter hooks for ${agent}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// ── Claude Code ────────────────────────────────────────────────────────────────────────────


/** The shell line of one Claude hook: the spool's (hook-spool.ts spoolHookLine). */
export const claudeHookLine = spoolHookLine;

/** The hooks block agentwrap adds: one async command hook per event, spooling the payload on stdin. */
export function claudeHooks(spoolDir: string): Json {
  const hooks: Json = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    hooks[event] = [{ hooks: [{ type: 'command', command: claudeHookLine(spoolDir, event), async: true, timeout: CLAUDE_HOOK_TIMEOUT_S }] }];
  }
  return hooks;
}

/** The user's settings with agentwrap's hooks appended to each event's list (theirs first). */
export const mergeClaudeSettings = appendHooks;

function planClaude(input: HookPlanInput, root: string): HookPlan {
  const first = input.args[0];
  if (first !== undefined && CLAUDE_SUBCOMMANDS.includes(first)) return nothing('claude', input.args, undefined);
  // A --settings of the user's own: merge ours into it and pass the merged file in its place.
  const args = [...input.args];
  let userSettings: Json = {};
  let at = -1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (arg === '--settings' || arg.startsWith('--settings=')) at = i;
  }
  if (at !== -1) {
    const arg = args[at] ?? '';
    const value = arg === '--settings' ? args[at + 1] : arg.slice('--settings='.length);
    if (value === undefined) return nothing('claude', input.args, undefined);
    let text: string;
    try {
      text = value.trimStart().startsWith('{') ? value : readRegularTextFileSync(value, CONFIG_FILE_MAX_BYTES);
    } catch (error) {
      return nothing('claude', input.args, `no reporter hooks for claude: --settings ${value}: ${describeReadFailure(error)}`);
    }
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) return nothing('claude', input.args, 'no reporter hooks for claude: --settings is not a JSON object');
    userSettings = parsed;
    args.splice(at, arg === '--settings' ? 2 : 1);
  }
  const temp = privateDir(root);
  const file = join(temp.dir, 'claude-settings.json');
  const spoolDir = makeSpoolDir(temp);
  writeFileSync(file, `${JSON.stringify(mergeClaudeSettings(userSettings, claudeHooks(spoolDir)), null, 2)}\n`, { mode: 0o600 });
  return spooledPlan({
    agent: 'claude',
    source: 'claude-hooks',
    args: ['--settings', file, ...args],
    env: {},
    events: CLAUDE_HOOK_EVENTS,
    note: at === -1 ? undefined : 'claude: your --settings was merged with agentwrap\'s hooks',
    temp,
    spoolDir,
  });
}

// ── OpenCode ───────────────────────────────────────────────────────────────────────────────

/** OpenCode's subcommands (1.18): only the default command, the TUI, gets a reporter. */
const OPENCODE_SUBCOMMANDS: readonly string[] = [
  'completion', 'acp', 'mcp', 'attach', 'run', 'debug', 'providers', 'auth', 'agent', 'upgrade', 'uninstall', 'serve', 'web', 'models',
  'stats', 'export', 'import', 'github', 'pr', 'session', 'plugin', 'plug', 'db',
];

/** TUI options that take a value (so the value is not read as a subcommand or project). */
const OPENCODE_VALUE_OPTIONS: readonly string[] = ['--log-level', '--port', '--hostname', '--mdns-domain', '--cors', '-m', '--model', '-s', '--session', '--prompt', '--agent', '--replay-limit'];

/** OpenCode's minimal interface, which has no server to follow. */
const OPENCODE_NO_SERVER_OPTIONS: readonly string[] = ['--mini'];

/** Where the server the user asked OpenCode for listens, as agentwrap connects to it. */
export interface OpenCodeServer {
  readonly host: string;
  readonly port: number;
}

/** Hostnames that mean "this machine" for a connection (a wildcard bind is reached on loopback). */
const LOOPBACK_FOR: readonly string[] = ['127.0.0.1', 'localhost', '0.0.0.0', '::', '[::]', '::1', '[::1]'];

/**
 * The server the user's own arguments start (`--port N`, N > 0, on loopback or a wildcard), or
 * a reason there is none to follow: a subcommand or `--mini` ('' : nothing to say), no `--port`
 * (undefined reason: the default, said in docs/reporter.md), a random port (`--port 0`) or a
 * host elsewhere (said at exit).
 */
export function usersOpenCodeServer(args: readonly string[]): OpenCodeServer | { readonly reason: string | undefined } {
  let port: number | undefined;
  let host = '127.0.0.1';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [option = arg, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (OPENCODE_NO_SERVER_OPTIONS.includes(option)) return { reason: '' };
    if (arg.startsWith('-')) {
      const value = inline ?? (OPENCODE_VALUE_OPTIONS.includes(option) ? args[++i] : undefined);
      if (option === '--port') port = Number(value);
      if (option === '--hostname' && value !== undefined) host = value;
      continue;
    }
    // The first positional: a subcommand (no TUI, nothing to report) or the project folder.
    if (OPENCODE_SUBCOMMANDS.includes(arg)) return { reason: '' };
    break;
  }
  if (port === undefined) return { reason: undefined };
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return { reason: 'opencode: its server has no fixed --port, so agentwrap follows no event stream (its state comes from the screen only)' };
  if (!LOOPBACK_FOR.includes(host)) return { reason: `opencode: its server listens on ${host}, not on this machine's loopback, so agentwrap follows no event stream (its state comes from the screen only)` };
  return { host: '127.0.0.1', port };
}

/** One report's round trip to the session's socket, at most (as for `agentwrap report`). */
const OPENCODE_REPORT_TIMEOUT_MS = 300;

/** The Basic credentials OpenCode's server checks (OPENCODE_SERVER_USERNAME defaults to "opencode"). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** What `status explain` says of an OpenCode session without the event stream. */
export const OPENCODE_ABSENCE =
  "none: agentwrap starts no OpenCode server (it would hold OpenCode's first screen until its worker loads), so its state comes from the screen; start OpenCode with --port N and agentwrap follows that server's events";

/**
 * OpenCode: nothing is added. A server of agentwrap's (`--port`) would hold OpenCode's first
 * screen until its worker has loaded (OpenCode 1.18 starts the server before it draws: +2.6 s
 * in a quiet tmux pane, +5 to +15 s on a loaded machine, measured in docs/reporter.md), and a
 * plugin holds it for a network install. When the user starts OpenCode's server themselves
 * (`--port N`), agentwrap follows that server's `/event` stream, with their
 * OPENCODE_SERVER_PASSWORD if they set one.
 */
async function planOpenCode(input: HookPlanInput): Promise<HookPlan> {
  const server = usersOpenCodeServer(input.args);
  if ('reason' in server) return { ...nothing('opencode', input.args, server.reason === '' ? undefined : server.reason), absence: OPENCODE_ABSENCE };
  const [{ followOpenCodeEvents, OPENCODE_LIFECYCLE_EVENTS, OPENCODE_STREAM_EVENTS }, { requestControl }] = await Promise.all([
    import('./opencode-events.js'),
    import('../control/client.js'),
  ]);
  const password = input.env['OPENCODE_SERVER_PASSWORD'];
  const username = input.env['OPENCODE_SERVER_USERNAME'] ?? 'opencode';
  const url = `http://${server.host}:${server.port}`;
  let following: Following | undefined;
  return {
    agent: 'opencode',
    installed: true,
    args: input.args,
    env: {},
    events: [...OPENCODE_LIFECYCLE_EVENTS, ...OPENCODE_STREAM_EVENTS],
    note: undefined,
    start: ({ controlPath, warn }) => {
      if (controlPath === undefined || following !== undefined) return;
      following = followOpenCodeEvents({
        url,
        ...(password === undefined || password === '' ? {} : { authorization: basicAuthorization(username, password) }),
        deliver: (params) => requestControl(controlPath, { method: 'report', params }, OPENCODE_REPORT_TIMEOUT_MS),
        warn,
      });
    },
    end: () => following?.stop(),
    dispose: () => following?.stop(),
  };
}
