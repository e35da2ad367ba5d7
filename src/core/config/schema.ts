/**
 * The user's config file (`$XDG_CONFIG_HOME/agentwrap/config.toml`): TOML text → validated
 * defaults, or every problem found, each as `FILE:LINE: reason`. Strict the way packs are
 * (core/packs/schema.ts): an unknown key is an error, because a misspelt `notfy = true` would
 * otherwise be silently ignored and the user would wonder why nothing notifies.
 *
 * Every value remembers the line it came from, so `agentwrap doctor` can say where an
 * effective setting was set.
 */
import { editDistance } from '../text/edit-distance.js';
import { describeTomlSyntaxError } from '../packs/toml-syntax.js';
import { parse, TomlError } from 'smol-toml';

/** Agents agentwrap installs reporter hooks for (app/reporters/hooks.ts planHooks); `[hooks]` keys. */
export const HOOK_AGENTS: readonly string[] = ['claude', 'codex', 'gemini', 'opencode', 'qwen'];


/** A config file bigger than this is refused, not parsed: a real one is a few lines. */
export const MAX_CONFIG_BYTES = 64 * 1024;

export { DEFAULT_RECORD_KEEP, EMPTY_CONFIG, type Sourced, type UserConfig } from './values.js';
import { DEFAULT_RECORD_KEEP } from './values.js';
import type { Sourced, UserConfig } from './values.js';

/** One problem in the config file, printed `FILE:LINE: reason`. */
export interface ConfigIssue {
  readonly path: string;
  readonly line: number | undefined;
  readonly message: string;
}

export type ConfigParseResult =
  | { readonly kind: 'ok'; readonly config: UserConfig }
  | { readonly kind: 'invalid'; readonly errors: readonly ConfigIssue[] };

export function formatConfigIssue(issue: ConfigIssue): string {
  return `${issue.line === undefined ? issue.path : `${issue.path}:${issue.line}`}: ${issue.message}`;
}

const TOP_KEYS = ['notify', 'on_state', 'notify_url', 'state_dir', 'record_dir', 'record_keep', 'hooks'] as const;

/** A webhook URL longer than this is refused: real ones (Slack, ntfy) are under 200 characters. */
export const MAX_NOTIFY_URL_CHARS = 2048;

/** Why `value` cannot be the webhook (`notify_url`), or undefined when it can: an absolute http(s) URL with a host. */
export function notifyUrlProblem(value: string): string | undefined {
  if (value.length > MAX_NOTIFY_URL_CHARS) return `notify_url is ${value.length} characters, more than the limit of ${MAX_NOTIFY_URL_CHARS}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'notify_url is not a URL (write it in full: https://ntfy.sh/your-topic)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `notify_url must be an http:// or https:// URL, got ${url.protocol.slice(0, 20)}`;
  if (url.hostname === '') return 'notify_url names no host';
  return undefined;
}

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a float';
  return `a ${typeof value}`;
}

function unknownKey(key: string, known: readonly string[], what: string): string {
  const close = known.find((k) => editDistance(key, k) <= 2);
  return `unknown ${what} "${key}" (${close === undefined ? `known: ${known.join(', ')}` : `did you mean "${close}"?`})`;
}

/**
 * Lines of keys, by table: smol-toml gives positions only for syntax errors, so a semantic
 * error finds its line by looking for `key =` (or `table.key =`) in the right table.
 */
class KeyLines {
  private readonly lines: readonly string[];
  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
  }

  /** The line of `key` at top level (table undefined) or inside `[table]`. */
  find(key: string, table?: string): number | undefined {
    const quoted = `(?:${escapeRegExp(key)}|"${escapeRegExp(key)}"|'${escapeRegExp(key)}')`;
    const plain = new RegExp(`^\\s*${quoted}\\s*[=.]`);
    const dotted = table === undefined ? undefined : new RegExp(`^\\s*${escapeRegExp(table)}\\s*\\.\\s*${quoted}\\s*=`);
    const header = table === undefined ? undefined : new RegExp(`^\\s*\\[\\s*${escapeRegExp(table)}\\s*\\]`);
    let current: string | undefined;
    for (const [i, line] of this.lines.entries()) {
      const opened = /^\s*\[\s*([^\]]+?)\s*\]/.exec(line);
      if (opened !== null) {
        current = opened[1];
        if (table === undefined && new RegExp(`^${quoted}$`).test(current ?? '')) return i + 1;
        continue;
      }
      if (table === undefined && current === undefined && plain.test(line)) return i + 1;
      if (table !== undefined && current === table && plain.test(line)) return i + 1;
      if (dotted !== undefined && current === undefined && dotted.test(line)) return i + 1;
    }
    return header === undefined ? undefined : this.lines.findIndex((line) => header.test(line)) + 1 || undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `~/x` → `<home>/x`; an absolute path as is; anything else is refused with a reason. */
function directoryValue(value: string, home: string | undefined): { ok: true; path: string } | { ok: false; reason: string } {
  if (value === '~' || value.startsWith('~/')) {
    if (home === undefined || home === '') return { ok: false, reason: `"${value}" starts with ~ but HOME is not set` };
    return { ok: true, path: `${home.replace(/\/+$/, '')}${value.slice(1)}` };
  }
  if (!value.startsWith('/')) return { ok: false, reason: `"${value}" must be an absolute path or start with ~/` };
  return { ok: true, path: value };
}

/**
 * Parses and validates the config file's text. `home` expands `~/` in directory values.
 * Never throws: every problem is an issue with the file and, where it can be found, the line.
 */
export function parseConfig(text: string, path: string, home: string | undefined): ConfigParseResult {
  const errors: ConfigIssue[] = [];
  const error = (line: number | undefined, message: string): void => {
    errors.push({ path, line, message });
  };
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONFIG_BYTES) {
    error(undefined, `config is ${bytes} bytes, more than the limit of ${MAX_CONFIG_BYTES}`);
    return { kind: 'invalid', errors };
  }
  let doc: Table;
  try {
    doc = parse(text, { unsafeKeyBehaviour: 'throw', maxDepth: 8 });
  } catch (caught) {
    if (caught instanceof TomlError) {
      const problem = describeTomlSyntaxError(caught, text);
      error(problem.line, problem.message);
    } else {
      error(undefined, `TOML could not be parsed: ${caught instanceof Error ? caught.message : String(caught)}`);
    }
    return { kind: 'invalid', errors };
  }
  const lines = new KeyLines(text);
  const at = (key: string): number | undefined => lines.find(key);

  for (const key of Object.keys(doc)) {
    if (!(TOP_KEYS as readonly string[]).includes(key)) error(at(key), unknownKey(key, TOP_KEYS, 'key'));
  }

  const boolean = (key: string): Sourced<boolean> | undefined => {
    const value = doc[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      error(at(key), `${key} must be true or false, got ${typeName(value)}`);
      return undefined;
    }
    return { value, line: at(key) };
  };
  const directory = (key: string): Sourced<string> | undefined => {
    const value = doc[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      error(at(key), `${key} must be a string (a directory), got ${typeName(value)}`);
      return undefined;
    }
    const resolved = directoryValue(value, home);
    if (!resolved.ok) {
      error(at(key), `${key} ${resolved.reason}`);
      return undefined;
    }
    return { value: resolved.path, line: at(key) };
  };

  const notify = boolean('notify');

  let onState: Sourced<string> | undefined;
  const rawOnState = doc['on_state'];
  if (rawOnState !== undefined) {
    if (typeof rawOnState !== 'string') error(at('on_state'), `on_state must be a string (a shell command), got ${typeName(rawOnState)}`);
    else if (rawOnState.trim() === '') error(at('on_state'), 'on_state is empty (leave it out to run nothing)');
    else onState = { value: rawOnState, line: at('on_state') };
  }

  let notifyUrl: Sourced<string> | undefined;
  const rawUrl = doc['notify_url'];
  if (rawUrl !== undefined) {
    const problem = typeof rawUrl === 'string' ? notifyUrlProblem(rawUrl) : `notify_url must be a string (an http:// or https:// URL), got ${typeName(rawUrl)}`;
    if (problem !== undefined) error(at('notify_url'), problem);
    else notifyUrl = { value: rawUrl as string, line: at('notify_url') };
  }

  const stateDir = directory('state_dir');
  const recordDir = directory('record_dir');

  let recordKeep: Sourced<number> | undefined;
  const rawKeep = doc['record_keep'];
  if (rawKeep !== undefined) {
    if (typeof rawKeep !== 'number' || !Number.isInteger(rawKeep) || rawKeep < 1) {
      error(at('record_keep'), `record_keep must be a positive integer (recordings kept), got ${typeName(rawKeep)}${typeof rawKeep === 'number' ? ` ${rawKeep}` : ''}`);
    } else {
      recordKeep = { value: rawKeep, line: at('record_keep') };
      if (doc['record_dir'] === undefined) error(at('record_keep'), 'record_keep without record_dir does nothing (set record_dir too)');
    }
  }

  const hooks: Record<string, Sourced<boolean>> = {};
  const rawHooks = doc['hooks'];
  if (rawHooks !== undefined) {
    if (!isTable(rawHooks)) error(at('hooks'), `hooks must be a table of agent = true|false ([hooks] claude = false), got ${typeName(rawHooks)}`);
    else {
      for (const [agent, value] of Object.entries(rawHooks)) {
        const line = lines.find(agent, 'hooks');
        if (!HOOK_AGENTS.includes(agent)) error(line, `[hooks] names "${agent}", which has no reporter hooks (agentwrap has hooks for ${HOOK_AGENTS.join(', ')})`);
        else if (typeof value !== 'boolean') error(line, `hooks.${agent} must be true or false, got ${typeName(value)}`);
        else hooks[agent] = { value, line };
      }
    }
  }

  if (errors.length > 0) return { kind: 'invalid', errors };
  return { kind: 'ok', config: { notify, onState, notifyUrl, stateDir, recordDir, recordKeep, hooks } };
}
