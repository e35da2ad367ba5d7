/**
 * One parser, one help: every command `agentwrap --help` lists answers `--help` (and `-h`) with
 * its own usage on stdout and exit 0, whatever else is on the line; an unknown option is a usage
 * error naming the command. The list comes from `agentwrap --help` itself, so a new command is
 * checked the day it is listed. The commands run in-process (helpers/cli-in-process.ts); the
 * built CLI is run once to show its exit status and output are the same.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMANDS as TABLE, commandPaths, findCommand } from '../../src/cli/command-table.js';
import { isHelpAsked, parseCommand } from '../../src/cli/flags.js';
import { UsageError } from '../../src/cli/errors.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';

/** No config file, no state directory: help must not need either. */
const ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/nonexistent', LANG: 'C.UTF-8' };

async function agentwrap(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const result = await runCliInProcess(args, { env: ENV });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** Every command and subcommand of the command table: `status`, `status explain`, … */
const COMMANDS = commandPaths();

/** `--opt` words in a text, e.g. a command's usage. */
function optionsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? ''))].sort();
}

describe('--help on every command of the command table', () => {
  it('the table holds the commands agentwrap --help lists, and --help lists every one', async () => {
    const usage = (await agentwrap(['--help'])).stdout;
    const listed = new Set([...usage.matchAll(/^ {2}agentwrap ([a-z][a-z-]*)/gm)].map((m) => m[1] ?? ''));

    expect([...listed].filter((name) => findCommand([name]) === undefined)).toEqual([]);
    expect(Object.keys(TABLE).filter((name) => !listed.has(name))).toEqual([]);
  });

  it.each(COMMANDS)('agentwrap %s --help prints its usage naming the command and exits 0; -h and help <command> print the same', async (command) => {
    const words = command.split(' ');

    const long = await agentwrap([...words, '--help']);
    const short = await agentwrap([...words, '-h']);
    const help = await agentwrap(['help', ...words]);

    expect(long.status, long.stderr).toBe(0);
    expect(long.stdout).toMatch(/^usage:/);
    expect(long.stdout).toContain(`agentwrap ${command}`);
    expect(short).toEqual(long);
    expect(help).toEqual(long);
  });

  it.each(COMMANDS.filter((c) => c !== 'help' && c !== 'run'))('agentwrap %s --help names exactly the options the table gives it', async (command) => {
    const words = command.split(' ');
    const spec = findCommand(words);
    const usage = (await agentwrap([...words, '--help'])).stdout;
    // A command's usage may name its subcommands' options too (packs: list [--json]).
    const own = Object.keys(spec?.options ?? {}).map((name) => `--${name}`);
    const subs = Object.values(spec?.subcommands ?? {}).flatMap((sub) => Object.keys(sub.options).map((name) => `--${name}`));

    expect(optionsIn(usage).filter((o) => o !== '--help' && !own.includes(o) && !subs.includes(o))).toEqual([]);
    expect(own.filter((o) => !optionsIn(usage).includes(o))).toEqual([]);
  });

  it('agentwrap run --help names exactly the launch options of the table', async () => {
    const usage = (await agentwrap(['run', '--help'])).stdout;

    expect(optionsIn(usage).filter((o) => o !== '--help')).toEqual(Object.keys(TABLE.run.options).map((name) => `--${name}`).sort());
  });

  it('helps even after a mistake on the same line: status explain --bogus --help', async () => {
    const result = await agentwrap(['status', 'explain', '--bogus', '--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: agentwrap status explain/);
  });

  it('names the command in an unknown-option error', async () => {
    const result = await agentwrap(['status', 'explain', '--bogus']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe('agentwrap: status explain: unknown option --bogus (see agentwrap status explain --help)\n');
  });

  it('the built CLI exits with the same codes and output as the in-process runs', async () => {
    ensureBuilt();
    for (const args of [['status', 'explain', '--help'], ['status', 'explain', '--bogus'], []]) {
      const real = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: ENV, timeout: 30_000 });
      const inProcess = await agentwrap(args);

      expect([real.status, real.stdout, real.stderr], args.join(' ')).toEqual([inProcess.status, inProcess.stdout, inProcess.stderr]);
    }
  });
});

describe('parseCommand', () => {
  const SPEC = { name: 'thing', usage: 'usage: agentwrap thing\n', options: { out: { type: 'string' }, json: { type: 'boolean' } } } as const;

  it('returns values and positionals', () => {
    expect(parseCommand(SPEC, ['a', '--out', 'dir', '--json', 'b'])).toEqual({ values: { out: 'dir', json: true }, positionals: ['a', 'b'] });
  });

  it('treats --help after -- as a positional', () => {
    expect(isHelpAsked(['--', '--help'])).toBe(false);
    expect(parseCommand(SPEC, ['--', '--help'])?.positionals).toEqual(['--help']);
  });

  it('throws a UsageError naming the command', () => {
    expect(() => parseCommand(SPEC, ['--nope'])).toThrow(UsageError);
    expect(() => parseCommand(SPEC, ['--nope'])).toThrow(/^thing: /);
  });
});
