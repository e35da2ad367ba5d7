import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { startRecordingTap } from '../../../src/app/live/recording-tap.js';
import type { Recorder } from '../../../src/app/recording/recorder.js';

const OPTIONS = { path: '/tmp/x.cast', withInput: false, cols: 80, rows: 24, command: ['claude'], env: {}, clock: manualClock(0), startMs: 0 };

describe('startRecordingTap', () => {
  it('queues what arrives before the file is open, in order, and closes the recorder', async () => {
    const calls: string[] = [];
    const recorder = {
      output: (c: Uint8Array) => calls.push(`out ${Buffer.from(c).toString()}`),
      input: () => calls.push('in'),
      resize: (c: number, r: number) => calls.push(`resize ${c}x${r}`),
      close: async () => void calls.push('close'),
    } as unknown as Recorder;
    const tap = startRecordingTap({ ...OPTIONS, warn: () => undefined }, async () => recorder);

    tap.output(Buffer.from('a'));
    tap.resize(100, 30);
    await tap.close();

    expect(calls).toEqual(['out a', 'resize 100x30', 'close']);
  });

  it('warns once when the file cannot be opened, and drops the rest', async () => {
    const warnings: string[] = [];
    const tap = startRecordingTap({ ...OPTIONS, warn: (w) => warnings.push(w) }, async () => {
      throw new Error('EACCES: permission denied');
    });

    tap.output(Buffer.from('a'));
    await tap.close();
    tap.output(Buffer.from('b'));

    expect(warnings).toEqual(['not recording: EACCES: permission denied']);
  });
});
