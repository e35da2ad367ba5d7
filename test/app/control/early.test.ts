import { describe, expect, it } from 'vitest';
import type { ControlHandlers, ControlParams } from '../../../src/app/control/socket.js';
import { PendingHandlers } from '../../../src/app/control/early.js';

/** Handlers that log what reached them. */
function loggingHandlers(log: string[]): ControlHandlers {
  return {
    explain: () => 'explained',
    capture: () => 'captured',
    ack: () => ({ changed: false }),
    report: (params: ControlParams) => {
      log.push(`report ${String(params['event'])}`);
      return { accepted: true };
    },
    subscribe: () => {
      log.push('subscribed');
      return () => log.push('unsubscribed');
    },
    info: () => ({ session: 'k1' }),
    history: () => ({ history: [] }),
    screen: () => () => undefined,
  };
}

describe('PendingHandlers: the control socket before the live session has loaded', () => {
  it('answers a report at once and hands the kept reports over in order when the session attaches', async () => {
    const pending = new PendingHandlers();
    const log: string[] = [];

    expect(pending.report({ event: 'SessionStart' })).toEqual({ kept: true });
    expect(pending.report({ event: 'UserPromptSubmit' })).toEqual({ kept: true });
    expect(log).toEqual([]);
    pending.attach(loggingHandlers(log));
    expect(log).toEqual(['report SessionStart', 'report UserPromptSubmit']);
    expect(pending.report({ event: 'Stop' })).toEqual({ accepted: true });
    expect(log).toEqual(['report SessionStart', 'report UserPromptSubmit', 'report Stop']);
  });

  it('holds explain until the session attaches, then answers it', async () => {
    const pending = new PendingHandlers();
    let answer: unknown;
    const asked = pending.explain({}).then((value) => {
      answer = value;
    });
    await Promise.resolve();
    expect(answer).toBeUndefined();

    pending.attach(loggingHandlers([]));
    await asked;
    expect(answer).toBe('explained');
    expect(pending.info()).toEqual({ session: 'k1' });
  });

  it('starts a subscription made meanwhile once attached, and never one ended before', async () => {
    const log: string[] = [];
    const pending = new PendingHandlers();
    pending.subscribe(() => undefined);
    const ended = pending.subscribe(() => undefined);
    ended();

    pending.attach(loggingHandlers(log));
    await Promise.resolve();
    expect(log).toEqual(['subscribed']);
  });
});
