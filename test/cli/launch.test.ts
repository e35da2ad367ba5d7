/**
 * End to end: the built CLI (`node dist/src/cli/main.js`) inside a real outer pty that plays
 * the user's terminal. Each test is one transparency promise of issue 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChildPids } from '../../src/adapters/pty/index.js';
import { CLI, openOuterTerminal, REPO_ROOT, shellQuote } from '../helpers/pty-outer.js';

const WRAP = `${shellQuote(process.execPath)} ${shellQuote(CLI)}`;

/** Runs `inner` wrapped, with the outer termios printed before and after, and the exit code. */
function wrappedWithTermios(inner: string): string {
  return `B=$(stty -g); ${WRAP} run -- ${inner}; echo "rc=$?"; A=$(stty -g); if [ "$A" = "$B" ]; then echo TERMIOS-RESTORED; else echo "TERMIOS-CHANGED $B -> $A"; fi; stty -a | tr '\\n' ' '; echo; echo END`;
}

async function wrapperPidOf(outer: ReturnType<typeof openOuterTerminal>): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const [pid] = readChildPids(outer.pty.pid);
    if (pid !== undefined) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('agentwrap did not start');
}

describe('agentwrap run in a terminal', () => {
  it('passes the exit code on and restores the terminal after a normal exit', async () => {
    const outer = openOuterTerminal(wrappedWithTermios(`sh -c 'exit 7'`));

    const output = await outer.waitFor('END');

    expect(output).toContain('rc=7');
    expect(output).toContain('TERMIOS-RESTORED');
    expect(output).toMatch(/ icanon /);
    expect(output).toMatch(/ opost /);
  });

  it('turns a signal death of the agent into 128+N and restores the terminal', async () => {
    const outer = openOuterTerminal(wrappedWithTermios(`sh -c 'kill -TERM $$'`));

    const output = await outer.waitFor('END');

    expect(output).toContain('rc=143');
    expect(output).toContain('TERMIOS-RESTORED');
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const)('forwards %s sent to agentwrap to the agent, exits with its code and restores the terminal', async (signal, code) => {
    const outer = openOuterTerminal(wrappedWithTermios(`sh -c 'echo READY; sleep 20'`));
    await outer.waitFor('READY');

    process.kill(await wrapperPidOf(outer), signal);
    const output = await outer.waitFor('END');

    expect(output).toContain(`rc=${code}`);
    expect(output).toContain('TERMIOS-RESTORED');
  });

  it('sees the outer size at start and after a resize', async () => {
    const agent = `sh -c 'stty size; trap "stty size" WINCH; echo READY; while :; do sleep 0.05; done'`;
    const outer = openOuterTerminal(wrappedWithTermios(agent), { cols: 100, rows: 30 });
    await outer.waitFor('READY');

    outer.pty.resize(120, 40);
    await outer.waitFor('40 120');
    outer.pty.write('\x03');
    const output = await outer.waitFor('END');

    expect(output).toContain('30 100');
    // Ctrl-C reached the agent's pty as a keystroke and its line discipline made it SIGINT.
    expect(output).toContain('rc=130');
    expect(output).toContain('TERMIOS-RESTORED');
  });

  it('passes control bytes through unchanged', async () => {
    const outer = openOuterTerminal(wrappedWithTermios(`sh -c 'stty raw -echo; echo READY; od -An -tx1 -N8'`));
    await outer.waitFor('READY');

    outer.pty.write(Buffer.from([0x03, 0x1a, 0x1c, 0x11, 0x13, 0x7f, 0x04, 0x1b]));
    const output = await outer.waitFor('END');

    expect(output.replace(/\s+/g, ' ')).toContain('03 1a 1c 11 13 7f 04 1b');
  });

  it('keeps a UTF-8 character whole when the agent writes it byte by byte', async () => {
    const agent = `sh -c 'printf "\\360"; sleep 0.2; printf "\\237"; sleep 0.2; printf "\\230\\200 h\\303"; sleep 0.2; printf "\\251llo\\n"'`;
    const outer = openOuterTerminal(wrappedWithTermios(agent));

    const output = await outer.waitFor('END');

    expect(output).toContain('😀 héllo');
    expect(output).not.toContain('\uFFFD');
  });

  it('resets the modes a crashed agent left on, and only those', async () => {
    const agent = `sh -c 'printf "\\033[?1049h\\033[?2004h\\033[?1000h\\033[?1006h\\033[?25l"; kill -KILL $$'`;
    const outer = openOuterTerminal(wrappedWithTermios(agent));

    const output = await outer.waitFor('END');

    expect(output).toContain('rc=137');
    const tail = output.slice(output.indexOf('\x1b[?25l') + 6, output.indexOf('rc=137'));
    expect(tail).toContain('\x1b[?1000l');
    expect(tail).toContain('\x1b[?1006l');
    expect(tail).toContain('\x1b[?2004l');
    expect(tail).toContain('\x1b[?25h');
    expect(tail.indexOf('\x1b[?1049l')).toBeGreaterThan(tail.indexOf('\x1b[?25h'));
  });

  it('writes no reset at all after an agent that cleaned up after itself', async () => {
    const outer = openOuterTerminal(wrappedWithTermios(`printf 'A\\033[?1049hB\\033[?1049lC\\n'`));

    const output = await outer.waitFor('END');

    expect(output).toContain('A\x1b[?1049hB\x1b[?1049lC');
    expect(output.split('\x1b[?1049l')).toHaveLength(2);
  });

  it('gives the agent the user environment unchanged, TMUX included, plus AGENTWRAP_* only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-env-'));
    const outer = openOuterTerminal(
      `env | sort > ${dir}/direct; ${WRAP} run -- sh -c 'env | sort > ${dir}/wrapped'; echo END`,
      { env: { TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%7', COLUMNS: '33' } },
    );

    await outer.waitFor('END');

    const wrapped = readFileSync(join(dir, 'wrapped'), 'utf8').split('\n');
    expect(wrapped).toContain('TMUX=/tmp/tmux-0/default,1,0');
    expect(wrapped).toContain('TMUX_PANE=%7');
    expect(wrapped).toContain('COLUMNS=33');
    // Exactly the user's environment, plus agentwrap's own AGENTWRAP_* variables (compared
    // without any: the user's own, such as AGENTWRAP_TEST_ALLOW_TYPE_ERRORS, are in both).
    const withoutAgentwrap = (lines: readonly string[]): string[] => lines.filter((line) => !line.startsWith('AGENTWRAP_'));
    expect(withoutAgentwrap(wrapped)).toEqual(withoutAgentwrap(readFileSync(join(dir, 'direct'), 'utf8').split('\n')));
  });

  it('delivers every byte of a large write made right before the agent exits', async () => {
    const bytes = 5_000_000;
    const writer = `${shellQuote(process.execPath)} -e ${shellQuote(`require('fs').writeSync(1, Buffer.alloc(${bytes}, 'x')); require('fs').writeSync(1, 'THE-END'); process.exit(0)`)}`;
    const outer = openOuterTerminal(`${WRAP} run -- ${writer}; echo; echo "rc=$?"`);

    // A wait, not a speed check: 5 MB through two terminals takes long on a loaded machine.
    const output = await outer.waitFor(/rc=\d+/, 55_000);

    const body = output.slice(0, output.indexOf('THE-END'));
    expect(body.split('x')).toHaveLength(bytes + 1);
    expect(output).toContain('THE-END');
    expect(output).toContain('rc=0');
  }, 60_000);

  it('suspends with the agent on Ctrl-Z and resumes it on fg', async () => {
    const outer = openOuterTerminal(`exec bash --norc --noprofile -i`, { env: { PS1: 'prompt$ ' } });
    await outer.waitFor('prompt$ ');
    outer.pty.write(`${WRAP} run -- sh -c 'echo UP\$((1+1)); exec cat'\r`);
    // Typed once the agent runs: the helper has given it the terminal, so Ctrl-Z reaches it. Typed
    // before (under load, the pty's own echo of "ping" came before cat ran), Ctrl-Z went to the
    // helper's group, which ignores it as a job-control shell does, and nothing stopped.
    await outer.waitFor('UP2');
    outer.pty.write('ping\r');
    // The pty's echo, then cat's own line.
    await outer.waitFor(/UP2[^]*ping\r\n[^]*ping\r\n/);

    outer.pty.write('\x1a');
    await outer.waitFor(/Stopped/);
    outer.pty.write(`stty -a | grep -o -- '-\\?icanon' | sed 's/^/MODE:/'\r`);
    await outer.waitFor(/MODE:-?icanon/);
    outer.pty.write('fg\r');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    outer.pty.write('after-fg\r');
    await outer.waitFor(/after-fg\r\nafter-fg/);
    outer.pty.write('\x04');
    // Typeahead read by agentwrap before it exits is gone (as with script(1)): wait for the prompt.
    await outer.waitFor(/after-fg\r\nafter-fg\r\n(.|\n)*prompt\$ $/);
    outer.pty.write('echo "rc=$?"; exit\r');
    const output = await outer.waitFor(/rc=\d+/);

    expect(output).toContain('MODE:icanon');
    expect(output).toContain('rc=0');
  });
});

describe('agentwrap without a terminal', () => {
  it('says so on stderr and runs the agent unwrapped, passing its exit code on', () => {
    const result = spawnSync(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'cat; exit 3'], { input: 'piped input\n', cwd: REPO_ROOT, encoding: 'utf8' });

    expect(result.status).toBe(3);
    expect(result.stdout).toBe('piped input\n');
    expect(result.stderr).toContain('stdin is not a terminal; running sh unwrapped');
  });

  it('gives every argument after the agent name to the agent, even agentwrap-looking ones', () => {
    const result = spawnSync(process.execPath, [CLI, 'printf', '%s|', '--record', 'x', '--help', '--'], { cwd: REPO_ROOT, encoding: 'utf8' });

    expect(result.status).toBe(0);
    expect(result.stdout).toBe('--record|x|--help|--|');
  });

  it('exits 127 with a clear message for an agent that is not on PATH', () => {
    const result = spawnSync(process.execPath, [CLI, 'no-such-agent-xyz'], { cwd: REPO_ROOT, encoding: 'utf8' });

    expect(result.status).toBe(127);
    expect(result.stderr).toContain('no-such-agent-xyz: command not found');
  });

  it('reports a signal death of an unwrapped agent as 128+N', () => {
    const result = spawnSync(process.execPath, [CLI, 'run', '--', 'sh', '-c', 'kill -TERM $$'], { input: '', cwd: REPO_ROOT, encoding: 'utf8' });

    expect(result.status).toBe(143);
  });
});

