/**
 * The parts spawnPty is composed of, one by one (test/adapters/pty/pty.test.ts runs them together
 * against real PTYs).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_CONTROL_SCRIPT, JOB_CONTROL_SHELL, jobCommand, StopWatch } from '../../../src/adapters/pty/job-control.js';
import { OutputFanout } from '../../../src/adapters/pty/read-tail.js';

describe('jobCommand', () => {
  it('runs the command as the helper job by default, and bare with jobControl false', () => {
    expect(jobCommand({ file: '/bin/agent', args: ['-x'] })).toEqual([JOB_CONTROL_SHELL, ['-c', JOB_CONTROL_SCRIPT, 'agentwrap-job', '/bin/agent', '-x']]);
    expect(jobCommand({ file: '/bin/agent', args: ['-x'], jobControl: false })).toEqual(['/bin/agent', ['-x']]);
  });
});

describe('StopWatch', () => {
  it('listens to SIGCHLD only while someone listens to it', () => {
    const before = process.listenerCount('SIGCHLD');
    const stops = new StopWatch(process.pid);

    const off = stops.add(() => undefined);
    const during = process.listenerCount('SIGCHLD');
    off();

    expect(during).toBe(before + 1);
    expect(process.listenerCount('SIGCHLD')).toBe(before);
  });

  // The macOS way (no /proc), run here with procps: Linux's ps needs /proc itself.
  const PS = ['/bin/ps', '/usr/bin/ps'].find((path) => existsSync(path));
  it.skipIf(PS === undefined || !existsSync('/proc/self/stat'))('sees a stopped child through ps where /proc is not used', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const stops = new StopWatch(child.pid ?? -1, PS);
    try {
      const stopped = new Promise<string>((resolve) => stops.add(() => resolve('stopped')));
      child.kill('SIGSTOP');

      expect(await stopped).toBe('stopped');
    } finally {
      stops.dispose();
      child.kill('SIGKILL');
    }
  });
});

describe('OutputFanout', () => {
  it('hands each chunk to every listener in order and counts chunks for the drain check', () => {
    const fanout = new OutputFanout();
    const seen: string[] = [];
    fanout.listeners.add((chunk, isFlooding, atMs) => seen.push(`a ${chunk.toString()} ${isFlooding} ${atMs}`));
    fanout.listeners.add((chunk) => seen.push(`b ${chunk.toString()}`));

    fanout.dispatch(Buffer.from('x'));
    fanout.dispatch(Buffer.from('y'), true, 5);

    expect(seen).toEqual(['a x false undefined', 'b x', 'a y true 5', 'b y']);
    expect(fanout.count).toBe(2);
  });
});
