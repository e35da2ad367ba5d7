import { describe, expect, it } from 'vitest';
import { FORWARDED_SIGNALS, handleSignals } from '../../../src/app/launch/signals.js';

const PTY = { commandPid: () => undefined, onStopped: () => () => undefined, signalGroup: () => undefined, signalForeground: () => undefined };
const TERMINAL = { suspendSelf: () => undefined, size: () => ({ cols: 80, rows: 24 }), restore: () => undefined, enterRaw: () => undefined };

describe('handleSignals', () => {
  it('forwards SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP and handles SIGCONT while active, and removes them all', () => {
    const watched = [...FORWARDED_SIGNALS, 'SIGTSTP', 'SIGCONT'] as const;
    const before = watched.map((s) => process.listenerCount(s));

    const handling = handleSignals(PTY, TERMINAL, () => undefined, true);
    const during = watched.map((s) => process.listenerCount(s));
    handling.dispose();

    expect(during).toEqual(before.map((n) => n + 1));
    expect(watched.map((s) => process.listenerCount(s))).toEqual(before);
  });

  it('installs no process handlers when forwarding is off, but still follows the agent stopping', () => {
    let stopListeners = 0;
    const before = process.listenerCount('SIGTERM');

    const handling = handleSignals({ ...PTY, onStopped: () => (stopListeners++, () => undefined) }, TERMINAL, () => undefined, false);

    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(stopListeners).toBe(1);
    handling.dispose();
  });
});
