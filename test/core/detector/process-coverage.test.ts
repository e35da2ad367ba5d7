import { describe, expect, it } from 'vitest';
import { describeProcessCoverage } from '../../../src/core/detector/process-coverage.js';

describe('describeProcessCoverage', () => {
  it('says nothing when nothing is missing', () => {
    expect(describeProcessCoverage({ source: 'procfs', missing: [], why: undefined })).toBeUndefined();
  });

  it('names every lost kind and what detection falls back to when all are missing', () => {
    expect(describeProcessCoverage({ source: 'none', missing: ['foreground', 'cpu', 'agent-state', 'children'], why: 'no /proc' })).toBe(
      "no /proc: busy-without-output, child-process, stopped/zombie-agent and child-in-foreground evidence unavailable; detection relies on screen, title and the agent's own signals",
    );
  });

  it('says what is still read when only some kinds are missing', () => {
    expect(describeProcessCoverage({ source: 'procfs', missing: ['children'], why: '/proc without task children files' })).toBe(
      '/proc without task children files: child-process evidence unavailable; busy-without-output, stopped/zombie-agent and child-in-foreground evidence still read',
    );
  });
});
