import { describe, expect, it } from 'vitest';
import { parseLaunchArgs, type LaunchFlags } from '../../src/cli/argv.js';
import { UsageError } from '../../src/cli/errors.js';

const NO_FLAGS: LaunchFlags = { record: undefined, recordInput: false, pack: undefined, notify: undefined, onState: undefined, hooks: undefined, noRecord: false };

describe('parseLaunchArgs, agent form', () => {
  it.each([
    [['claude'], 'claude', [], {}],
    [['claude', '--resume', 'x'], 'claude', ['--resume', 'x'], {}],
    [['claude', '--record', 'f.cast', '--help', '--'], 'claude', ['--record', 'f.cast', '--help', '--'], {}],
    [['--record', 'a.cast', 'codex', 'exec'], 'codex', ['exec'], { record: 'a.cast' }],
    [['--record=a.cast', '--record-input', 'codex'], 'codex', [], { record: 'a.cast', recordInput: true }],
    [['--pack', 'claude', '--notify', '--no-hooks', 'my-claude'], 'my-claude', [], { pack: 'claude', notify: true, hooks: false }],
    [['--on-state', 'notify-send hi', 'opencode'], 'opencode', [], { onState: 'notify-send hi' }],
    [['--no-notify', '--hooks', '--no-record', 'claude'], 'claude', [], { notify: false, hooks: true, noRecord: true }],
    [['--', '--weird-agent', '-x'], '--weird-agent', ['-x'], {}],
    [['./bin/agent', '-'], './bin/agent', ['-'], {}],
  ] as const)('%j → %s %j', (argv, command, args, flags) => {
    expect(parseLaunchArgs('agent', argv)).toEqual({ kind: 'launch', form: 'agent', command, args, flags: { ...NO_FLAGS, ...flags } });
  });

  it('asks for help only before the agent name', () => {
    expect(parseLaunchArgs('agent', ['--notify', '--help'])).toEqual({ kind: 'help', form: 'agent' });
    expect(parseLaunchArgs('agent', ['claude', '--help'])).toMatchObject({ kind: 'launch', args: ['--help'] });
  });
});

describe('parseLaunchArgs, run form', () => {
  it.each([
    [['--', 'vim', 'file'], 'vim', ['file'], {}],
    [['--record', 'x.cast', '--', 'sh', '-c', 'exit 7'], 'sh', ['-c', 'exit 7'], { record: 'x.cast' }],
    [['--', 'cmd', '--', '--record'], 'cmd', ['--', '--record'], {}],
    [['vim', '-u', 'NONE'], 'vim', ['-u', 'NONE'], {}],
  ] as const)('%j → %s %j', (argv, command, args, flags) => {
    expect(parseLaunchArgs('run', argv)).toEqual({ kind: 'launch', form: 'run', command, args, flags: { ...NO_FLAGS, ...flags } });
  });
});

describe('parseLaunchArgs mistakes', () => {
  it.each([
    ['agent', [], /no agent given/],
    ['run', [], /run: no command given/],
    ['run', ['--'], /run: no command given after --/],
    ['agent', ['--record'], /--record needs a value/],
    ['agent', ['--record=', 'claude'], /--record needs a non-empty value/],
    ['agent', ['--record', 'a', '--record', 'b', 'claude'], /--record given twice/],
    ['agent', ['--notify', '--notify', 'claude'], /--notify given twice/],
    ['agent', ['--notify=yes', 'claude'], /--notify takes no value/],
    ['agent', ['--record-input', 'claude'], /--record-input needs --record FILE/],
    ['agent', ['--notify', '--no-notify', 'claude'], /--notify and --no-notify contradict each other/],
    ['agent', ['--no-hooks', '--hooks', 'claude'], /--hooks and --no-hooks contradict/],
    ['agent', ['--record', 'a.cast', '--no-record', 'claude'], /--record and --no-record contradict/],
    ['agent', ['--verbose', 'claude'], /unknown option --verbose: .*before the agent name/],
    ['agent', ['--recrod', 'x.cast', 'claude'], /unknown option --recrod; did you mean --record\?/],
    ['run', ['-x', '--', 'vim'], /unknown option -x: .*before the command/],
    ['agent', ['--', ''], /the agent name is empty/],
  ] as const)('%s %j is a usage error: %s', (form, argv, message) => {
    expect(() => parseLaunchArgs(form, argv)).toThrow(UsageError);
    expect(() => parseLaunchArgs(form, argv)).toThrow(message);
  });
});
