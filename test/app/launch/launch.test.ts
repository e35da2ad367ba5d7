import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { launchWrapped, type LaunchedSession } from '../../../src/app/launch/launch.js';
import { openOuterTerminal, REPO_ROOT, shellQuote } from '../../helpers/pty-outer.js';
import { FakeTerminal } from '../../helpers/term-fake.js';
import { isPidAlive } from '../../../src/adapters/process/alive.js';

function launch(terminal: FakeTerminal, script: string, warnings: string[] = []): LaunchedSession {
  return launchWrapped({
    file: '/bin/sh',
    args: ['-c', script],
    terminal,
    warn: (message) => warnings.push(message),
    forwardSignals: false,
  });
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('launchWrapped', () => {
  it('writes output to the terminal before the output tap sees it', async () => {
    const terminal = new FakeTerminal();
    const session = launch(terminal, 'echo one; echo two');
    const seenBeforeTap: boolean[] = [];
    session.onOutput((chunk) => seenBeforeTap.push(terminal.written.includes(chunk)));

    const exit = await session.exited;

    expect(exit.code).toBe(0);
    expect(terminal.text()).toContain('one\r\ntwo\r\n');
    expect(seenBeforeTap.length).toBeGreaterThan(0);
    expect(seenBeforeTap.every(Boolean)).toBe(true);
  });

  it('hands what arrived before the first taps attached to them when they do, in order, with arrival times', async () => {
    const terminal = new FakeTerminal();
    const session = launch(terminal, 'echo early; read line; echo "got $line"');
    await until(() => terminal.text().includes('early'));
    terminal.type('typed\r');
    await until(() => terminal.text().includes('got typed'));
    const attachedAtMs = performance.now();

    const outputs: { text: string; atMs: number | undefined }[] = [];
    const inputs: string[] = [];
    session.onOutput((chunk, _isFlooding, atMs) => outputs.push({ text: chunk.toString(), atMs }));
    session.onInput((chunk) => inputs.push(chunk.toString()));
    await session.exited;

    const text = outputs.map((o) => o.text).join('');
    expect(text).toContain('early\r\n');
    expect(text.indexOf('early')).toBeLessThan(text.indexOf('got typed'));
    expect(inputs.join('')).toBe('typed\r');
    // Held chunks carry the time they arrived, before the taps attached.
    expect(outputs[0]?.atMs).toBeLessThan(attachedAtMs);
  });

  it('keeps passing output through when a tap throws, and warns once', async () => {
    const terminal = new FakeTerminal();
    const warnings: string[] = [];
    const session = launch(terminal, 'for i in 1 2 3 4 5; do echo line$i; sleep 0.02; done', warnings);
    let calls = 0;
    session.onOutput(() => {
      calls += 1;
      throw new Error('tap bug');
    });

    await session.exited;

    expect(terminal.text()).toContain('line1\r\nline2\r\nline3\r\nline4\r\nline5\r\n');
    expect(calls).toBeGreaterThan(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tap bug');
  });

  it('sends typed bytes to the agent, then to the input tap', async () => {
    const terminal = new FakeTerminal();
    const session = launch(terminal, 'read line; echo "got:$line"');
    const typed: string[] = [];
    session.onInput((chunk) => typed.push(chunk.toString()));
    await new Promise((resolve) => setTimeout(resolve, 200));

    terminal.type('héllo\r');
    await session.exited;

    expect(terminal.text()).toContain('got:héllo');
    expect(typed).toEqual(['héllo\r']);
  });

  it('resizes the pty with the terminal and tells the resize tap', async () => {
    const terminal = new FakeTerminal({ cols: 80, rows: 24 });
    const session = launch(terminal, 'trap "stty size; exit 0" WINCH; echo READY; while :; do sleep 0.05; done');
    const resizes: Array<[number, number]> = [];
    session.onResize((cols, rows) => resizes.push([cols, rows]));
    await until(() => terminal.text().includes('READY'));

    terminal.setSize({ cols: 120, rows: 40 });
    await session.exited;

    expect(terminal.text()).toContain('40 120');
    expect(resizes).toEqual([[120, 40]]);
    expect(session.size()).toEqual({ cols: 120, rows: 40 });
  });

  it('enters raw mode once, and at exit resets leftover modes and restores the terminal', async () => {
    const terminal = new FakeTerminal();
    const session = launch(terminal, 'printf "\\033[?1049h\\033[?1002h\\033[>1u"; exit 3');

    const exit = await session.exited;

    expect(exit.code).toBe(3);
    expect(terminal.calls).toEqual(['enterRaw', 'restore', 'dispose']);
    expect(terminal.text().endsWith('\x1b[<1u\x1b[?1002l\x1b[?1049l')).toBe(true);
  });

  // The agent's pid is read from /proc (adapters/pty/spawn.ts commandPid); without it, unknown.
  it.skipIf(!existsSync('/proc/self/stat'))('exposes the agent pid under the job-control helper', async () => {
    const terminal = new FakeTerminal();
    const session = launch(terminal, 'echo "pid:$$"; sleep 0.3');
    await until(() => terminal.text().includes('pid:'));

    const agentPid = session.agentPid();
    await session.exited;

    expect(terminal.text()).toContain(`pid:${String(agentPid)}`);
    expect(agentPid).not.toBe(session.pid);
  });
});

describe('launchWrapped when agentwrap itself crashes', () => {
  it('restores the terminal, resets the modes the agent had on and lets the agent go', async () => {
    const fixture = `${REPO_ROOT}/dist/test/helpers/pty-crash-fixture.js`;
    const outer = openOuterTerminal(
      `B=$(stty -g); ${shellQuote(process.execPath)} ${shellQuote(fixture)} 2>/dev/null; echo "rc=$?"; A=$(stty -g); [ "$A" = "$B" ] && echo TERMIOS-RESTORED; echo END`,
    );

    const output = await outer.waitFor('END');

    expect(output).toContain('rc=1');
    expect(output).toContain('TERMIOS-RESTORED');
    const afterReady = output.slice(output.indexOf('READY'));
    expect(afterReady).toContain('\x1b[?25h');
    expect(afterReady).toContain('\x1b[?1049l');
    const agentPid = Number(/AGENT=(\d+)/.exec(output)?.[1]);
    await until(() => !isPidAlive(agentPid), 3_000);
    expect(isPidAlive(agentPid)).toBe(false);
  });
});
