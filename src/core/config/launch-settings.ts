/**
 * The effective settings of one launch, each with where it came from: a flag wins over the
 * config file, the config file over the built-in default. One function decides this for the
 * launcher and for `agentwrap doctor`, so what doctor shows is what a launch does.
 */
// config-values, not config-schema: the launch path must not load the TOML parser (no config file, no parser).
import { DEFAULT_RECORD_KEEP, HOOKS_OFF_BY_DEFAULT, type Sourced, type UserConfig } from './values.js';

export type SettingSource =
  | { readonly kind: 'flag'; readonly flag: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'config'; readonly path: string; readonly line: number | undefined }
  | { readonly kind: 'default' };

export interface Setting<T> {
  readonly value: T;
  readonly source: SettingSource;
}

/** The config file as loaded: its path, and its values (empty when absent or broken). */
export interface ConfigSnapshot {
  readonly path: string | undefined;
  readonly config: UserConfig;
}

/** The launch flags this resolution reads (cli/argv.ts LaunchFlags has them all). */
export interface LaunchFlagInput {
  readonly record: string | undefined;
  readonly recordInput: boolean;
  readonly noRecord: boolean;
  readonly notify: boolean | undefined;
  readonly onState: string | undefined;
  readonly hooks: boolean | undefined;
}

export type RecordPlan =
  | { readonly kind: 'off' }
  | { readonly kind: 'file'; readonly path: string; readonly withInput: boolean }
  /** Record into a fresh file in `dir`, keeping the newest `keep` recordings there. */
  | { readonly kind: 'dir'; readonly dir: string; readonly keep: number };

export interface LaunchSettings {
  readonly notify: Setting<boolean>;
  readonly onState: Setting<string | undefined>;
  /** `notify_url`, from the config file only (a URL often holds a secret: not on a command line). */
  readonly notifyUrl: Setting<string | undefined>;
  readonly hooks: Setting<boolean>;
  readonly record: Setting<RecordPlan>;
}

const DEFAULT: SettingSource = { kind: 'default' };

function fromConfig<T>(snapshot: ConfigSnapshot, sourced: Sourced<T> | undefined): Setting<T> | undefined {
  if (sourced === undefined || snapshot.path === undefined) return undefined;
  return { value: sourced.value, source: { kind: 'config', path: snapshot.path, line: sourced.line } };
}

/** `agent` is the pack agent (`--pack`, else the command's basename): it selects `[hooks]`. */
export function resolveLaunchSettings(flags: LaunchFlagInput, snapshot: ConfigSnapshot, agent: string): LaunchSettings {
  const { config } = snapshot;
  const notify: Setting<boolean> =
    flags.notify !== undefined
      ? { value: flags.notify, source: { kind: 'flag', flag: flags.notify ? '--notify' : '--no-notify' } }
      : (fromConfig(snapshot, config.notify) ?? { value: false, source: DEFAULT });
  const onState: Setting<string | undefined> =
    flags.onState !== undefined
      ? { value: flags.onState, source: { kind: 'flag', flag: '--on-state' } }
      : (fromConfig(snapshot, config.onState) ?? { value: undefined, source: DEFAULT });
  const hooks: Setting<boolean> =
    flags.hooks !== undefined
      ? { value: flags.hooks, source: { kind: 'flag', flag: flags.hooks ? '--hooks' : '--no-hooks' } }
      : (fromConfig(snapshot, config.hooks[agent]) ?? { value: !HOOKS_OFF_BY_DEFAULT.includes(agent), source: DEFAULT });
  const notifyUrl = fromConfig(snapshot, config.notifyUrl) ?? { value: undefined, source: DEFAULT };
  return { notify, onState, notifyUrl, hooks, record: resolveRecord(flags, snapshot) };
}

function resolveRecord(flags: LaunchFlagInput, snapshot: ConfigSnapshot): Setting<RecordPlan> {
  if (flags.record !== undefined) {
    return { value: { kind: 'file', path: flags.record, withInput: flags.recordInput }, source: { kind: 'flag', flag: '--record' } };
  }
  if (flags.noRecord) return { value: { kind: 'off' }, source: { kind: 'flag', flag: '--no-record' } };
  const dir = fromConfig(snapshot, snapshot.config.recordDir);
  if (dir === undefined) return { value: { kind: 'off' }, source: DEFAULT };
  return { value: { kind: 'dir', dir: dir.value, keep: snapshot.config.recordKeep?.value ?? DEFAULT_RECORD_KEEP }, source: dir.source };
}

/**
 * The state directory: $AGENT_STATUS_DIR when set (the convention's own override, so every
 * reader agrees), else the config's `state_dir`, else the convention's default (given).
 */
export function resolveStateDirSetting(explicit: string | undefined, snapshot: ConfigSnapshot, conventionDefault: string): Setting<string> {
  if (explicit !== undefined && explicit !== '') return { value: explicit, source: { kind: 'env', name: 'AGENT_STATUS_DIR' } };
  return fromConfig(snapshot, snapshot.config.stateDir) ?? { value: conventionDefault, source: DEFAULT };
}

export function formatSource(source: SettingSource): string {
  switch (source.kind) {
    case 'flag':
      return `flag ${source.flag}`;
    case 'env':
      return `$${source.name}`;
    case 'config':
      return `${source.path}${source.line === undefined ? '' : `:${source.line}`}`;
    case 'default':
      return 'default';
    default: {
      const never: never = source;
      return never;
    }
  }
}
