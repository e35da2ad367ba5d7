/**
 * The docs' commands, as written. Every `agentwrap …` line of a code block and every
 * `agentwrap …` code span in README.md and docs/*.md is read, then:
 *   - its form is checked against the command table (src/cli/command-table.ts): the command
 *     words name a command, every option it shows is one that command takes, and a word in the
 *     agent's place is not a mistyped command;
 *   - when it is concrete (no placeholder such as `<session>`, `[--json]` or `…`) it is run
 *     against the built CLI with a private HOME, config and state directory, in a working
 *     directory whose `recordings/` holds one agent's recordings. A code block's command must
 *     exit 0 (or what EXPECTED says); a code span may also be a fragment (`agentwrap eval
 *     --json`), which may end in a usage error of agentwrap's own form: one line, one hint.
 *     No output may hold node's parser text or an internal error. Commands that run until
 *     Ctrl-C (events, dashboard, status --watch) must print their first output, then exit 0
 *     on SIGINT.
 *   - the ones that cannot run here are skipped one by one, each with its reason.
 * The state directory holds one live session record (codex-aaa, this test's pid), so the
 * streaming commands have something to print and the `claude` sessions of the examples are
 * really not there.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, LAUNCH_TABLE_OPTIONS, type TableCommand } from '../src/cli/command-table.js';
import { closest } from '../src/cli/flags.js';
import { CLI, ensureBuilt, ROOT } from './helpers/cli.js';
import { putLiveCodexSession } from './helpers/live-record.js';

interface DocCommand {
  /** `docs/launcher.md:12`. */
  readonly where: string;
  /** As written, comments and pipes cut off, continuation lines joined. */
  readonly text: string;
  readonly inBlock: boolean;
}

/** Which recordings the working directory's `recordings/` holds: one small agent's. */
const RECORDED_AGENT = 'copilot';

function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
}

/** `agentwrap …` at the start of a code block's line (after `$ `), or inside `#(…)` in tmux.conf. */
function blockCommands(file: string, text: string): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = text.split('\n');
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('```')) {
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    let command = /^\s*(?:\$ )?(agentwrap .*)$/.exec(line)?.[1] ?? /#\((agentwrap [^)]*)\)/.exec(line)?.[1];
    // An output line that starts with agentwrap's name (`agentwrap dashboard: http://…`, the dashboard's title).
    if (command === undefined || !/^agentwrap [-a-z_<[]/.test(command) || /^agentwrap [a-z-]+:/.test(command)) continue;
    const at = i;
    while (command.endsWith('\\')) command = `${command.slice(0, -1).trimEnd()} ${(lines[++i] ?? '').trim()}`;
    out.push({ where: `${file}:${at + 1}`, text: cutShell(command), inBlock: true });
  }
  return out;
}

/** Code spans that start with `agentwrap `. */
function spanCommands(file: string, text: string): DocCommand[] {
  const out: DocCommand[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('```') || /^\s*(\$ )?agentwrap /.test(line)) return;
    for (const match of line.matchAll(/`(agentwrap [^`]*)`/g)) out.push({ where: `${file}:${i + 1}`, text: cutShell(match[1] ?? ''), inBlock: false });
  });
  return out;
}

/** Drops a trailing `# comment`, a pipe into another program and a redirection. */
function cutShell(command: string): string {
  return command.replace(/\s+#\s.*$/, '').replace(/\s+\|\s.*$/, '').replace(/\s+2?>\S*$/, '').trim();
}

const DOC_COMMANDS: DocCommand[] = docFiles().flatMap((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...blockCommands(file, text), ...spanCommands(file, text)];
});

/** A word that stands for something: `<session>`, `[--json]`, `PATH…`, `FILE.cast`, `list|lint`. */
function isPlaceholder(word: string): boolean {
  return /[<>[\]…|]/.test(word) || /^[A-Z][A-Z_.]*$/.test(word.replace(/\.cast$/, '')) || word === '…';
}

/** Shell words; quotes removed, `~` and `$AGENT_STATUS_DIR` left for the run to expand. */
function shellWords(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

interface Form {
  /** `status explain`; '' for the launch form. */
  readonly path: string;
  /** The agent's name in the launch form. */
  readonly agent: string | undefined;
  readonly problems: string[];
}

/** What the words ask of the command table, and what in them the table does not know. */
function readForm(words: readonly string[]): Form {
  const problems: string[] = [];
  let i = 0;
  // agentwrap's own options first: the launch options, --help and --version.
  for (; i < words.length; i++) {
    const word = words[i] ?? '';
    if (isPlaceholder(word) && !word.startsWith('--')) continue;
    if (!word.startsWith('-')) break;
    const name = word.replace(/^--?/, '').split('=')[0] ?? '';
    const option = Object.hasOwn(LAUNCH_TABLE_OPTIONS, name) ? LAUNCH_TABLE_OPTIONS[name as keyof typeof LAUNCH_TABLE_OPTIONS] : undefined;
    if (option === undefined && !['help', 'version', 'h', 'V'].includes(name)) problems.push(`${word} is no option of agentwrap's`);
    if (option?.type === 'string' && !word.includes('=')) i++;
  }
  const first = words[i];
  if (first === '__complete') return { path: first, agent: undefined, problems };
  if (first === undefined || !Object.hasOwn(COMMANDS, first)) {
    const near = first === undefined || isPlaceholder(first) ? undefined : closest(first, Object.keys(COMMANDS));
    if (near !== undefined) problems.push(`"${first ?? ''}" is in the agent's place but looks like the command ${near}`);
    return { path: '', agent: first === undefined || isPlaceholder(first) ? undefined : first, problems };
  }
  let command: TableCommand = COMMANDS[first as keyof typeof COMMANDS];
  const path = [first];
  for (i++; i < words.length; i++) {
    const word = words[i] ?? '';
    const sub = command.subcommands !== undefined && Object.hasOwn(command.subcommands, word) ? command.subcommands[word] : undefined;
    if (sub === undefined) break;
    command = sub;
    path.push(word);
  }
  const rest = words.slice(i);
  const end = rest.indexOf('--');
  for (const word of end === -1 ? rest : rest.slice(0, end)) {
    for (const match of word.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)) {
      const name = match[1] ?? '';
      if (name !== 'help' && !Object.hasOwn(command.options, name)) problems.push(`--${name} is no option of agentwrap ${path.join(' ')}`);
    }
  }
  return { path: path.join(' '), agent: undefined, problems };
}

type Plan =
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'form-only' }
  | { readonly kind: 'run'; readonly args: string[]; readonly expectCode: number; readonly stderr?: RegExp }
  | { readonly kind: 'stream'; readonly args: string[]; readonly firstLine: RegExp };

/** Commands that cannot run here, by what they start with, and why. */
const SKIPPED: readonly (readonly [RegExp, string])[] = [
  [/^agentwrap run( --record \S+)? -- (vim|my-agent)\b/, 'runs an interactive program on a terminal'],
  [/^agentwrap run -- node dist\/src\/demo\/agent\.js/, 'the demo agent waits at its prompt for a person'],
  [/^agentwrap demo\b/, 'drives the demo agent for ~15 s; run as written (and with --record before demo) by test/cli/demo.test.ts'],
];

/** Concrete commands that end in an error as written, and the line they must end in. */
const EXPECTED: readonly (readonly [RegExp, number, RegExp])[] = [
  [/^agentwrap (status explain|status capture|ack) claude\b/, 1, /^agentwrap: no live agentwrap session matches "claude" \([^)]*\)\n$/],
  [/^agentwrap replay my\.cast\b/, 1, /^agentwrap: my\.cast: no such recording\n$/],
];

/** Commands that run until Ctrl-C, and what their first line must look like. */
const STREAMS: readonly (readonly [RegExp, RegExp])[] = [
  [/^agentwrap events\b/, /^\{"t":\d+,/],
  [/^agentwrap dashboard\b/, /^agentwrap dashboard: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/],
  [/^agentwrap status (.* )?--watch\b/, /^STATE +FOR +AGENT|^no live agent sessions/],
];

function plan(command: DocCommand): Plan {
  const words = shellWords(command.text).slice(1);
  const skipped = SKIPPED.find(([pattern]) => pattern.test(command.text));
  if (skipped !== undefined) return { kind: 'skip', reason: skipped[1] };
  const form = readForm(words);
  if (form.path === '' && form.agent !== undefined) {
    return { kind: 'skip', reason: `runs the agent CLI "${form.agent}" on a terminal (the launch itself: test/cli/launch.test.ts)` };
  }
  if (words.some((w) => isPlaceholder(w) && !/^~|^\$/.test(w))) return { kind: 'form-only' };
  const stream = STREAMS.find(([pattern]) => pattern.test(command.text));
  if (stream !== undefined) return { kind: 'stream', args: words, firstLine: stream[1] };
  const expected = EXPECTED.find(([pattern]) => pattern.test(command.text));
  if (expected !== undefined) return { kind: 'run', args: words, expectCode: expected[1], stderr: expected[2] };
  return { kind: 'run', args: words, expectCode: 0 };
}

/** What node:util's parser says, and how a bug is printed: neither may reach a user. */
const NOT_OURS = /Unknown option '|is ambiguous|To specify an option|Did you forget|ERR_PARSE_ARGS|internal error|\n {4}at /;

let dir: string;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'aw-docs-'));
  work = join(dir, 'work');
  mkdirSync(join(work, 'recordings'), { recursive: true });
  symlinkSync(join(ROOT, 'recordings', RECORDED_AGENT), join(work, 'recordings', RECORDED_AGENT));
  const home = join(dir, 'home');
  const state = join(dir, 'state');
  mkdirSync(join(state, 'sessions'), { recursive: true, mode: 0o700 });
  mkdirSync(home);
  env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    AGENT_STATUS_DIR: state,
    // `--host` examples name machines that are not there: ssh fails at once, as an unreachable host.
    AGENTWRAP_SSH_COMMAND: 'false',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
  putLiveCodexSession(state, 'codex-aaa');
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});


function expand(args: readonly string[]): string[] {
  return args.map((a) => a.replace(/^~(?=\/|$)/, env['HOME'] ?? '').replace(/\$AGENT_STATUS_DIR/g, env['AGENT_STATUS_DIR'] ?? ''));
}

function runOnce(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...expand(args)], { cwd: work, env, encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/** Starts a command that runs until Ctrl-C; its first line, then its exit status after SIGINT. */
function runStream(args: readonly string[]): Promise<{ firstLine: string; code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...expand(args)], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let firstLine: string | undefined;
    const stop = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const plain = stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      if (firstLine === undefined && plain.includes('\n')) {
        firstLine = plain.slice(0, plain.indexOf('\n'));
        child.kill('SIGINT');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('exit', (code, signal) => {
      clearTimeout(stop);
      resolve({ firstLine: firstLine ?? '', code, signal, stderr });
    });
  });
}

describe('the docs\' commands, as written', () => {
  it('finds the commands of the README and docs/', () => {
    expect(DOC_COMMANDS.filter((c) => c.inBlock).length).toBeGreaterThan(25);
    expect(DOC_COMMANDS.map((c) => c.text)).toEqual(expect.arrayContaining(['agentwrap doctor', 'agentwrap status explain --help', 'agentwrap --record session.cast codex']));
  });

  it('the form check catches a mistyped command, subcommand option or launch option', () => {
    expect(readForm(['staus']).problems).toEqual(['"staus" is in the agent\'s place but looks like the command status']);
    expect(readForm(['status', 'explain', '--jsno']).problems).toEqual(['--jsno is no option of agentwrap status explain']);
    expect(readForm(['--recrod', 'x.cast', 'claude', '--anything']).problems).toEqual(["--recrod is no option of agentwrap's"]);
    expect(readForm(['run', '--pack', 'claude', '--', 'sh', '--weird']).problems).toEqual([]);
  });

  it('every one names commands and options the command table has', () => {
    const problems = DOC_COMMANDS.flatMap((c) => readForm(shellWords(c.text).slice(1)).problems.map((p) => `${c.where}: ${c.text}: ${p}`));

    expect(problems).toEqual([]);
  });

  // One test per distinct command text: the same example in three files is run once.
  const seen = new Set<string>();
  const distinct = DOC_COMMANDS.filter((c) => (seen.has(c.text) ? false : (seen.add(c.text), true)));
  for (const command of distinct) {
    const what = plan(command);
    const title = `${command.text}  (${command.where})`;
    if (what.kind === 'skip') {
      it.skip(`${title}: skipped, ${what.reason}`, () => undefined);
    } else if (what.kind === 'stream') {
      it(`${title}: prints its first line, exits 0 on Ctrl-C`, async () => {
        const result = await runStream(what.args);

        expect(result.firstLine).toMatch(what.firstLine);
        expect([result.code, result.signal, result.stderr]).toEqual([0, null, '']);
      });
    } else if (what.kind === 'run') {
      it(`${title}: runs as the docs say`, async () => {
        const result = await runOnce(what.args);

        expect(`${result.stdout}${result.stderr}`).not.toMatch(NOT_OURS);
        if (what.stderr !== undefined) expect(result.stderr).toMatch(what.stderr);
        // A code span may be a fragment (`agentwrap eval --json`): then a usage error of agentwrap's own form.
        const isFragment = !command.inBlock && result.code === 2 && /^agentwrap: [^\n]* \(see agentwrap [^)\n]*\)\n$/.test(result.stderr);
        if (!isFragment) expect(result.code, result.stderr).toBe(what.expectCode);
      });
    }
  }
});
