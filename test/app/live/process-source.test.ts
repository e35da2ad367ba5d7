import { describe, expect, it } from 'vitest';
import { createProcessSource, PROCESS_SAMPLE_MIN_MS } from '../../../src/app/live/process-source.js';
import type { ProcessProbe, ProcessRoot } from '../../../src/adapters/process/evidence-source.js';

function fakeProbe(): { open: (root: ProcessRoot) => ProcessProbe; opened: number[]; samples: number[] } {
  const opened: number[] = [];
  const samples: number[] = [];
  return {
    opened,
    samples,
    open: (root) => {
      opened.push('pid' in root ? root.pid : -root.firstChildOf);
      return {
        source: 'none',
        coverage: () => ({ source: 'none', missing: ['cpu'], why: 'fake' }),
        sample: (nowMs) => {
          samples.push(nowMs);
          return { sampled: false, reason: `sample at ${nowMs}` };
        },
      };
    },
  };
}

describe('createProcessSource', () => {
  it('says the sample is absent (not quiet) until the agent pid is known', () => {
    const probe = fakeProbe();
    const source = createProcessSource(() => undefined, undefined, probe.open);

    expect(source(0)).toEqual({ sampled: false, reason: 'agent pid not known yet' });
    expect(probe.opened).toEqual([]);
  });

  it('samples at most once per PROCESS_SAMPLE_MIN_MS and follows the first pid for good', () => {
    const probe = fakeProbe();
    let pid = 100;
    const source = createProcessSource(() => pid, undefined, probe.open);

    source(1_000);
    source(1_000 + PROCESS_SAMPLE_MIN_MS - 1);
    pid = 200;
    source(1_000 + PROCESS_SAMPLE_MIN_MS);

    expect(probe.samples).toEqual([1_000, 1_000 + PROCESS_SAMPLE_MIN_MS]);
    expect(probe.opened).toEqual([100]);
  });

  it('where the agent pid cannot be read (no /proc), samples the first child of the job-control helper', () => {
    const withoutProc = fakeProbe();
    const withProc = fakeProbe();

    createProcessSource(() => undefined, undefined, withoutProc.open, 42, false)(0);
    createProcessSource(() => undefined, undefined, withProc.open, 42, true)(0);

    expect(withoutProc.opened).toEqual([-42]);
    expect(withProc.opened).toEqual([]);
  });
});
