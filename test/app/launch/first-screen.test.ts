import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_SCREEN_BYTES, FIRST_SCREEN_QUIET_MS, FIRST_SCREEN_WAIT_MAX_MS, FirstScreenWatch } from '../../../src/app/launch/first-screen.js';

/** Whether `watch.drawn` has resolved, after the microtasks queued so far ran. */
async function isDrawn(watch: FirstScreenWatch): Promise<boolean> {
  let drawn = false;
  void watch.drawn.then(() => {
    drawn = true;
  });
  await Promise.resolve();
  await Promise.resolve();
  return drawn;
}

describe('FirstScreenWatch: when the live session may load', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits through the few bytes a CLI writes long before its screen (Gemini: 39 bytes, 1.1 s ahead)', async () => {
    const watch = new FirstScreenWatch();
    watch.noteOutput(39);
    await vi.advanceTimersByTimeAsync(1100);
    expect(await isDrawn(watch)).toBe(false);
  });

  it('is drawn a quiet pause after a screenful of bytes, not while they keep coming', async () => {
    const watch = new FirstScreenWatch();
    watch.noteOutput(FIRST_SCREEN_BYTES);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS - 10);
    watch.noteOutput(2000);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS - 10);
    expect(await isDrawn(watch)).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(await isDrawn(watch)).toBe(true);
  });

  it('is over at the first keystroke (a shell prompt is a few bytes)', async () => {
    const watch = new FirstScreenWatch();
    watch.noteOutput(30);
    watch.noteInput();
    expect(await isDrawn(watch)).toBe(true);
  });

  it('is over after the longest wait for a program that draws little, or at done()', async () => {
    const waited = new FirstScreenWatch();
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_WAIT_MAX_MS - 1);
    expect(await isDrawn(waited)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await isDrawn(waited)).toBe(true);

    const ended = new FirstScreenWatch();
    ended.done();
    expect(await isDrawn(ended)).toBe(true);
  });
});
