import { describe, expect, it } from 'vitest';
import { closeLiveSession, type LiveSessionParts } from '../../../src/app/live/shutdown.js';

describe('closeLiveSession', () => {
  it('stops taps and timers, publishes the final state, and only then removes the record', async () => {
    const calls: string[] = [];
    const log = (name: string) => () => void calls.push(name);
    const parts = {
      launched: { exited: Promise.resolve({ code: 3, signal: undefined }) },
      disposers: [log('dispose tap')],
      loop: { stop: log('loop stop'), written: async () => void calls.push('written') },
      metadataExpiry: { stop: log('metadata stop') },
      screen: { flush: async () => void calls.push('flush'), dispose: log('screen dispose') },
      detector: { noteExit: (code: number) => void calls.push(`noteExit ${code}`), evaluate: log('evaluate') },
      publishing: Promise.resolve({ close: async () => void calls.push('control close') }),
      publisher: { store: { remove: async () => void calls.push('record removed') } },
      recording: { close: async () => void calls.push('recording close') },
      signalsOut: { close: async () => void calls.push('signals close') },
    } as unknown as LiveSessionParts;

    await closeLiveSession(parts);

    expect(calls).toEqual([
      'loop stop',
      'dispose tap',
      'metadata stop',
      'flush',
      'written',
      'noteExit 3',
      'evaluate',
      'control close',
      'record removed',
      'signals close',
      'recording close',
      'screen dispose',
    ]);
  });
});
