/**
 * The outer terminal of the end-to-end tests must not lose what the program in it wrote last.
 * Plain node-pty does (upstream #85, #726; src/adapters/pty/read-tail.ts explains both ways),
 * whenever the test's own thread is busy as the program exits: the test then waits for a line
 * that was written but dropped. That was the "stall at exit" of `delivers every byte of a
 * large write made right before the agent exits` (test/cli/launch.test.ts) in a full suite
 * run beside two busy loops: 4,994,040 of 5,000,000 bytes, no `THE-END`, no `rc=`, although
 * agentwrap had delivered everything and exited 0.
 */
import { describe, expect, it } from 'vitest';
import { isPidAlive } from '../../src/adapters/process/alive.js';
import { openOuterTerminal } from './pty-outer.js';

/** Keeps this thread busy (no timers, no reads) as a loaded machine would. */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('the outer terminal of end-to-end tests', () => {
  it('keeps what the program wrote right before it exited while the test was busy', async () => {
    const bytes = 6_000;
    const outer = openOuterTerminal(`head -c ${String(bytes)} /dev/zero | tr '\\0' x; echo; echo END`);
    // Busy from before the program's exit until well after it (node-pty reaps it on its own
    // thread meanwhile), past node-pty's 200 ms exit timer: the tail is still in the kernel.
    for (let waited = 0; isPidAlive(outer.pty.pid) && waited < 20_000; waited += 10) blockFor(10);
    blockFor(1_000);

    const output = await outer.waitFor('END');

    expect(output.split('x')).toHaveLength(bytes + 1);
    expect(output).toMatch(/x\r\nEND\r\n$/);
  });
});
