/**
 * A signal that reaches agentwrap while the launch is still setting up (raw mode on, the agent
 * about to be spawned, the signal handlers not yet installed). Seen in a full suite run beside
 * two busy loops: SIGHUP sent right after the agent's first line killed agentwrap by the
 * default action ("Hangup", the terminal left raw). Here the signal is sent from inside the
 * raw-mode step, the middle of that gap, so it does not depend on the machine's timing.
 * Without the hold this test file's own worker process dies of the SIGHUP.
 */
import { describe, expect, it } from 'vitest';
import { launchWrapped } from '../../../src/app/launch/launch.js';
import { FakeTerminal } from '../../helpers/term-fake.js';

/** A terminal whose raw-mode step is where the user's `kill -HUP` lands. */
class SignalledDuringRaw extends FakeTerminal {
  constructor(private readonly signal: NodeJS.Signals) {
    super();
  }

  override enterRaw(): void {
    super.enterRaw();
    process.kill(process.pid, this.signal);
  }
}

describe('launchWrapped, signalled before its handlers are in place', () => {
  it('survives the signal, forwards it to the agent once it runs, and restores the terminal', async () => {
    const terminal = new SignalledDuringRaw('SIGHUP');

    const session = launchWrapped({ file: '/bin/sh', args: ['-c', 'echo READY; sleep 20'], terminal, warn: () => undefined });
    const exit = await session.exited;

    // The agent ended by the forwarded SIGHUP (128 + 1, as its shell would say), long before its
    // 20 s sleep.
    expect(exit.code).toBe(129);
    expect(terminal.calls).toContain('restore');
  });
});
