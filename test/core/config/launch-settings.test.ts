import { describe, expect, it } from 'vitest';
import { EMPTY_CONFIG, type UserConfig } from '../../../src/core/config/schema.js';
import { formatSource, resolveLaunchSettings, resolveStateDirSetting, type LaunchFlagInput } from '../../../src/core/config/launch-settings.js';

const PATH = '/h/.config/agentwrap/config.toml';
const NO_FLAGS: LaunchFlagInput = { record: undefined, recordInput: false, noRecord: false, notify: undefined, onState: undefined, hooks: undefined };

function config(overrides: Partial<UserConfig>): { path: string; config: UserConfig } {
  return { path: PATH, config: { ...EMPTY_CONFIG, ...overrides } };
}

const FULL = config({
  notify: { value: true, line: 1 },
  onState: { value: 'say hi', line: 2 },
  recordDir: { value: '/h/rec', line: 3 },
  recordKeep: { value: 7, line: 4 },
  hooks: { claude: { value: false, line: 6 } },
});

describe('resolveLaunchSettings', () => {
  it('built-in defaults without a config: no notify, no command, hooks on, no recording', () => {
    const settings = resolveLaunchSettings(NO_FLAGS, { path: undefined, config: EMPTY_CONFIG }, 'claude');

    expect(settings).toEqual({
      notify: { value: false, source: { kind: 'default' } },
      onState: { value: undefined, source: { kind: 'default' } },
      notifyUrl: { value: undefined, source: { kind: 'default' } },
      hooks: { value: true, source: { kind: 'default' } },
      record: { value: { kind: 'off' }, source: { kind: 'default' } },
    });
  });

  it('the config sets the defaults, each naming its line', () => {
    const settings = resolveLaunchSettings(NO_FLAGS, FULL, 'claude');

    expect(settings.notify).toEqual({ value: true, source: { kind: 'config', path: PATH, line: 1 } });
    expect(settings.onState.value).toBe('say hi');
    expect(settings.hooks).toEqual({ value: false, source: { kind: 'config', path: PATH, line: 6 } });
    expect(settings.record).toEqual({ value: { kind: 'dir', dir: '/h/rec', keep: 7 }, source: { kind: 'config', path: PATH, line: 3 } });
  });

  it('hooks are off by default for Gemini CLI and Qwen Code, whose hooks show on their screen, and on for the others', () => {
    const none = { ...FULL, config: { ...FULL.config, hooks: {} } };

    expect(['claude', 'codex', 'opencode', 'gemini', 'qwen'].map((agent) => resolveLaunchSettings(NO_FLAGS, none, agent).hooks.value)).toEqual([true, true, true, false, false]);
    expect(resolveLaunchSettings({ ...NO_FLAGS, hooks: true }, none, 'gemini').hooks).toEqual({ value: true, source: { kind: 'flag', flag: '--hooks' } });
  });

  it('hooks in the config apply only to the agent they name', () => {
    expect(resolveLaunchSettings(NO_FLAGS, FULL, 'codex').hooks).toEqual({ value: true, source: { kind: 'default' } });
  });

  it('every flag wins over the config', () => {
    const flags: LaunchFlagInput = { record: 'x.cast', recordInput: true, noRecord: false, notify: false, onState: 'other', hooks: true };

    const settings = resolveLaunchSettings(flags, FULL, 'claude');

    expect(settings.notify).toEqual({ value: false, source: { kind: 'flag', flag: '--no-notify' } });
    expect(settings.onState).toEqual({ value: 'other', source: { kind: 'flag', flag: '--on-state' } });
    expect(settings.hooks).toEqual({ value: true, source: { kind: 'flag', flag: '--hooks' } });
    expect(settings.record.value).toEqual({ kind: 'file', path: 'x.cast', withInput: true });
  });

  it('--no-record turns the config\'s record_dir off for one run', () => {
    expect(resolveLaunchSettings({ ...NO_FLAGS, noRecord: true }, FULL, 'claude').record).toEqual({ value: { kind: 'off' }, source: { kind: 'flag', flag: '--no-record' } });
  });

  it('record_dir without record_keep keeps the default number', () => {
    const settings = resolveLaunchSettings(NO_FLAGS, config({ recordDir: { value: '/r', line: 1 } }), 'x');

    expect(settings.record.value).toEqual({ kind: 'dir', dir: '/r', keep: 50 });
  });
});

describe('resolveStateDirSetting', () => {
  it('AGENT_STATUS_DIR, then state_dir, then the convention default', () => {
    const withDir = config({ stateDir: { value: '/s', line: 2 } });

    expect(resolveStateDirSetting('/env', withDir, '/d')).toEqual({ value: '/env', source: { kind: 'env', name: 'AGENT_STATUS_DIR' } });
    expect(resolveStateDirSetting(undefined, withDir, '/d')).toEqual({ value: '/s', source: { kind: 'config', path: PATH, line: 2 } });
    expect(resolveStateDirSetting('', config({}), '/d')).toEqual({ value: '/d', source: { kind: 'default' } });
  });
});

describe('formatSource', () => {
  it.each([
    [{ kind: 'flag', flag: '--notify' }, 'flag --notify'],
    [{ kind: 'env', name: 'AGENT_STATUS_DIR' }, '$AGENT_STATUS_DIR'],
    [{ kind: 'config', path: PATH, line: 3 }, `${PATH}:3`],
    [{ kind: 'default' }, 'default'],
  ] as const)('%j → %s', (source, text) => {
    expect(formatSource(source)).toBe(text);
  });
});
