/**
 * `agentwrap completion bash|zsh|fish`, run in the real shells: bash through its completion
 * function with COMP_WORDS set (as bash calls it on Tab), fish through `complete -C`, zsh by
 * pressing Tab in an interactive zsh inside a private tmux server. zsh and fish are skipped
 * where not installed. The live values come from the built CLI (`agentwrap __complete`), with
 * an agent CLI on PATH that has a pack and session records in a temporary state directory.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_TABLE, commandPaths, findCommand, TOP_OPTIONS, type CommandSpec } from '../../src/cli/command-table.js';
import { CLI, ensureBuilt, ROOT } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { putLiveCodexSession } from '../helpers/live-record.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let stateDir: string;

function hasShell(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}


beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'aw-completion-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  // `agentwrap` as installed (the shell front), and an agent CLI that has a bundled pack.
  symlinkSync(join(ROOT, 'src', 'cli', 'bin', 'agentwrap'), join(bin, 'agentwrap'));
  writeFileSync(join(bin, 'codex'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'codex'), 0o755);
  stateDir = join(dir, 'state');
  mkdirSync(join(stateDir, 'sessions'), { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
  const home = join(dir, 'home');
  mkdirSync(home);
  env = { PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, HOME: home, AGENT_STATUS_DIR: stateDir, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
});

// Fresh records for each test: a record not refreshed within its TTL counts as gone, as it should.
beforeEach(() => {
  putLiveCodexSession(stateDir, 'codex-aaa');
  putLiveCodexSession(stateDir, 'codex-bbb');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `agentwrap completion <shell>` written to a file, once per shell: the script does not change between cases. */
const scripts = new Map<string, string>();
function scriptFile(shell: string): string {
  const known = scripts.get(shell);
  if (known !== undefined) return known;
  const file = join(dir, `agentwrap.${shell}`);
  writeFileSync(file, execFileSync(process.execPath, [CLI, 'completion', shell], { encoding: 'utf8', env }));
  scripts.set(shell, file);
  return file;
}

/** What bash offers for `agentwrap <words>`, the cursor at the end of the last word. */
function bashComplete(words: readonly string[]): string[] {
  const file = scriptFile('bash');
  const quoted = ['agentwrap', ...words].map((w) => `'${w}'`).join(' ');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length}; _agentwrap; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    env,
  });
  return out.split('\n').filter((line) => line !== '');
}

/** The cases every shell must agree on: words typed, and what must (and must not) be offered. */
const CASES: readonly { readonly words: readonly string[]; readonly offers: readonly string[]; readonly not?: readonly string[] }[] = [
  { words: ['st'], offers: ['status'] },
  { words: ['cod'], offers: ['codex'] },
  { words: ['status', 'ex'], offers: ['explain'] },
  { words: ['status', 'explain', 'codex-'], offers: ['codex-aaa', 'codex-bbb'] },
  { words: ['status', 'capture', 'codex-a'], offers: ['codex-aaa'], not: ['codex-bbb'] },
  { words: ['ack', ''], offers: ['codex-aaa', 'codex-bbb'] },
  { words: ['--pack', 'co'], offers: ['codex'] },
  { words: ['status', '--format', 't'], offers: ['tmux', 'text'] },
  { words: ['--no-'], offers: ['--no-hooks', '--no-notify', '--no-record'] },
  { words: ['status', 'explain', '--j'], offers: ['--json'] },
  { words: ['completion', ''], offers: ['bash', 'fish', 'zsh'] },
  { words: ['packs', ''], offers: ['lint', 'list', 'test'] },
  { words: ['doctor', '--'], offers: ['--json'] },
  { words: ['status', '--h'], offers: ['--host', '--help'] },
  { words: ['status', '--st'], offers: ['--state-dir'] },
  { words: ['events', '--'], offers: ['--host', '--help'] },
];

describe('completion bash (the real bash, its completion function called as on Tab)', () => {
  it.each(CASES)('agentwrap $words', ({ words, offers, not }) => {
    const offered = bashComplete(words);

    expect(offered).toEqual(expect.arrayContaining([...offers]));
    for (const word of not ?? []) expect(offered).not.toContain(word);
  });

  it('offers every option the command table gives each command, and --help', () => {
    const missing: string[] = [];
    for (const path of commandPaths()) {
      const words = path.split(' ');
      const offered = bashComplete([...words, '--']);
      const wanted = [...Object.keys(findCommand(words)?.options ?? {}).map((name) => `--${name}`), '--help'];
      missing.push(...wanted.filter((option) => !offered.includes(option)).map((option) => `${path} ${option}`));
    }

    expect(missing).toEqual([]);
  });

  it('offers nothing of its own once the words belong to the agent', () => {
    expect(bashComplete(['codex', '--st'])).toEqual([]);
    expect(bashComplete(['--record', 'x.cast', 'codex', 'st'])).not.toContain('status');
  });

  it('after run --, completes the command to run from PATH', () => {
    expect(bashComplete(['run', '--', 'agentwr'])).toContain('agentwrap');
  });

  it('skips an option value while finding the command', () => {
    expect(bashComplete(['--on-state', 'status', 'st'])).toContain('status');
    expect(bashComplete(['status', '--format', 'tmux', 'ex'])).toContain('explain');
  });
});

describe.skipIf(!hasShell('fish'))('completion fish (complete -C in the real fish)', () => {
  function fishComplete(words: readonly string[]): string[] {
    const file = scriptFile('fish');
    const line = ['agentwrap', ...words].join(' ');
    const out = execFileSync('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`], { encoding: 'utf8', env });
    return out.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0] ?? '');
  }

  it.each(CASES)('agentwrap $words', ({ words, offers, not }) => {
    const offered = fishComplete(words);

    expect(offered).toEqual(expect.arrayContaining([...offers]));
    for (const word of not ?? []) expect(offered).not.toContain(word);
  });
});

describe.skipIf(!hasShell('zsh') || !hasShell('tmux'))('completion zsh (Tab pressed in an interactive zsh in tmux)', () => {
  const socket = `aw-completion-${process.pid}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env });

  beforeAll(async () => {
    const file = scriptFile('zsh');
    writeFileSync(join(dir, 'home', '.zshrc'), `PS1='ready$ '\nautoload -U compinit && compinit -u\nsource '${file}'\n`);
    tmux('new-session', '-d', '-x', '120', '-y', '30', `env ZDOTDIR='${join(dir, 'home')}' zsh -i`);
    // Keys typed before zsh draws its first prompt land in the wrong place: wait for it
    // (capture-pane drops trailing spaces, so the prompt reads `ready$` at the end of its line).
    const prompt = await waitForScreen((screen) => /^ready\$$/m.test(screen));
    expect(prompt).toMatch(/^ready\$$/m);
  });

  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  async function waitForScreen(until: (screen: string) => boolean): Promise<string> {
    let screen = '';
    for (let i = 0; i < 150; i++) {
      screen = tmux('capture-pane', '-p', '-t', '0');
      if (until(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return screen;
  }

  /** Clears the line, types, presses Tab; the screen once it shows `expected` (or after 15 s). */
  async function screenAfter(typed: string, expected: string): Promise<string> {
    tmux('send-keys', '-t', '0', 'C-u');
    tmux('send-keys', '-t', '0', '-l', typed);
    tmux('send-keys', '-t', '0', 'Tab');
    return waitForScreen((screen) => screen.includes(expected));
  }

  it('completes a subcommand, an agent on PATH and a live session', async () => {
    expect(await screenAfter('agentwrap status ex', 'ready$ agentwrap status explain')).toContain('ready$ agentwrap status explain');
    expect(await screenAfter('agentwrap cod', 'ready$ agentwrap codex')).toContain('ready$ agentwrap codex');
    expect(await screenAfter('agentwrap ack codex-a', 'ready$ agentwrap ack codex-aaa')).toContain('ready$ agentwrap ack codex-aaa');
    expect(await screenAfter('agentwrap status --format tm', 'ready$ agentwrap status --format tmux')).toContain('ready$ agentwrap status --format tmux');
  });
});

describe('the command table', () => {
  const names = (commands: readonly CommandSpec[]): string[] => commands.flatMap((c) => [c.name, ...names(c.subcommands ?? [])]);
  const options = (commands: readonly CommandSpec[]): string[] => commands.flatMap((c) => [...c.options.map((o) => o.name), ...options(c.subcommands ?? [])]);

  it('holds every command and option agentwrap --help names', async () => {
    const help = (await runCliInProcess(['--help'], { env })).stdout;
    const known = new Set([...names(COMMAND_TABLE), ...options(COMMAND_TABLE), ...TOP_OPTIONS.map((o) => o.name)]);

    const helpCommands = [...help.matchAll(/^ {2}agentwrap ([a-z][a-z-]*)/gm)].map((m) => m[1] ?? '');
    const helpOptions = [...help.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? '');

    expect(helpCommands.filter((c) => !known.has(c))).toEqual([]);
    expect(helpOptions.filter((o) => !known.has(o))).toEqual([]);
  });

  it('every command in the table is one agentwrap runs (not taken as an agent name)', async () => {
    const results: { name: string; stderr: string }[] = [];
    for (const command of COMMAND_TABLE) results.push({ name: command.name, stderr: (await runCliInProcess([command.name, '--help'], { env })).stderr });

    expect(results).toHaveLength(COMMAND_TABLE.length);
    for (const { name, stderr } of results) expect(stderr, name).not.toMatch(/command not found/);
  });
});
