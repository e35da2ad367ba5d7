/**
 * The parts spawnPty is composed of, one by one (test/adapters/pty/pty.test.ts runs them together
 * against real PTYs).
 */
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
