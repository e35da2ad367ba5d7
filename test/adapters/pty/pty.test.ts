import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readProcStat,
  childCwd,
  childEnvironment,
  exitCodeOf,
  spawnPty,
  type PtyProcess,
  type PtySpawnOptions,
} from '../../../src/adapters/pty/index.js';
import { resolveExecutable } from '../../../src/adapters/executable.js';
import { expectedPtyBytes, writerScript } from '../../helpers/pty-writer.js';

function spawn(file: string, args: readonly string[], overrides: Partial<PtySpawnOptions> = {}): PtyProcess {
  return spawnPty({ file, args, cols: 80, rows: 24, env: childEnvironment(process.env), ...overrides });
}

async function collect(pty: PtyProcess, onChunk?: (index: number) => void): Promise<{ output: Buffer; exit: Awaited<PtyProcess['exited']> }> {
  const chunks: Buffer[] = [];
  pty.onData((chunk) => {
    chunks.push(chunk);
    onChunk?.(chunks.length);
  });
  const exit = await pty.exited;
  pty.dispose();
  return { output: Buffer.concat(chunks), exit };
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Polls `condition` every 20 ms: a wait for an event, never a fixed time (10 s on a loaded machine at most). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The command (cat) is running and blocked reading the pty: state S in /proc. */
async function untilReading(pty: PtyProcess): Promise<number> {
  await until(() => {
    const pid = pty.commandPid();
    return pid !== undefined && readProcStat(pid)?.state === 'S';
  }, 'the command to wait for input');
  return pty.commandPid() as number;
}

describe('spawnPty output', () => {
  it('delivers a 20 MB write made right before exit byte for byte, three runs in a row, with a lagging reader', async () => {
    const size = 20_000_000;
    const expected = sha256(expectedPtyBytes(size));

    for (let run = 0; run < 3; run++) {
      // A reader that stalls now and then, as a slow terminal does: before the fix this lost
      // the last kilobytes in most runs (node-pty's 200 ms destroy, libuv's early EOF).
      const { output, exit } = await collect(spawn(process.execPath, ['-e', writerScript(size)]), (index) => {
        if (index % 200 === 0) {
          const until = Date.now() + 30;
          while (Date.now() < until);
        }
      });

      expect(exit.code).toBe(0);
      expect(output.length).toBe(expectedPtyBytes(size).length);
      expect(sha256(output)).toBe(expected);
    }
  });

  it('passes bytes that are not valid UTF-8 unchanged, as Buffers', async () => {
    const { output } = await collect(spawn('/bin/sh', ['-c', `printf 'a\\377\\376\\303b'`]));

    expect([...output]).toEqual([0x61, 0xff, 0xfe, 0xc3, 0x62]);
  });
});

describe('spawnPty exit', () => {
  it('ends once output went quiet when a background process keeps the pty open', async () => {
    const { output, exit } = await collect(spawn('/bin/sh', ['-c', '(sleep 15 &); echo last words; exit 4']));

    expect(exit.code).toBe(4);
    expect(output.toString()).toContain('last words');
  });

  it('reports the exit code of the command', async () => {
    const { exit } = await collect(spawn('/bin/sh', ['-c', 'exit 7']));

    expect(exit).toEqual({ code: 7, signal: undefined });
  });

  it('reports a signal death as 128+N', async () => {
    const { exit } = await collect(spawn('/bin/sh', ['-c', 'kill -TERM $$']));

    expect(exit.code).toBe(143);
  });

  it('reports the signal number too when there is no job-control helper in between', async () => {
    const { exit } = await collect(spawn('/bin/sh', ['-c', 'kill -TERM $$'], { jobControl: false }));

    expect(exit).toEqual({ code: 143, signal: 15 });
  });
});

const hasProc = existsSync('/proc/self/stat');

describe('spawnPty terminal', () => {
  it('starts at the given size and follows resizes', async () => {
    const pty = spawn('/bin/sh', ['-c', 'stty size; trap "stty size; exit 0" WINCH; echo READY; while :; do sleep 0.05; done'], { cols: 91, rows: 27 });
    let text = '';
    pty.onData((chunk) => {
      text += chunk.toString();
      if (text.includes('READY') && !text.includes('RESIZED')) {
        text += 'RESIZED';
        pty.resize(55, 11);
      }
    });

    await pty.exited;
    pty.dispose();

    expect(text).toContain('27 91');
    expect(text).toContain('11 55');
  });

  it('sets IUTF8 on the pty while still delivering raw bytes', async () => {
    const { output } = await collect(spawn('/bin/sh', ['-c', 'stty -a']));

    expect(output.toString()).toMatch(/(^|\s)iutf8(\s|$)/);
  });

  it('gives the command the environment it was given, TMUX included', async () => {
    const env = childEnvironment({ PATH: process.env['PATH'], TMUX: '/tmp/t,1,0', TMUX_PANE: '%3', LINES: '9' }, { AGENTWRAP_SESSION: 'abc' });

    const { output } = await collect(spawn('/usr/bin/env', [], { env }));

    const lines = output.toString().split('\r\n');
    expect(lines).toContain('TMUX=/tmp/t,1,0');
    expect(lines).toContain('TMUX_PANE=%3');
    expect(lines).toContain('LINES=9');
    expect(lines).toContain('AGENTWRAP_SESSION=abc');
  });

  // Noticed through /proc, or ps where there is none (macOS); Linux's ps needs /proc too.
  it.skipIf(!hasProc && process.platform === 'linux')('notices when the command stops on Ctrl-Z, and goes on after SIGCONT', async () => {
    const pty = spawn('/bin/cat', []);
    let text = '';
    pty.onData((chunk) => {
      text += chunk.toString();
    });
    const stopped = new Promise<void>((resolve) => pty.onStopped(resolve));
    // cat echoing a line is cat reading the terminal in the foreground (no /proc needed to see it).
    pty.write('ready\r');
    await until(() => text.includes('ready\r\nready\r\n'), 'cat to echo the first line');

    pty.write('\x1a');
    await stopped;
    pty.signalGroup('SIGCONT');
    pty.write('back\r');
    await until(() => text.includes('back\r\nback\r\n'), 'cat to echo the line');
    pty.write('\x04');
    const exit = await pty.exited;
    pty.dispose();

    expect(text).toContain('back\r\nback\r\n');
    expect(exit.code).toBe(0);
  });

  it.skipIf(!hasProc)('leaves an agent paused by SIGSTOP from outside paused, without suspending the pair', async () => {
    const pty = spawn('/bin/cat', []);
    let text = '';
    pty.onData((chunk) => {
      text += chunk.toString();
    });
    let isPairStopped = false;
    pty.onStopped(() => {
      isPairStopped = true;
    });
    const agent = await untilReading(pty);
    const stateOf = (pid: number): string | undefined => readProcStat(pid)?.state;

    process.kill(agent, 'SIGSTOP');
    await until(() => stateOf(agent) === 'T', 'the agent to be stopped');
    // A window for a wrong reaction (the helper suspending the pair) to show: nothing to wait on.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const whilePaused = stateOf(agent);
    process.kill(agent, 'SIGCONT');
    await until(() => stateOf(agent) !== 'T', 'the agent to be continued');
    pty.write('back\r');
    await until(() => text.includes('back\r\nback\r\n'), 'cat to echo the line');
    pty.write('\x04');
    const exit = await pty.exited;
    pty.dispose();

    expect(whilePaused).toBe('T');
    expect(isPairStopped).toBe(false);
    expect(text).toContain('back\r\nback\r\n');
    expect(exit.code).toBe(0);
  });

  it('forwards a signal to the foreground job of the pty', async () => {
    const pty = spawn('/bin/sh', ['-c', 'echo READY; sleep 20']);
    pty.onData((chunk) => {
      if (chunk.toString().includes('READY')) setTimeout(() => pty.signalForeground('SIGINT'), 100);
    });

    const exit = await pty.exited;
    pty.dispose();

    expect(exit.code).toBe(130);
  });
});

describe('pty helpers', () => {
  it.each([
    [0, undefined, 0],
    [7, undefined, 7],
    [0, 0, 0],
    [0, 15, 143],
    [0, 9, 137],
  ] as const)('exitCodeOf(%s, %s) is %s', (exitCode, signal, expected) => {
    expect(exitCodeOf(exitCode, signal)).toBe(expected);
  });

  it('refuses extra environment variables outside AGENTWRAP_*', () => {
    expect(() => childEnvironment({}, { PATH: '/evil' })).toThrow(/AGENTWRAP_/);
  });

  it('drops unset variables and keeps everything else as it was', () => {
    expect(childEnvironment({ A: '1', B: undefined, TMUX: 'x' }, { AGENTWRAP_X: 'y' })).toEqual({ A: '1', TMUX: 'x', AGENTWRAP_X: 'y' });
  });

  it('keeps a symlinked $PWD as the child directory when it is the current directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'agentwrap-cwd-'));
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'link'));

    expect(childCwd({ PWD: join(root, 'link') }, join(root, 'real'))).toBe(join(root, 'link'));
    expect(childCwd({ PWD: join(root, 'elsewhere') }, join(root, 'real'))).toBe(join(root, 'real'));
    expect(childCwd({}, join(root, 'real'))).toBe(join(root, 'real'));
  });

  it('resolves executables like a shell: PATH search, paths with a slash, not found, not executable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-path-'));
    writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
    chmodSync(join(dir, 'tool'), 0o755);
    writeFileSync(join(dir, 'plain'), 'data');
    chmodSync(join(dir, 'plain'), 0o644);
    const env = { PATH: `/nonexistent:${dir}` };

    expect(resolveExecutable('tool', env, '/')).toEqual({ ok: true, path: join(dir, 'tool') });
    expect(resolveExecutable('./tool', env, dir)).toEqual({ ok: true, path: join(dir, 'tool') });
    expect(resolveExecutable('missing', env, '/')).toEqual({ ok: false, reason: 'not-found', path: 'missing' });
    expect(resolveExecutable('plain', env, '/')).toEqual({ ok: false, reason: 'not-executable', path: join(dir, 'plain') });
  });
});
