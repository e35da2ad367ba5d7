import { describe, expect, it } from 'vitest';
import { INITIAL_CPU_TRACKER } from '../../../src/core/detector/process.js';
import { parsePsLine, parsePsOutput, parsePsTime, processEvidenceFromPs } from '../../../src/core/detector/ps-output.js';
import { CPU_RATE_MIN_WINDOW_MS } from '../../../src/core/policy.js';

describe('ps output', () => {
  it.each([
    ['0:00.05', 5], // macOS, minutes:seconds.hundredths
    ['123:45.67', (123 * 60 + 45.67) * 100],
    ['00:00:07', 700], // procps, hh:mm:ss
    ['1-02:03:04', (86_400 + 2 * 3600 + 3 * 60 + 4) * 100],
  ])('reads the CPU time %s', (text, ticks) => {
    expect(parsePsTime(text)).toBeCloseTo(ticks, 6);
  });

  it.each(['', '7', '1:x', '0:00,05', '-1:00'])('refuses the CPU time "%s"', (text) => {
    expect(parsePsTime(text)).toBeUndefined();
  });

  it('reads a macOS line: path comm with spaces, BSD state flags, idle as sleeping', () => {
    expect(parsePsLine('  412   400   412   412 Is+    0:01.50 /Applications/Some App.app/Contents/MacOS/Some App')).toEqual({
      pid: 412,
      ppid: 400,
      pgid: 412,
      tpgid: 412,
      state: 'S',
      cpuTicks: 150,
      comm: 'Some App',
    });
  });

  it('skips headers, blanks and cut-off lines', () => {
    expect(parsePsOutput('  PID  PPID\n\n  1 0 1 -1 Ss 0:00.01 launchd\n  2 1 2')).toEqual([
      { pid: 1, ppid: 0, pgid: 1, tpgid: -1, state: 'S', cpuTicks: 1, comm: 'launchd' },
    ]);
  });

  it('builds the agent tree, its CPU rate and foreground from two listings', () => {
    const listing = (agentTicks: number, childTicks: number) =>
      parsePsOutput(
        [
          `  1 0 1 -1 Ss 0:00.00 launchd`,
          `  100 1 100 200 S 0:${(agentTicks / 100).toFixed(2).padStart(5, '0')} claude`,
          `  200 100 200 200 R+ 0:${(childTicks / 100).toFixed(2).padStart(5, '0')} cargo`,
          `  300 1 300 -1 S 0:09.00 unrelated`,
        ].join('\n'),
      );
    const first = processEvidenceFromPs(listing(100, 0), 100, INITIAL_CPU_TRACKER, 0, 256);
    const second = processEvidenceFromPs(listing(150, 50), 100, first.cpu, CPU_RATE_MIN_WINDOW_MS, 256);

    expect(second.evidence).toMatchObject({
      sampled: true,
      agentState: 'S',
      children: [{ pid: 200, comm: 'cargo', state: 'R' }],
      // The child holds the terminal's foreground group (tpgid 200), not the agent (pgid 100).
      isForeground: false,
    });
    expect(second.evidence.sampled && second.evidence.cpuRate).toBeCloseTo(1 / (CPU_RATE_MIN_WINDOW_MS / 1000), 6);
  });

  it('says the agent is not in the listing rather than quiet', () => {
    expect(processEvidenceFromPs([], 100, INITIAL_CPU_TRACKER, 0, 256).evidence).toEqual({ sampled: false, reason: 'process 100 not in ps output' });
  });
});
