/**
 * Every mistake on the command line is agentwrap's own single line with one hint, never
 * node:util's parser text (docs/launcher.md "Mistakes"): an unknown option or subcommand gets a
 * did-you-mean when one is close, a word typed where an agent goes that is close to a command
 * gets one too, and a word that is neither a command nor on PATH says command not found. The
 * commands run in-process (helpers/cli-in-process.ts) with an empty state directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-usage-'));
const ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(dir, 'home'), AGENT_STATUS_DIR: join(dir, 'state'), LANG: 'C.UTF-8' };

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function agentwrap(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, { env: ENV });
}

/** What node:util parseArgs says in its own errors; none of it may reach the user. */
const PARSER_TEXT = /Unknown option '|ambiguous|To specify|Did you forget|place it at the end|ERR_PARSE_ARGS/;

describe('usage errors: one line, one hint', () => {
  it.each([
    [['status', '--jsno'], 'agentwrap: status: unknown option --jsno; did you mean --json? (see agentwrap status --help)'],
    [['status', '--host', '-oProxyCommand=x'], 'agentwrap: --host: "-oProxyCommand=x" is not a host name (see agentwrap status --help)'],
    [['events', '--host', '-oProxyCommand=x'], 'agentwrap: --host: "-oProxyCommand=x" is not a host name (see agentwrap events --help)'],
    [['ack'], 'agentwrap: ack needs a session (see agentwrap status)'],
    [['status', 'explain'], 'agentwrap: status explain needs a session, or --file SCREEN.txt with --agent AGENT or --pack FILE (see agentwrap status)'],
    [['status', 'explian'], 'agentwrap: status: unexpected argument explian; did you mean status explain? (see agentwrap status --help)'],
    [['status', 'explain', '--fiel', 'x'], 'agentwrap: status explain: unknown option --fiel; did you mean --file? (see agentwrap status explain --help)'],
    [['status', '--json=yes'], 'agentwrap: status: --json takes no value (see agentwrap status --help)'],
    [['replay', 'x.cast', '--out', '--json'], 'agentwrap: replay: --out needs a value, not the option --json (see agentwrap replay --help)'],
    [['packs'], 'agentwrap: packs needs a subcommand: list, lint or test (see agentwrap packs --help)'],
    [['packs', 'lsit'], 'agentwrap: packs: unknown subcommand lsit; did you mean packs list? (see agentwrap packs --help)'],
    [['help', 'staus'], 'agentwrap: help: no command "staus"; did you mean status? (see agentwrap --help)'],
    [['--recrod', 'x.cast', 'claude'], 'agentwrap: unknown option --recrod; did you mean --record? (see agentwrap --help)'],
    [['--record', 'x.cast', 'status'], 'agentwrap: status: unknown option --record (see agentwrap status --help)'],
    [['run'], 'agentwrap: run: no command given (see agentwrap run --help)'],
    [['demo', '--speed', 'fast'], 'agentwrap: demo: --speed wants a number, got "fast" (see agentwrap demo --help)'],
  ])('agentwrap %j', async (args, line) => {
    const result = await agentwrap(args);

    expect(result.stderr).toBe(`${line}\n`);
    expect(result.code).toBe(2);
  });

  it('a mistyped command gets a did-you-mean; exit 127 as for any command not found', async () => {
    const result = await agentwrap(['staus']);

    expect(result.stderr).toBe('agentwrap: staus: command not found; did you mean agentwrap status?\n');
    expect(result.code).toBe(127);
  });

  it('a word close to no command and not on PATH says command not found, with one hint', async () => {
    const result = await agentwrap(['no-such-agent-xyz', '--flag']);

    expect(result.stderr).toBe('agentwrap: no-such-agent-xyz: command not found (not on PATH, and not an agentwrap command: see agentwrap --help)\n');
    expect(result.code).toBe(127);
  });

  it('never prints the parser\'s own text, whatever the mistake', async () => {
    const lines: string[] = [];
    for (const args of [['status', '--host'], ['status', '-x'], ['eval', '--report'], ['dashboard', '--port'], ['report-metadata', 'a=b', '--ttl-ms'], ['status', 'capture', '--out'], ['doctor', '--jsn']]) {
      const result = await agentwrap(args);
      lines.push(result.stderr);
      expect(result.code, args.join(' ')).toBe(2);
    }

    for (const stderr of lines) {
      expect(stderr).not.toMatch(PARSER_TEXT);
      expect(stderr.split('\n')).toHaveLength(2);
      expect(stderr).toMatch(/^agentwrap: .* \(see agentwrap [^)]*\)\n$/);
    }
  });
});
