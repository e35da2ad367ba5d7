import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { MetadataExpiry } from '../../../src/app/live/metadata-expiry.js';

describe('MetadataExpiry', () => {
  it('republishes when the next key expires, then re-plans for the one after', async () => {
    const clock = manualClock(0);
    const expiries = [1, 2];
    const republished: number[] = [];
    const expiry = new MetadataExpiry(clock, () => expiries[0], () => republished.push(expiries.shift() ?? -1));

    expiry.arm();
    while (republished.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    expiry.stop();

    expect(republished).toEqual([1, 2]);
  });

  it('arms nothing when nothing expires, or once stopped', () => {
    const republished: string[] = [];
    const expiry = new MetadataExpiry(manualClock(0), () => 5, () => republished.push('x'));

    expiry.stop();
    expiry.arm();

    expect(republished).toEqual([]);
  });
});
