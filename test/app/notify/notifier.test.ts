import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { createNotifier, NOTIFY_MIN_INTERVAL_MS, terminalNotification } from '../../../src/app/notify/notifier.js';
import type { TickLogEntry } from '../../../src/core/detector/tick-log.js';

const ENTRY = { decision: { ruleId: 'permission-dialog' } } as unknown as TickLogEntry;

function notifier(notify: boolean) {
  const clock = manualClock(0);
  const written: string[] = [];
  const warnings: string[] = [];
  const send = createNotifier({ notify, onStateCommand: undefined, env: {}, key: 'claude-1', sourceCli: 'claude', clock, warn: (w) => warnings.push(w), writeTerminal: (d) => written.push(d) });
  return { clock, written, warnings, send };
}

describe('createNotifier', () => {
  it('writes one terminal notification per state, at most once per NOTIFY_MIN_INTERVAL_MS', () => {
    const { clock, written, send } = notifier(true);

    send('blocked', ENTRY);
    send('blocked', ENTRY);
    send('done', ENTRY);
    clock.advanceBy(NOTIFY_MIN_INTERVAL_MS);
    send('blocked', ENTRY);

    expect(written).toEqual([
      terminalNotification('claude needs you', {}),
      terminalNotification('claude is done', {}),
      terminalNotification('claude needs you', {}),
    ]);
  });

  it('does nothing without --notify or --on-state', () => {
    const { written, send } = notifier(false);

    send('blocked', ENTRY);

    expect(written).toEqual([]);
  });
});

describe('terminalNotification', () => {
  it('sends OSC 9 and OSC 777, control characters blanked', () => {
    expect(terminalNotification('a\x1bb', {})).toBe('\x1b]9;a b\x07\x1b]777;notify;agentwrap;a b\x07');
  });

  it('wraps each sequence for tmux passthrough inside tmux', () => {
    expect(terminalNotification('hi', { TMUX: '/tmp/tmux' })).toBe('\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\\x1bPtmux;\x1b\x1b]777;notify;agentwrap;hi\x07\x1b\\');
  });
});
