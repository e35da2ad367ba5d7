/**
 * The shape of the user's config once validated, and the empty one (no file). Apart from the
 * parser (schema.ts), so a command run without a config file never loads the TOML
 * parser: ~20 ms of start-up on this 2-core machine, for `status` run by a status bar.
 */

/** Recordings kept in `record_dir` when `record_keep` is not set: the newest win. */
export const DEFAULT_RECORD_KEEP = 50;

/** A value from the file and the 1-based line it was set on (undefined when not found). */
export interface Sourced<T> {
  readonly value: T;
  readonly line: number | undefined;
}

export interface UserConfig {
  readonly notify: Sourced<boolean> | undefined;
  readonly onState: Sourced<string> | undefined;
  /** The webhook every published transition is POSTed to: an http(s) URL, checked by the parser. */
  readonly notifyUrl: Sourced<string> | undefined;
  /** Absolute paths (a leading `~/` is expanded with the home given to parseConfig). */
  readonly stateDir: Sourced<string> | undefined;
  readonly recordDir: Sourced<string> | undefined;
  readonly recordKeep: Sourced<number> | undefined;
  /** Per agent: false turns its reporter hooks off, true keeps them on. */
  readonly hooks: Readonly<Record<string, Sourced<boolean>>>;
}

export const EMPTY_CONFIG: UserConfig = {
  notify: undefined,
  onState: undefined,
  notifyUrl: undefined,
  stateDir: undefined,
  recordDir: undefined,
  recordKeep: undefined,
  hooks: {},
};

/**
 * Agents whose hooks are off unless asked for (`[hooks] gemini = true`, `--hooks`): Gemini CLI
 * (and Qwen Code, its fork) draws "Executing Hook: agentwrap" in its status row for every hook
 * run, for seconds, and a wrapper must not change what the agent draws. Its screen rules and
 * the OSC evidence decide without them (docs/reporter.md).
 */
export const HOOKS_OFF_BY_DEFAULT: readonly string[] = ['gemini', 'qwen'];
