import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FIRST_SCREEN_BUSY_MAX_MS,
  FIRST_SCREEN_BYTES,
  FIRST_SCREEN_CPU_WINDOW_MS,
  FIRST_SCREEN_QUIET_CPU,
  FIRST_SCREEN_QUIET_MS,
  FIRST_SCREEN_REDRAW_QUIET_MS,
  FIRST_SCREEN_WAIT_MAX_MS,
  FirstScreenWatch,
  isOnlyTerminalReports,
} from '../../../src/app/launch/first-screen.js';

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

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** A CPU reading that returns the rates given, then the last one for ever; undefined first, as a probe does. */
function cpuReadings(...rates: (number | undefined)[]): () => number | undefined {
  let call = 0;
  return () => (call++ === 0 ? undefined : rates[Math.min(call - 2, rates.length - 1)]);
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
    watch.noteInput(bytes('l'));
    expect(await isDrawn(watch)).toBe(true);
  });

  it("is not over when the input is only the terminal answering the agent's queries", async () => {
    const watch = new FirstScreenWatch();
    // What tmux 3.3a answered OpenCode at 1.0 s (recordings/opencode/tmux/approve-80x24.cast).
    watch.noteInput(bytes('\x1bP>|tmux 3.3a\x1b\\\x1b[1;1R\x1b[1;1R\x1b[1;1R'));
    watch.noteInput(bytes('\x1b[?1;2c'));
    expect(await isDrawn(watch)).toBe(false);
    watch.noteInput(bytes('\x1b[?1;2cx'));
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

  it("waits after the screen's bytes while the agent is still busy on the CPU, and loads once it is quiet", async () => {
    // OpenCode: its queries and a blank screen at 1 s, then 1.3-1.4 cores for 3 s before it draws.
    const watch = new FirstScreenWatch(cpuReadings(1.4, 1.3, FIRST_SCREEN_QUIET_CPU - 0.1));
    watch.noteOutput(7800);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS + 2 * FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(watch)).toBe(false);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(watch)).toBe(true);
  });

  it('ends the CPU wait at a second screenful and its pause: the screen the user reads is drawn, busy or not', async () => {
    // OpenCode 1.18.33 in tmux (bare, oc-live traces): a blank screen of 5.7 KiB at 1.59 s and
    // 5.7 KiB more at 1.85 s, its home screen (5.9 KiB, 13 bytes, 3.4 KiB) at 6.46, 6.56 and
    // 6.77 s, and 1.2-1.7 cores until ~10 s.
    const watch = new FirstScreenWatch(cpuReadings(1.4));
    watch.noteOutput(5700);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS + 160);
    watch.noteOutput(5700); // the blank screen's second part, before the CPU was read: still the first screen
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_REDRAW_QUIET_MS + 4 * FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(watch)).toBe(false);
    watch.noteOutput(FIRST_SCREEN_BYTES - 1); // a spinner's worth is not a screen
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_REDRAW_QUIET_MS);
    expect(await isDrawn(watch)).toBe(false);
    watch.noteOutput(1);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_REDRAW_QUIET_MS - 90);
    watch.noteOutput(3400); // still drawing, 0.21 s later
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_REDRAW_QUIET_MS - 10);
    expect(await isDrawn(watch)).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(await isDrawn(watch)).toBe(true);
  });

  it('waits for a quiet CPU after the longest wait too, and never past FIRST_SCREEN_BUSY_MAX_MS', async () => {
    const busy = new FirstScreenWatch(cpuReadings(1.0));
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_BUSY_MAX_MS - FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(busy)).toBe(false);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(busy)).toBe(true);
  });

  it('ends the CPU wait at a keystroke, and lets the output decide when the CPU cannot be read', async () => {
    const typed = new FirstScreenWatch(cpuReadings(1.0));
    typed.noteOutput(FIRST_SCREEN_BYTES);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS + FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(typed)).toBe(false);
    typed.noteInput(bytes('\r'));
    expect(await isDrawn(typed)).toBe(true);

    const unreadable = new FirstScreenWatch(cpuReadings(undefined));
    unreadable.noteOutput(FIRST_SCREEN_BYTES);
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_QUIET_MS + FIRST_SCREEN_CPU_WINDOW_MS);
    expect(await isDrawn(unreadable)).toBe(true);
  });
});

describe('isOnlyTerminalReports', () => {
  it('knows the answers terminals send (CPR, DA1, XTVERSION, OSC colours, DECRQM, kitty flags, CSI t)', () => {
    for (const answer of ['\x1b[12;40R', '\x1b[?1;2c', '\x1b[>41;351;0c', '\x1bP>|xterm(390)\x1b\\', '\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\', '\x1b]10;rgb:ffff/ffff/ffff\x07', '\x1b[?2026;2$y', '\x1b[?0u', '\x1b[4;800;1200t', '\x1bP1+r4d73=5c45\x1b\\']) {
      expect(isOnlyTerminalReports(bytes(answer)), JSON.stringify(answer)).toBe(true);
    }
  });

  it('takes anything typed for typing: letters, Enter, Ctrl-C, a paste, a report with a key after it', () => {
    for (const typed of ['a', '\r', '\x03', 'fix the tests', '\x1b[?1;2cq', '']) {
      expect(isOnlyTerminalReports(bytes(typed)), JSON.stringify(typed)).toBe(false);
    }
  });
});
