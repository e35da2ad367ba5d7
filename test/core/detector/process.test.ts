import { describe, expect, it } from 'vitest';
import {
  cpuRate,
  descendantsFromChildren,
  descendantsFromParents,
  isForegroundGroup,
  parseChildrenList,
  parseStat,
  INITIAL_CPU_TRACKER,
  processEvidenceFrom,
  trackCpu,
  type ProcStat,
} from '../../../src/core/detector/process.js';
import { CPU_RATE_MIN_WINDOW_MS } from '../../../src/core/policy.js';

/** A stat line as the kernel writes it (52 fields), with the interesting ones overridable. */
function statLine(o: { pid?: number; comm?: string; state?: string; ppid?: number; pgrp?: number; tpgid?: number; utime?: number; stime?: number; cutime?: number; cstime?: number } = {}): string {
  const f = { pid: 100, comm: 'node', state: 'S', ppid: 1, pgrp: 100, tpgid: 100, utime: 10, stime: 5, cutime: 0, cstime: 0, ...o };
  const tail = Array.from({ length: 30 }, () => '0').join(' ');
  return `${f.pid} (${f.comm}) ${f.state} ${f.ppid} ${f.pgrp} ${f.pgrp} 34816 ${f.tpgid} 4194560 3108 40081 0 11 ${f.utime} ${f.stime} ${f.cutime} ${f.cstime} 20 0 7 0 32553 5124096 991 ${tail}\n`;
}

function stat(o: Parameters<typeof statLine>[0] = {}): ProcStat {
  const parsed = parseStat(statLine(o));
  if (parsed === undefined) throw new Error('test stat line did not parse');
  return parsed;
}

describe('parseStat', () => {
  it('reads the fields the detector uses', () => {
    const parsed = parseStat(statLine({ pid: 4242, comm: 'claude', state: 'R', ppid: 7, pgrp: 4242, tpgid: 4242, utime: 123, stime: 45, cutime: 6, cstime: 7 }));

    expect(parsed).toMatchObject({ pid: 4242, comm: 'claude', state: 'R', ppid: 7, pgrp: 4242, tpgid: 4242, utime: 123, stime: 45, cutime: 6, cstime: 7, numThreads: 7, starttime: 32553 });
  });

  it.each([
    ['spaces', 'tmux: server'],
    ['parentheses', 'a) (b'],
    ['a closing paren and digits', 'x) S 1 2 3'],
    ['nothing', ''],
  ])('keeps a comm with %s intact', (_name, comm) => {
    const parsed = parseStat(statLine({ comm, state: 'T', ppid: 9 }));

    expect(parsed).toMatchObject({ comm, state: 'T', ppid: 9 });
  });

  it('reads the real kernel format seen on this machine', () => {
    const line = '5790 (bash) S 5786 5790 5790 0 -1 4194560 3108 40081 0 11 0 2 94 342 20 0 1 0 32553 5124096 991 18446744073709551615 94620642091008 94620642880413 140721117120240 0 0 0 65536 4 1132560123 1 0 0 17 1 0 0 0 0 0';

    expect(parseStat(line)).toMatchObject({ pid: 5790, comm: 'bash', ppid: 5786, tpgid: -1, utime: 0, stime: 2, cutime: 94, cstime: 342 });
  });

  it.each([['garbage'], [''], ['12 (x) S 1'], ['abc (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20']])(
    'rejects %j',
    (line) => {
      expect(parseStat(line)).toBeUndefined();
    },
  );
});

describe('the process tree', () => {
  it('finds all descendants from (pid, ppid) pairs, not unrelated processes', () => {
    const pairs = [
      { pid: 10, ppid: 1 },
      { pid: 11, ppid: 10 },
      { pid: 12, ppid: 10 },
      { pid: 13, ppid: 11 },
      { pid: 99, ppid: 1 },
    ];

    expect(descendantsFromParents(pairs, 10)).toEqual([11, 12, 13]);
  });

  it('cuts cycles and respects the limit', () => {
    const children = new Map<number, number[]>([
      [1, [2]],
      [2, [3, 1]],
      [3, [2, 4, 5]],
    ]);

    expect(descendantsFromChildren((pid) => children.get(pid) ?? [], 1)).toEqual([2, 3, 4, 5]);
    expect(descendantsFromChildren((pid) => children.get(pid) ?? [], 1, 2)).toEqual([2, 3]);
  });

  it('parses a children file', () => {
    expect(parseChildrenList('12900 12901 ')).toEqual([12900, 12901]);
    expect(parseChildrenList('')).toEqual([]);
  });
});

describe('cpuRate', () => {
  it('has no rate on the first sample', () => {
    expect(cpuRate(undefined, 500, 1000).rate).toBeUndefined();
  });

  it('is cores of CPU per wall second', () => {
    const first = cpuRate(undefined, 500, 1000, 100);

    const second = cpuRate(first.sample, 650, 2000, 100);

    expect(second.rate).toBeCloseTo(1.5);
    expect(second.sample).toEqual({ totalTicks: 650, atMs: 2000 });
  });

  it('is unknown, not zero, when the tree total shrinks or time stands still', () => {
    expect(cpuRate({ totalTicks: 900, atMs: 0 }, 100, 1000).rate).toBeUndefined();
    expect(cpuRate({ totalTicks: 100, atMs: 1000 }, 200, 1000).rate).toBeUndefined();
  });
});

describe('trackCpu', () => {
  it('measures over at least CPU_RATE_MIN_WINDOW_MS and repeats the last rate for closer samples', () => {
    const first = trackCpu(INITIAL_CPU_TRACKER, 100, 0, 100);
    const second = trackCpu(first.tracker, 150, 1000, 100);

    const recheck = trackCpu(second.tracker, 160, 1000 + CPU_RATE_MIN_WINDOW_MS - 1, 100);
    const third = trackCpu(recheck.tracker, 160, 2000, 100);

    expect(first.rate).toBeUndefined();
    expect(second.rate).toBeCloseTo(0.5);
    expect(recheck.rate).toBeCloseTo(0.5);
    expect(recheck.tracker).toBe(second.tracker);
    expect(third.rate).toBeCloseTo(0.1);
  });
});

describe('foreground and evidence', () => {
  it('the agent owns the foreground when tpgid equals its group', () => {
    expect(isForegroundGroup({ pgrp: 100, tpgid: 100 })).toBe(true);
    expect(isForegroundGroup({ pgrp: 100, tpgid: 205 })).toBe(false);
    expect(isForegroundGroup({ pgrp: 100, tpgid: -1 })).toBeUndefined();
  });

  it('builds evidence from the tree, summing reaped-children CPU too', () => {
    const root = stat({ pid: 100, state: 'T', utime: 100, stime: 0, cutime: 50, tpgid: 300, pgrp: 100 });
    const kids = [stat({ pid: 101, comm: 'bash', ppid: 100, utime: 10, stime: 0 }), stat({ pid: 102, comm: 'sleep', state: 'Z', ppid: 101, utime: 0, stime: 0 })];

    const { evidence, cpu } = processEvidenceFrom(root, kids, { baseline: { totalTicks: 60, atMs: 0 }, lastRate: undefined }, 1000, 100);

    expect(cpu.baseline?.totalTicks).toBe(160);
    expect(evidence).toMatchObject({
      sampled: true,
      cpuRate: 1,
      agentState: 'T',
      isStopped: true,
      isZombie: false,
      isForeground: false,
      children: [
        { pid: 101, comm: 'bash', state: 'S' },
        { pid: 102, comm: 'sleep', state: 'Z' },
      ],
    });
  });
});
