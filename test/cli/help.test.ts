/**
 * One parser, one help: every command `agentwrap --help` lists answers `--help` (and `-h`) with
 * its own usage on stdout and exit 0, whatever else is on the line; an unknown option is a usage
 * error naming the command. The list comes from `agentwrap --help` itself, so a new command is
 * checked the day it is listed. The commands run in-process (helpers/cli-in-process.ts); the
 * built CLI is run once to show its exit status and output are the same.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
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

/** `  agentwrap status explain <session>|…` → `status explain`: the words before the first argument. */
async function listedCommands(): Promise<string[]> {
  const usage = (await agentwrap(['--help'])).stdout;
  const commands = new Set<string>();
  for (const line of usage.split('\n')) {
    const match = /^ {2}agentwrap (.*)$/.exec(line);
    if (match === null) continue;
    const words: string[] = [];
    for (const word of (match[1] ?? '').split(/\s+/)) {
      if (!/^[a-z][a-z-]*$/.test(word)) break;
      words.push(word);
    }
    if (words.length > 0) commands.add(words.join(' '));
  }
  return [...commands];
}

const COMMANDS = await listedCommands();

describe('--help on every command', () => {
  it('finds the commands in agentwrap --help', () => {
    expect(COMMANDS).toEqual(expect.arrayContaining(['run', 'status', 'status explain', 'status capture', 'ack', 'events', 'report', 'replay', 'eval', 'packs list', 'demo']));
  });

  it.each(COMMANDS)('agentwrap %s --help prints its usage and exits 0', async (command) => {
    const words = command.split(' ');

    const long = await agentwrap([...words, '--help']);
    const short = await agentwrap([...words, '-h']);

    expect(long.status, long.stderr).toBe(0);
    expect(long.stdout).toMatch(new RegExp(`^usage:\\s+agentwrap (\\[options\\] )?${words[0] ?? ''}`));
    expect(short.stdout).toBe(long.stdout);
  });

  it('helps even after a mistake on the same line: status explain --bogus --help', async () => {
    const result = await agentwrap(['status', 'explain', '--bogus', '--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: agentwrap status explain/);
  });

  it('names the command in an unknown-option error', async () => {
    const result = await agentwrap(['status', 'explain', '--bogus']);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("agentwrap: status explain: Unknown option '--bogus'");
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
