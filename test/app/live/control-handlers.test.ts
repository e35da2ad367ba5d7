import { describe, expect, it } from 'vitest';
import { controlHandlers, type ControlHandlerParts } from '../../../src/app/live/control-handlers.js';

describe('controlHandlers', () => {
  it('hands a report to the reporter, marks it on the detector, and asks for an evaluation', () => {
    const calls: string[] = [];
    const parts = {
      identity: { key: 'claude-1', sourceCli: 'claude' },
      detector: { noteReport: () => calls.push('noteReport'), ack: () => (calls.push('ack'), true) },
      reporter: { handle: (params: unknown) => (calls.push(`handle ${JSON.stringify(params)}`), { ok: true }) },
      onReport: () => calls.push('onReport'),
    } as unknown as ControlHandlerParts;
    const handlers = controlHandlers(parts);

    const reply = handlers.report({ event: 'Stop' });
    const acked = handlers.ack({});

    expect(reply).toEqual({ ok: true });
    expect(acked).toEqual({ changed: true });
    expect(calls).toEqual(['handle {"event":"Stop"}', 'noteReport', 'onReport', 'ack']);
    expect(handlers.info?.()).toEqual({ session: 'claude-1', agent: 'claude' });
  });
});
