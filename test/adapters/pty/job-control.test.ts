/**
 * The job-control helper (JOB_CONTROL_SCRIPT in src/adapters/pty/job-control.ts) while an agent is paused
 * from outside (`kill -STOP`): it sleeps in `wait` until the agent's SIGCHLD, so it starts no
 * process while the agent stays stopped (its earlier loop ran `grep` and `sleep 0.2` five
 * times a second: ~2 s of CPU per 30 s), and still notices the agent being continued or
 * killed. (CPU itself is measured in docs/launcher.md, not asserted: no speed checks here.)
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childEnvironment, readChildPids, readProcStat, spawnPty, type PtyProcess } from '../../../src/adapters/pty/index.js';
import { signalTarget } from '../../../src/adapters/pty/job-control.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function spawnAgent(script: string): PtyProcess {
  return spawnPty({ file: '/bin/sh', args: ['-c', script], cols: 80, rows: 24, env: childEnvironment(process.env) });
}

async function agentOf(pty: PtyProcess): Promise<number> {
  for (let k = 0; k < 100 && pty.commandPid() === undefined; k++) await sleep(20);
  return pty.commandPid() as number;
}

async function ranFirstLine(output: () => string): Promise<void> {
  for (let k = 0; k < 250 && !output().includes('READY'); k++) await sleep(20);
}

/** Every child of the helper seen while sampling every 50 ms for `forMs`. */
async function helperChildrenOver(helper: number, forMs: number): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let at = 0; at < forMs; at += 50) {
    for (const pid of readChildPids(helper)) seen.add(pid);
    await sleep(50);
  }
  return seen;
}

const hasProc = existsSync('/proc/self/stat');

describe.skipIf(!hasProc)('job-control helper with the agent stopped from outside', () => {
  it('starts nothing while the agent stays stopped, and resumes it in the foreground once continued', async () => {
    const pty = spawnAgent('echo READY; read line; echo "got $line"');
    let text = '';
    pty.onData((chunk) => {
      text += chunk.toString();
    });
    const agent = await agentOf(pty);
    // Stopped once it runs its own program: stopped between the helper's vfork and its exec, the
    // helper itself waits in the kernel until the agent goes on (seen under load: 8 of 30).
    await ranFirstLine(() => text);
    process.kill(agent, 'SIGSTOP');
    await sleep(500); // the helper takes the terminal back and settles into its wait

    const children = await helperChildrenOver(pty.pid, 1500);
    const stateWhileStopped = readProcStat(agent)?.state;
    process.kill(agent, 'SIGCONT');
    await sleep(500);
    pty.write('back\r');
    const exit = await pty.exited;
    pty.dispose();

    expect(stateWhileStopped).toBe('T');
    // The agent and the one sleeper the helper waits on; no polling processes came and went.
    expect(children.size).toBe(2);
    expect(children.has(agent)).toBe(true);
    expect(text).toContain('got back');
    expect(exit.code).toBe(0);
  });

  it('passes on the exit of an agent killed while stopped', async () => {
    const pty = spawnAgent('echo READY; sleep 100');
    const agent = await agentOf(pty);
    process.kill(agent, 'SIGSTOP');
    await sleep(500);

    process.kill(agent, 'SIGKILL');
    const exit = await pty.exited;
    pty.dispose();

    expect(exit.code).toBe(137);
  });
});

describe.skipIf(hasProc)('job-control helper without /proc, the agent stopped from outside', () => {
  it('leaves the agent paused (the helper suspends as on Ctrl-Z) until the helper is continued', async () => {
    // Without /proc the agent's pid is not known to agentwrap: the agent says it.
    const pty = spawnAgent('echo "PID=$$ READY"; read line; echo "got $line"');
    let text = '';
    pty.onData((chunk) => {
      text += chunk.toString();
    });
    await ranFirstLine(() => text);
    const agent = Number(/PID=(\d+)/.exec(text)?.[1]);
    process.kill(agent, 'SIGSTOP');
    await sleep(800); // a window for a wrong reaction (the helper continuing the agent) to show
    pty.write('back\r');
    await sleep(800);
    const whilePaused = text;
    // The user's `fg`: agentwrap continues the helper, which continues the agent in the foreground.
    process.kill(pty.pid, 'SIGCONT');
    const exit = await pty.exited;
    pty.dispose();

    expect(whilePaused).not.toContain('got back');
    expect(text).toContain('got back');
    expect(exit.code).toBe(0);
  });
});

describe('a signal "as if typed" sent the moment the agent is spawned', () => {
  it('reaches the agent every time, also before the pty\'s child has made its own session', async () => {
    // forkpty's setsid runs in the child after the spawn returned: a signal sent at once could
    // find no group to go to (seen: about 1 in 40 on a quiet machine, the agent then ran on).
    const codes: number[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const pty = spawnAgent('echo READY; sleep 20');
      pty.signalForeground('SIGHUP');
      const ended = await Promise.race([pty.exited.then((exit) => exit.code), sleep(4_000).then(() => -1)]);
      if (ended === -1) pty.signalGroup('SIGKILL');
      pty.dispose();
      codes.push(ended);
    }
    expect(codes).toEqual(Array.from({ length: 20 }, () => 129));
  });
});

describe('where a signal "as if typed" goes (signalTarget)', () => {
  const HELPER = 100;
  const AGENT = 101;

  it('goes to the foreground group while the agent holds the terminal', () => {
    expect(signalTarget(HELPER, { tpgid: AGENT, session: HELPER }, AGENT, { pgrp: AGENT, state: 'S' })).toBe(-AGENT);
  });

  it('goes to the agent, not the helper, while the helper holds the terminal with the agent running', () => {
    // Between the helper's fork and its tcsetpgrp at start: the helper's group is still the foreground.
    expect(signalTarget(HELPER, { tpgid: HELPER, session: HELPER }, AGENT, { pgrp: AGENT, state: 'R' })).toBe(-AGENT);
    // Before the agent's own setpgid it is still in the helper's group: the agent alone.
    expect(signalTarget(HELPER, { tpgid: HELPER, session: HELPER }, AGENT, { pgrp: HELPER, state: 'R' })).toBe(AGENT);
  });

  it('goes to the helper\'s group before the agent exists, when the agent is stopped, and without /proc', () => {
    expect(signalTarget(HELPER, { tpgid: HELPER, session: HELPER }, undefined, undefined)).toBe(-HELPER);
    expect(signalTarget(HELPER, { tpgid: HELPER, session: HELPER }, AGENT, { pgrp: AGENT, state: 'T' })).toBe(-HELPER);
    expect(signalTarget(HELPER, undefined, undefined, undefined)).toBe(-HELPER);
  });

  it('goes to the pty\'s child alone before it has made its own session', () => {
    // forkpty's setsid had not run yet: the child is still in agentwrap's session and group,
    // and the foreground group its stat names is agentwrap's own (OUTER).
    const OUTER = 50;
    expect(signalTarget(HELPER, { tpgid: OUTER, session: OUTER }, undefined, undefined)).toBe(HELPER);
  });
});
