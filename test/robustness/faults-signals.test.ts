/**
 * Signals and exits around a running session, through the real CLI in a real outer terminal
 * run by a non-interactive /bin/sh (which, like a script, never repairs the terminal of a
 * killed job itself): agentwrap or the agent killed or stopped, and the agent exiting in the
 * middle of resizes. Every case asserts the exit code, the bytes delivered, the terminal modes
 * afterwards and what became of the record.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPidAlive } from '../../src/adapters/process/alive.js';
import { readSessionsReport, sweepStaleRecords } from '../../src/app/sessions/store.js';
import { DEFAULT_RECORD_TTL_MS } from '../../src/core/records/session-record.js';
import { CLI, isAlive, openRawTerminal, shellQuote, sleep, stateRoots, statusJson, waitForStatus, waitUntil } from './harness.js';

const { make: stateRoot } = stateRoots('aw-robust-faults-');

/**
 * The CLI wrapping `agent` inside `/bin/sh -c`, which afterwards prints the outer terminal's
 * modes: a non-interactive sh, like a script, never repairs the terminal of a killed job itself.
 */
function wrappedInShell(agent: string, env: Record<string, string>, cliArgs: readonly string[] = ['run', '--']) {
  const cli = [process.execPath, CLI, ...cliArgs].map(shellQuote).join(' ');
  const script = `${cli} sh -c ${shellQuote(agent)}; echo "rc=$?"; sleep 0.5; echo "MODES[$(stty -a | grep -o -- '-\\?\\(opost\\|icanon\\|echo\\|isig\\)\\b' | tr '\\n' ' ')]"`;
  return openRawTerminal('/bin/sh', ['-c', script], { env });
}

/** The outer terminal's modes, as printed by wrappedInShell. */
function modesOf(text: string): string {
  return /MODES\[([^\]]*)\]/.exec(text)?.[1]?.trim() ?? '';
}
const COOKED = 'opost isig icanon echo';

async function oneSession(env: Record<string, string>) {
  const status = await waitForStatus(env, (s) => s.sessions.length === 1);
  const session = status.sessions[0];
  if (session === undefined) throw new Error('no session');
  return { key: session.key, wrapperPid: Number(session.record['wrapper_pid']), agentPid: Number(session.record['pid']), control: String(session.record['control']) };
}

describe('agentwrap killed with SIGKILL', () => {
  it('hangs the agent up, restores the terminal through its guardian, and leaves a record that readers drop and the TTL expires', async () => {
    const { root, env } = stateRoot();
    const hupFile = join(root, '..', 'hup');
    // The agent switches on the alternate screen, a hidden cursor and bracketed paste, and notes SIGHUP.
    const agent = `trap 'echo HUP > ${hupFile}; exit 129' HUP; printf '\\033[?1049h\\033[?25l\\033[?2004hREADY\\n'; while :; do sleep 0.1; done`;
    const term = wrappedInShell(agent, env);
    await term.waitFor('READY');
    const session = await oneSession(env);
    const guardian = guardianOf(session.wrapperPid);
    expect(guardian).toBeGreaterThan(0);
    const before = term.received();

    process.kill(session.wrapperPid, 'SIGKILL');
    await term.waitFor('MODES[');

    // The guardian wrote the resets for the modes the agent left on, then cooked the terminal.
    const after = term.bytes().subarray(before).toString('latin1');
    expect(after).toContain('\x1b[?25h');
    expect(after).toContain('\x1b[?2004l');
    expect(after).toContain('\x1b[?1049l');
    expect(term.text()).toContain('rc=137');
    expect(modesOf(term.text())).toBe(COOKED);
    // The agent got SIGHUP from its pty closing, and is gone.
    await waitUntil(() => existsSync(hupFile), 5_000, 'the agent to note SIGHUP');
    expect(readFileSync(hupFile, 'utf8').trim()).toBe('HUP');
    await waitUntil(() => !isAlive(session.agentPid), 5_000, 'the agent to exit');

    // The record stays behind, but `status` drops it at once: its wrapper is dead.
    const recordPath = join(root, 'sessions', `${session.key}.json`);
    expect(existsSync(recordPath)).toBe(true);
    expect((await statusJson(env)).sessions).toEqual([]);
    // …and once its lease ends it is expired for every reader, and the next sweep deletes it
    // together with the stale control socket.
    const afterTtl = Date.now() + DEFAULT_RECORD_TTL_MS + 1_000;
    expect(readSessionsReport(root, afterTtl, () => true).skipped).toEqual([{ path: recordPath, reason: 'expired' }]);
    expect(lstatSync(session.control).isSocket()).toBe(true);
    expect(sweepStaleRecords(root, afterTtl, isPidAlive)).toEqual([session.key]);
    expect(existsSync(recordPath)).toBe(false);
    expect(existsSync(session.control)).toBe(false);
    // The guardian did its job and exited.
    await waitUntil(() => !isAlive(guardian ?? 0), 5_000, 'the guardian to exit');
  });

  it('writes nothing extra and leaves no guardian behind after a clean exit', async () => {
    const { env } = stateRoot();
    const term = wrappedInShell(`echo READY; read line; printf 'plain\\n'; exit 5`, env);
    await term.waitFor('READY');
    const guardian = guardianOf((await oneSession(env)).wrapperPid);
    expect(guardian).toBeGreaterThan(0);
    term.pty.write('\r');
    await term.waitFor('MODES[');

    expect(term.text()).toContain('rc=5');
    expect(modesOf(term.text())).toBe(COOKED);
    // Between the agent's output and the shell's next line: nothing (no resets, no warnings).
    expect(term.text()).toMatch(/plain\r?\nrc=5/);
    await waitUntil(() => !isAlive(guardian ?? 0), 5_000, 'the guardian to exit');
  });
});

describe('the agent killed, stopped, or exiting while the terminal resizes', () => {
  it('passes on a SIGKILL of the agent as exit code 137, restores the terminal and removes the record', async () => {
    const { root, env } = stateRoot();
    const term = wrappedInShell(`printf '\\033[?1049hREADY\\n'; exec sleep 30`, env);
    await term.waitFor('READY');
    const session = await oneSession(env);

    process.kill(session.agentPid, 'SIGKILL');
    await term.waitFor('MODES[');

    expect(term.text()).toContain('rc=137');
    expect(modesOf(term.text())).toBe(COOKED);
    expect(term.text()).toContain('\x1b[?1049l');
    expect(existsSync(join(root, 'sessions', `${session.key}.json`))).toBe(false);
  });

  it('survives SIGSTOP and SIGCONT of agentwrap and of the agent, delivering every byte written meanwhile', async () => {
    const { env } = stateRoot();
    // 20 lines of 4 KB every 100 ms for ~3 s: the pty fills up while agentwrap is stopped.
    // The 4 KB line is made once: a subshell and `tr` per line made the agent itself the slow
    // part on a loaded machine (600 of each).
    const agent = `x=$(printf '%4000s' | tr ' ' x); i=0; while [ $i -lt 30 ]; do i=$((i+1)); j=0; while [ $j -lt 20 ]; do j=$((j+1)); printf '%04d-%02d %s\\n' $i $j "$x"; done; sleep 0.1; done; echo FINISHED`;
    const term = wrappedInShell(agent, env);
    await term.waitFor('0001-01');
    const session = await oneSession(env);

    process.kill(session.wrapperPid, 'SIGSTOP');
    await sleep(700);
    process.kill(session.wrapperPid, 'SIGCONT');
    await sleep(300);
    process.kill(session.agentPid, 'SIGSTOP');
    await sleep(700);
    expect(isAlive(session.wrapperPid)).toBe(true);
    process.kill(session.agentPid, 'SIGCONT');
    // A wait, not a speed check: on a loaded machine the 2.4 MB burst takes many seconds to drain.
    await term.waitFor('MODES[', 60_000);

    const text = term.text();
    expect(text).toContain('FINISHED');
    expect(text).toContain('rc=0');
    for (let i = 1; i <= 30; i++) for (let j = 1; j <= 20; j++) expect(text).toContain(`${String(i).padStart(4, '0')}-${String(j).padStart(2, '0')} ${'x'.repeat(4000)}`);
    expect(modesOf(text)).toBe(COOKED);
  }, 90_000);

  it('ends cleanly with the agent’s exit code when the agent exits in the middle of a burst of resizes', async () => {
    const { env } = stateRoot();
    const term = wrappedInShell(`trap 'exit 3' WINCH; echo READY; while :; do sleep 0.05; done`, env);
    await term.waitFor('READY');

    for (let i = 0; i < 60; i++) {
      term.pty.resize(60 + (i % 40), 20 + (i % 15));
      if (i % 10 === 0) await sleep(5);
    }
    await term.waitFor('MODES[');

    expect(term.text()).toContain('rc=3');
    expect(term.text()).not.toMatch(/internal error|Error:|EBADF/);
    expect(modesOf(term.text())).toBe(COOKED);
  });
});

/** The pid of the terminal guardian the wrapper `wrapperPid` started (a child of it). */
function guardianOf(wrapperPid: number): number | undefined {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/);
    if (Number(ppid) === wrapperPid && line.includes('agentwrap-guardian')) return Number(pid);
  }
  return undefined;
}

