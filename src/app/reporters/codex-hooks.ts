/**
 * Codex's reporter for one run, all on its command line (`-c key=value` overrides, its
 * session-flags config layer; nothing is written to `~/.codex`):
 *
 * - `-c notify=[…]`: `agentwrap report notify … --json <event JSON>` on agent-turn-complete
 *   (identity: `thread-id`), unless the user has a notify program of their own (Codex runs one);
 * - `-c hooks.<Event>=[…]` on SessionStart, UserPromptSubmit, PermissionRequest, PostToolUse and
 *   Stop: an `async` command hook (Codex starts it and does not wait, and draws nothing for it)
 *   whose shell line writes the payload into the launch's spool (hook-spool.ts);
 * - `-c hooks.state={…}`: each of those hooks' trust for this run. Codex 0.171 runs a hook that
 *   is not managed only when its definition's hash is recorded as trusted; it reads trust from
 *   the user's config and from the session flags alike, keyed by where the hook was declared
 *   (`/<session-flags>/config.toml:<event>:<group>:<handler>`). So agentwrap trusts exactly its
 *   own hooks, for this run, and no hook of the user's is trusted or untrusted by it. An
 *   untrusted hook is skipped without a word, so a hash Codex computes otherwise (a new
 *   release) costs the reports, never the agent.
 */
import { sha256Hex } from '../../adapters/crypto-on-demand.js';
import { readRegularTextFileSync } from '../../adapters/bounded-file.js';
import { CONFIG_FILE_MAX_BYTES } from '../../core/input-bounds.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { spoolHookLine } from './hook-spool.js';
import { makeSpoolDir, nothing, privateDir, spooledPlan, type HookPlan, type HookPlanInput } from './hook-plan.js';

/** Codex subcommands without a turn to report (resume/fork/exec do have turns and keep the hooks). */
export const CODEX_SUBCOMMANDS: readonly string[] = [
  'login', 'logout', 'mcp', 'mcp-server', 'plugin', 'app-server', 'remote-control', 'completion', 'update', 'doctor', 'sandbox',
  'debug', 'apply', 'a', 'cloud', 'exec-server', 'features', 'help', 'archive', 'delete', 'unarchive', 'migrate-rollouts', 'migrate-nfs-db', 'queue',
];

/** The Codex hook events agentwrap listens to, with the label Codex keys their trust by. */
export const CODEX_HOOK_EVENTS: Readonly<Record<string, string>> = {
  SessionStart: 'session_start',
  UserPromptSubmit: 'user_prompt_submit',
  PermissionRequest: 'permission_request',
  PostToolUse: 'post_tool_use',
  Stop: 'stop',
};

/** Seconds Codex allows one of our hooks (they take a few milliseconds, and run detached anyway). */
const CODEX_HOOK_TIMEOUT_S = 5;

/** Where Codex says a `-c` hook was declared (its session-flags layer), the first part of its trust key. */
const SESSION_FLAGS_SOURCE = '/<session-flags>/config.toml';

/** A TOML array of basic strings (JSON string escapes are valid TOML basic-string escapes). */
function tomlArray(words: readonly string[]): string {
  return `[${words.map((word) => JSON.stringify(word)).join(',')}]`;
}

/** A line of a TOML file that may set a key `notify` (bare or quoted), wherever it is. */
const MAY_SET_NOTIFY = /^[ \t]*(?:notify|"notify"|'notify')[ \t]*=/m;

/** Whether the user's Codex config sets `notify` (then theirs stays, and agentwrap adds none). */
export async function codexUserNotify(env: NodeJS.ProcessEnv, home: string = homedir()): Promise<boolean> {
  const codexHome = env['CODEX_HOME'] !== undefined && env['CODEX_HOME'] !== '' ? env['CODEX_HOME'] : join(home, '.codex');
  let text: string;
  try {
    // Regular files only, without blocking (a FIFO planted there must not hang the launch), capped.
    text = readRegularTextFileSync(join(codexHome, 'config.toml'), CONFIG_FILE_MAX_BYTES);
  } catch (error) {
    // No config file (or unreadable): there is no notify of the user's to keep.
    void error;
    return false;
  }
  // No line that could set it: no notify, without loading the TOML parser (~15 ms of CPU
  // before the spawn, the time Codex's first screen waited for it: a Codex home usually has a
  // config.toml, for its model and provider). A `notify` inside a table is ruled out by the parse.
  if (!MAY_SET_NOTIFY.test(text)) return false;
  try {
    const { parse } = await import('smol-toml');
    return parse(text)['notify'] !== undefined;
  } catch (error) {
    // Codex itself will complain about a broken config; assume a notify may be in it and keep out.
    void error;
    return true;
  }
}

/** One of our hook definitions, as Codex reads it from `hooks.<Event>` (one group, one handler). */
export interface CodexHook {
  readonly type: 'command';
  readonly command: string;
  readonly timeout: number;
  readonly async: boolean;
}

export function codexHook(spoolDir: string, event: string): CodexHook {
  return { type: 'command', command: spoolHookLine(spoolDir, event), timeout: CODEX_HOOK_TIMEOUT_S, async: true };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonical(inner)]));
  }
  return value;
}

/**
 * The hash Codex 0.171 trusts a command hook by: sha256 of the compact JSON, keys sorted, of the
 * event's label and the hook's group with only this handler (no matcher: ours have none). Checked
 * against the `currentHash` Codex's own `hooks/list` reports for the same definition.
 */
export function codexHookHash(label: string, hook: CodexHook): string {
  const identity = { event_name: label, hooks: [hook] };
  return `sha256:${sha256Hex(JSON.stringify(canonical(identity)))}`;
}

/** The `-c` overrides that declare our hooks and trust them for this run. */
export function codexHookOverrides(spoolDir: string): string[] {
  const overrides: string[] = [];
  const trust: string[] = [];
  for (const [event, label] of Object.entries(CODEX_HOOK_EVENTS)) {
    const hook = codexHook(spoolDir, event);
    overrides.push('-c', `hooks.${event}=[{hooks=[{type="command",command=${JSON.stringify(hook.command)},timeout=${hook.timeout},async=true}]}]`);
    trust.push(`${JSON.stringify(`${SESSION_FLAGS_SOURCE}:${label}:0:0`)}={trusted_hash=${JSON.stringify(codexHookHash(label, hook))}}`);
  }
  return [...overrides, '-c', `hooks.state={${trust.join(',')}}`];
}

/** Whether the user's arguments set a config key `key` (or one under it) with -c/--config. */
function overrides(args: readonly string[], key: string): boolean {
  const pattern = new RegExp(`^${key}(?:\\.|\\s*=)`);
  return args.some((arg, i) => {
    if (arg.startsWith('--config=')) return pattern.test(arg.slice('--config='.length));
    return pattern.test(arg) && (args[i - 1] === '-c' || args[i - 1] === '--config');
  });
}

export async function planCodex(input: HookPlanInput, command: readonly string[], root: string): Promise<HookPlan> {
  const first = input.args[0];
  if (first !== undefined && CODEX_SUBCOMMANDS.includes(first)) return nothing('codex', input.args, undefined);
  const notes: string[] = [];
  const added: string[] = [];
  const events: string[] = [];
  if (overrides(input.args, 'notify') || (await codexUserNotify(input.env))) {
    notes.push('codex: your own notify program is configured; agentwrap adds no notify (Codex runs only one)');
  } else {
    // Codex appends the event JSON as the last argument, which lands after --json.
    const notify = [...command, 'report', 'notify', '--agent', 'codex', '--source', 'codex-notify', '--json'];
    added.push('-c', `notify=${tomlArray(notify)}`);
    events.push('notify (agent-turn-complete)');
  }
  if (overrides(input.args, 'hooks')) {
    // Our groups would share the session-flags layer with theirs, and trust is keyed by position there.
    notes.push('codex: your -c hooks… override is kept; agentwrap adds no hooks of its own beside it');
    if (added.length === 0) return nothing('codex', input.args, notes.join('; '));
    return { ...nothing('codex', input.args, notes.join('; ')), installed: true, args: [...added, ...input.args], events };
  }
  const temp = privateDir(root);
  const spoolDir = makeSpoolDir(temp);
  return spooledPlan({
    agent: 'codex',
    source: 'codex-hooks',
    args: [...added, ...codexHookOverrides(spoolDir), ...input.args],
    env: {},
    events: [...events, ...Object.keys(CODEX_HOOK_EVENTS)],
    note: notes.length === 0 ? undefined : notes.join('; '),
    temp,
    spoolDir,
  });
}
