import { describe, expect, it } from 'vitest';
import { HELD_OUTPUT_MAX_BYTES, LaunchTaps } from '../../../src/app/launch/taps.js';

describe('LaunchTaps', () => {
  it('holds output and input until the first tap attaches, then hands it over in order', () => {
    const taps = new LaunchTaps(false, () => undefined);
    const seen: string[] = [];

    taps.sendOutput(Buffer.from('a'), false, 1);
    taps.sendOutput(Buffer.from('b'), true, 2);
    taps.sendInput(Buffer.from('k'));
    taps.onOutput((chunk, isFlooding, atMs) => seen.push(`out ${chunk.toString()} ${isFlooding} ${atMs}`));
    taps.onInput((chunk) => seen.push(`in ${chunk.toString()}`));
    taps.sendOutput(Buffer.from('c'), false, 3);

    expect(seen).toEqual(['out a false 1', 'out b true 2', 'in k', 'out c false 3']);
  });

  it('keeps only the newest held output past the bound, and marks the cut with a CAN', () => {
    const taps = new LaunchTaps(false, () => undefined);
    const seen: number[] = [];

    for (let i = 0; i < 3; i++) taps.sendOutput(Buffer.alloc(HELD_OUTPUT_MAX_BYTES / 2 + 1, 0x61), false, i);
    taps.onOutput((chunk) => seen.push(chunk.length));

    expect(seen).toEqual([1, HELD_OUTPUT_MAX_BYTES / 2 + 1]);
  });

  it('reports a throwing tap once, and keeps calling it', () => {
    const warnings: string[] = [];
    const taps = new LaunchTaps(false, (w) => warnings.push(w));
    let calls = 0;
    taps.onResize(() => {
      calls += 1;
      throw new Error('boom');
    });

    taps.sendResize(80, 24);
    taps.sendResize(100, 30);

    expect(calls).toBe(2);
    expect(warnings).toEqual(['a resize tap failed (passthrough continues): boom']);
  });
});
