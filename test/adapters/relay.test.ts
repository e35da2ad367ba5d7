import { execFileSync } from 'node:child_process';
import { closeSync, constants as fsConstants, mkdtempSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { childEnvironment, spawnPty, type PtyProcess, type PtySpawnOptions } from '../../src/adapters/pty/index.js';
import { HEAP_TRIM_AFTER_BYTES, HEAP_TRIM_QUIET_MS, HeapTrim, loadNativeRelay, RELAY_ADDON_PATH, startRelay } from '../../src/adapters/relay.js';
import { ModeTracker } from '../../src/adapters/terminal/terminal.js';
import { expectedPtyBytes, writerScript } from '../helpers/pty-writer.js';
import { isPidAlive } from '../../src/adapters/process/alive.js';

const openFds: number[] = [];
afterEach(() => {
  for (const fd of openFds.splice(0)) closeSync(fd);
});

/** The user's terminal, made of files: output to a regular file, input from a FIFO. */
function fakeTerminalFds(): { inFd: number; outFd: number; outPath: string; type(text: string): void } {
  const dir = mkdtempSync(join(tmpdir(), 'agentwrap-relay-'));
  const outPath = join(dir, 'out');
  const fifo = join(dir, 'in');
  execFileSync('mkfifo', [fifo]);
  // O_RDWR: opening a FIFO for reading would otherwise wait for a writer.
  const inFd = openSync(fifo, 'r+');
  const typeFd = openSync(fifo, 'w');
  const outFd = openSync(outPath, 'w');
  openFds.push(inFd, typeFd, outFd);
  return { inFd, outFd, outPath, type: (text) => writeSync(typeFd, text) };
}

function spawnRelayed(
  command: string,
  fds: { inFd: number; outFd: number },
  passthrough: Partial<NonNullable<PtySpawnOptions['passthrough']>> = {},
): PtyProcess {
  return spawnPty({
    file: '/bin/sh',
    args: ['-c', command],
    cols: 80,
    rows: 24,
    env: childEnvironment(process.env),
    passthrough: { inFd: fds.inFd, outFd: fds.outFd, lossless: true, ...passthrough },
  });
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** A tap that takes `busyMs` of the main thread per chunk (the relay thread goes on meanwhile). */
async function collectSlowly(pty: PtyProcess, busyMs: number): Promise<Buffer> {
  const tapped: Buffer[] = [];
  pty.onData((chunk) => {
    tapped.push(chunk);
    const until = performance.now() + busyMs;
    while (performance.now() < until);
  });
  await pty.exited;
  pty.dispose();
  return Buffer.concat(tapped);
}

/** Whether a thread of this process sleeps in write(2) on fd, waiting for a reader (Linux /proc). */
function isThreadWaitingToWrite(fd: number): boolean {
  return readdirSync('/proc/self/task').some((task) => {
    try {
      const [call, firstArgument] = readFileSync(`/proc/self/task/${task}/syscall`, 'utf8').split(' ');
      // pipe_write, anon_pipe_write (6.x) …: asleep inside the pipe's write, not passing through it.
      const isSleeping = readFileSync(`/proc/self/task/${task}/wchan`, 'utf8').endsWith('pipe_write');
      return isSleeping && call === '1' && Number(firstArgument) === fd;
    } catch {
      return false; // the thread ended meanwhile
    }
  });
}

/** Writes as much of data as a non-blocking fd takes now; how much it took. */
function writeWhatFits(fd: number, data: Buffer): number {
  let written = 0;
  while (written < data.length) {
    try {
      written += writeSync(fd, data, written);
    } catch {
      break; // EAGAIN: full
    }
  }
  return written;
}

/** Reads what a non-blocking fd holds now. */
function readWhatIsThere(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let count = 0;
    try {
      count = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      break; // EAGAIN: nothing more now
    }
    if (count <= 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, count)));
  }
  return Buffer.concat(chunks);
}

describe('the native passthrough relay', () => {
  it('is built by the install step and loads', () => {
    const load = loadNativeRelay({});
    expect(load.ok ? 'loaded' : load.reason).toBe('loaded');
    expect(RELAY_ADDON_PATH).toMatch(/agentwrap_relay\.node$/);
  });

  it('is not used when AGENTWRAP_RELAY=js asks for the event-loop relay', () => {
    expect(loadNativeRelay({ AGENTWRAP_RELAY: 'js' })).toEqual({ ok: false, reason: 'AGENTWRAP_RELAY=js' });
  });

  it('writes 8 MB written right before exit to the terminal byte for byte, and the taps get the same bytes', async () => {
    const size = 8_000_000;
    const fds = fakeTerminalFds();
    const pty = spawnRelayed(`exec node -e ${quote(writerScript(size))}`, fds);
    expect(pty.passthrough).toBe('native');
    const tapped: Buffer[] = [];
    pty.onData((chunk) => tapped.push(chunk));

    const exit = await pty.exited;
    pty.dispose();

    const expected = expectedPtyBytes(size);
    const written = readFileSync(fds.outPath);
    expect(exit.code).toBe(0);
    expect(written.length).toBe(expected.length);
    expect(written.equals(expected)).toBe(true);
    expect(Buffer.concat(tapped).equals(expected)).toBe(true);
  });

  it('carries keystrokes to the agent and shows them to the input taps afterwards', async () => {
    const fds = fakeTerminalFds();
    // `head -c 6` exits once it has the six bytes, so its exit proves the keys arrived.
    const pty = spawnRelayed('stty raw -echo; head -c 6 | od -An -c; exit 4', fds);
    const inputs: Buffer[] = [];
    pty.onInput((chunk) => inputs.push(chunk));
    await new Promise((resolve) => setTimeout(resolve, 300));
    fds.type('ab\x03cd\x1b');

    const exit = await pty.exited;
    pty.dispose();

    expect(exit.code).toBe(4);
    expect(Buffer.concat(inputs).toString('latin1')).toBe('ab\x03cd\x1b');
    expect(readFileSync(fds.outPath, 'latin1')).toMatch(/a\s+b\s+003\s+c\s+d\s+033/);
  });

  it('writes bytes queued for the terminal after the output before them, and the exit code through', async () => {
    const fds = fakeTerminalFds();
    const pty = spawnRelayed('echo first; sleep 0.5; echo second; exit 9', fds);
    let isQueued = false;
    pty.onData((chunk) => {
      if (!isQueued && chunk.toString().includes('first')) isQueued = pty.writeTerminal('[note]');
    });

    const exit = await pty.exited;
    pty.dispose();

    expect(isQueued).toBe(true);
    expect(exit.code).toBe(9);
    expect(readFileSync(fds.outPath, 'utf8')).toBe('first\r\n[note]second\r\n');
    expect(pty.writeTerminal('late')).toBe(false);
  });

  it('keeps only the newest output for taps that fall behind a flood, after a CAN, and never drops from the passthrough', async () => {
    const size = 6_000_000;
    const fds = fakeTerminalFds();
    const pty = spawnRelayed(`exec node -e ${quote(writerScript(size))}`, fds, { lossless: false, tapWindowBytes: 64 * 1024 });
    const all = await collectSlowly(pty, 30);

    const expected = expectedPtyBytes(size);
    expect(readFileSync(fds.outPath).equals(expected)).toBe(true);
    expect(all.length).toBeLessThan(expected.length);
    // The payload is printable ASCII, so a CAN can only be the relay's gap mark.
    expect(all.includes(0x18)).toBe(true);
    // What the taps got after the last gap is the true end of the output.
    const tail = all.subarray(all.lastIndexOf(0x18) + 1);
    expect(tail.length).toBeGreaterThan(0);
    expect(expected.subarray(expected.length - tail.length).equals(tail)).toBe(true);
  });

  it('hands over the titles, bell and screen switch a skipped stretch of a flood carried, ahead of the newest bytes', async () => {
    const fds = fakeTerminalFds();
    // 4 MB of filler, a title, a bell, the alternate screen and a progress report, 4 MB more.
    const program = [
      "const f=Buffer.alloc(4e6,'x\\n');const w=(d)=>require('fs').writeSync(1,d);",
      "w(f);w('\\x1b]0;skipped title\\x07\\x07\\x1b[?1049h\\x1b]9;4;1;42\\x1b\\\\');w(f);w('end');",
    ].join('');
    const pty = spawnRelayed(`exec node -e ${quote(program)}`, fds, { lossless: false, tapWindowBytes: 64 * 1024 });
    const all = (await collectSlowly(pty, 30)).toString('latin1');
    expect(readFileSync(fds.outPath).length).toBe(12_000_042);
    expect(all.length).toBeLessThan(4_000_000);
    expect(all).toContain('\x18');
    expect(all).toContain('\x1b]0;skipped title\x07');
    expect(all).toContain('\x1b[?1049h');
    expect(all).toContain('\x1b]9;4;1;42\x1b\\');
    // Salvaged in stream order, ahead of the newest bytes.
    expect(all.indexOf('\x1b]0;skipped title')).toBeLessThan(all.indexOf('\x1b[?1049h'));
    expect(all.endsWith('end')).toBe(true);
  });

  it('delivers every byte to slow taps when lossless (a recording), making the flood wait instead', async () => {
    const size = 3_000_000;
    const fds = fakeTerminalFds();
    const pty = spawnRelayed(`exec node -e ${quote(writerScript(size))}`, fds, { lossless: true, tapMaxBytes: 64 * 1024 });
    const tapped = await collectSlowly(pty, 5);

    const expected = expectedPtyBytes(size);
    expect(tapped.equals(expected)).toBe(true);
    expect(readFileSync(fds.outPath).equals(expected)).toBe(true);
  });

  it('hands over streaming output on the detector\'s schedule, each hand-over as one chunk stamped with its newest read', async () => {
    const fds = fakeTerminalFds();
    // Six frames 60 ms apart, like a spinner, then quiet until exit.
    const pty = spawnRelayed("for i in 1 2 3 4 5 6; do printf \"frame$i \"; sleep 0.06; done; sleep 0.5", fds, { lossless: false });
    const chunks: { text: string; atMs: number; deliveredAtMs: number }[] = [];
    pty.onData((chunk, _isFlooding, atMs) => {
      const deliveredAtMs = performance.now();
      chunks.push({ text: chunk.toString(), atMs: atMs ?? deliveredAtMs, deliveredAtMs });
    });

    await pty.exited;
    pty.dispose();

    const frames = chunks.filter((c) => c.text.startsWith('frame'));
    expect(frames.map((c) => c.text).join('')).toBe('frame1 frame2 frame3 frame4 frame5 frame6 ');
    // Fewer hand-overs than frames (the main thread woke less often), each one chunk…
    expect(frames.length).toBeLessThan(6);
    // …stamped with the read time of its newest frame: never after the hand-over, later each time.
    for (const [i, chunk] of frames.entries()) {
      expect(chunk.atMs).toBeLessThanOrEqual(chunk.deliveredAtMs);
      if (i > 0) expect(chunk.atMs).toBeGreaterThan(frames[i - 1]?.atMs ?? 0);
    }
  });

  it("hands over the agent's OSC 7501 report at once, not on the streaming schedule with the frames after it", async () => {
    const fds = fakeTerminalFds();
    // Frames 90 ms apart (a stream: plain frames wait for the 250 ms streaming hand-over); three
    // of them end with a report. Each report must reach JS before the frame after it is read.
    const pty = spawnRelayed(
      "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf \"f$i \"; case $i in 3|7|11) printf '\\033]7501;state=working\\007';; esac; sleep 0.09; done; sleep 0.3",
      fds,
      { lossless: false },
    );
    const handOvers: string[] = [];
    pty.onData((chunk) => handOvers.push(chunk.toString()));

    await pty.exited;
    pty.dispose();

    const withReport = handOvers.filter((text) => text.includes('\u001b]7501;'));
    expect(withReport).toHaveLength(3);
    for (const text of withReport) expect(text.endsWith('\u001b]7501;state=working\u0007')).toBe(true);
  });

  it('hands a recording (lossless) every chunk alone, stamped with when it was read', async () => {
    const fds = fakeTerminalFds();
    const pty = spawnRelayed("for i in 1 2 3 4; do printf \"frame$i \"; sleep 0.06; done; sleep 0.3", fds, { lossless: true });
    const frames: { text: string; atMs: number }[] = [];
    pty.onData((chunk, _isFlooding, atMs) => {
      if (chunk.toString().startsWith('frame')) frames.push({ text: chunk.toString(), atMs: atMs ?? performance.now() });
    });

    await pty.exited;
    pty.dispose();

    // One chunk per read: four unless a stalled relay thread read two frames at once.
    expect(frames.map((c) => c.text).join('')).toBe('frame1 frame2 frame3 frame4 ');
    expect(frames.length).toBeGreaterThan(2);
    for (const [i, frame] of frames.entries()) if (i > 0) expect(frame.atMs).toBeGreaterThan(frames[i - 1]?.atMs ?? 0);
  });

  it('writes what the pty still holds when it is stopped while the terminal is not reading', async () => {
    const load = loadNativeRelay({});
    if (!load.ok) throw new Error(load.reason);
    // FIFOs as the pty master and the user's terminal. The "master" is blocking, so the thread
    // reads one chunk per poll, and the stop below comes while the thread waits in write(2) for
    // the terminal: what it had not read by then was dropped (the master's buffer, here 64 KiB).
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-relay-stop-'));
    execFileSync('mkfifo', [join(dir, 'master'), join(dir, 'terminal')]);
    const masterFd = openSync(join(dir, 'master'), 'r+');
    const agentFd = openSync(join(dir, 'master'), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
    const screenFd = openSync(join(dir, 'terminal'), fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
    const terminalFd = openSync(join(dir, 'terminal'), 'w');
    openFds.push(masterFd, agentFd, screenFd, terminalFd);
    let isStopped = false;
    const relay = startRelay(load.module, {
      masterFd,
      inFd: -1,
      outFd: terminalFd,
      lossless: false,
      onBatch: (batch) => {
        if (batch.stopped) isStopped = true;
      },
    });
    const payload = Buffer.from(Array.from({ length: 400_000 }, (_, i) => i % 251));
    let written = 0;
    // The agent writes until the terminal is full and the thread waits on it with a chunk…
    for (let rounds = 0; !isThreadWaitingToWrite(terminalFd); rounds++) {
      if (rounds > 1_000) throw new Error('the relay thread never waited for the terminal');
      written += writeWhatFits(agentFd, payload.subarray(written));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // …and then fills the master, which the waiting thread does not read.
    written += writeWhatFits(agentFd, payload.subarray(written));

    relay.stop();
    const shown: Buffer[] = [];
    while (!isStopped) {
      shown.push(readWhatIsThere(screenFd));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    shown.push(readWhatIsThere(screenFd));

    expect(written).toBeGreaterThan(2 * 64 * 1024);
    expect(Buffer.concat(shown).length).toBe(written);
    expect(Buffer.concat(shown).equals(payload.subarray(0, written))).toBe(true);
  });

  it('ends once the agent exits even when a background process keeps the pty open', async () => {
    const fds = fakeTerminalFds();
    const pty = spawnRelayed('(sleep 300 </dev/null >/dev/null 2>&1 &) ; sleep 300 & echo "holder=$!"; echo bye; exit 2', fds);

    const exit = await pty.exited;
    pty.dispose();
    const output = readFileSync(fds.outPath, 'utf8');
    const holder = Number(/holder=(\d+)/.exec(output)?.[1]);
    // Ended while the background job still holds the pty open (not by waiting it out).
    const isHolderAlive = isPidAlive(holder);
    if (holder > 0) process.kill(holder, 'SIGKILL');

    expect(exit.code).toBe(2);
    expect(output).toContain('bye');
    expect(holder).toBeGreaterThan(0);
    expect(isHolderAlive).toBe(true);
  });
});

describe("the relay's mode tracker (the C port of ModeTracker)", () => {
  const load = loadNativeRelay({});
  const native = load.ok ? load.module : undefined;

  /** Feeds both trackers the same chunks; after every chunk they must agree exactly. */
  function expectSameAsModeTracker(chunks: readonly Buffer[]): number {
    if (native === undefined) throw new Error('native relay not built');
    const tracker = new ModeTracker();
    const handle = native.trackerCreate();
    let checks = 0;
    for (const chunk of chunks) {
      tracker.feed(chunk);
      const state = native.trackerFeed(handle, chunk);
      expect(state.reset).toBe(tracker.resetSequence());
      expect(state.revision).toBe(tracker.revision);
      checks += 1;
    }
    return checks;
  }

  /** Splits bytes at pseudo-random points (a fixed seed), so sequences straddle chunks. */
  /** A linear congruential sequence: every run below is reproducible from its seed. */
  function seeded(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state;
    };
  }

  function chop(bytes: Buffer, seed: number, maxChunk: number): Buffer[] {
    const next = seeded(seed);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + (next() % maxChunk);
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    return chunks;
  }

  it('agrees with ModeTracker on every committed agent recording, chopped at random points', () => {
    const casts = readdirSync('recordings', { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.cast'));
    expect(casts.length).toBeGreaterThan(40);
    let checks = 0;
    for (const [index, path] of casts.entries()) {
      const output = readFileSync(join('recordings', path), 'utf8')
        .split('\n')
        .slice(1)
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as [number, string, string])
        .filter((event) => event[1] === 'o')
        .map((event) => event[2])
        .join('');
      checks += expectSameAsModeTracker(chop(Buffer.from(output, 'utf8'), index + 1, 700));
    }
    expect(checks).toBeGreaterThan(1000);
  });

  it('agrees with ModeTracker on escape-dense random bytes, including malformed and overlong sequences', () => {
    const alphabet: string[] = ['\x1b', '[', '?', ']', 'P', '\\', '\x07', ';', '<', '>', '=', 'h', 'l', 'm', 'u', 'c', '0', '1', '4', '9', '2', '5', '7', '\x18', 'x', '\x1b[?1049h', '\x1b[?25l', '\x1b[>1u', '\x1b[<2u', '\x1b[=5;1u', '\x1b[>4;2m', '\x1b=', '\x1b[38;5;1m', '\x1b[0m'];
    // Every mode either tracker knows of, switched both ways, plus some it must ignore.
    for (const mode of [1, 7, 25, 47, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1015, 1016, 1047, 1049, 2004, 2026, 2048, 3, 12, 9999]) {
      alphabet.push(`\x1b[?${mode}h`, `\x1b[?${mode}l`, `\x1b[?${mode};25;7l`);
    }
    const next = seeded(7);
    for (let round = 0; round < 20; round++) {
      let text = '';
      for (let i = 0; i < 5000; i++) text += alphabet[next() % alphabet.length];
      if (round % 5 === 0) text += `\x1b[?${'1;'.repeat(80)}1049h`;
      expectSameAsModeTracker(chop(Buffer.from(text, 'latin1'), round + 100, 40));
    }
  });

  it('tracks the modes of relayed output the way ModeTracker does, without any JS feeding it', async () => {
    const fds = fakeTerminalFds();
    const modesOn = '\x1b[?1049h\x1b[?2004h\x1b[?25l\x1b[>1u\x1b[31m';
    const pty = spawnRelayed(`printf '${modesOn.replace(/\x1b/g, '\\033')}'; sleep 0.3; exit 0`, fds);
    const seen: string[] = [];
    pty.onData(() => seen.push(pty.modes?.resetSequence() ?? 'no modes'));

    await pty.exited;
    pty.dispose();

    const expected = new ModeTracker();
    expected.feed(Buffer.from(modesOn, 'latin1'));
    expect(expected.resetSequence()).not.toBe('');
    expect(seen.at(-1)).toBe(expected.resetSequence());
    expect(pty.modes?.revision).toBe(expected.revision);
  });
});

describe("handing malloc's free memory back after a burst of output", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the addon trims (glibc: malloc_trim) and says whether memory went back', () => {
    const load = loadNativeRelay({});
    if (!load.ok) throw new Error(load.reason);
    const trimmed = load.module.trimHeap?.();
    expect(typeof trimmed).toBe('boolean');
    // glibc (every Linux this runs on but musl) has malloc_trim; elsewhere the answer is false.
    if (process.platform !== 'linux') expect(trimmed).toBe(false);
  });

  it('trims once output has been quiet for the pause after a burst, and never before the threshold', () => {
    vi.useFakeTimers();
    let trims = 0;
    const trim = new HeapTrim(() => (trims += 1), () => Date.now());
    trim.noteOutput(HEAP_TRIM_AFTER_BYTES - 1);
    vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS * 3);
    expect(trims).toBe(0);
    trim.noteOutput(1);
    vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS - 1);
    expect(trims).toBe(0);
    vi.advanceTimersByTime(1);
    expect(trims).toBe(1);
    // The count starts again: nothing more until the next burst.
    trim.noteOutput(HEAP_TRIM_AFTER_BYTES - 1);
    vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS * 3);
    expect(trims).toBe(1);
  });

  it('waits while output keeps coming, then trims a full pause after the last of it', () => {
    vi.useFakeTimers();
    let trims = 0;
    const trim = new HeapTrim(() => (trims += 1), () => Date.now());
    trim.noteOutput(HEAP_TRIM_AFTER_BYTES);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS / 2);
      trim.noteOutput(100);
    }
    expect(trims).toBe(0);
    vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS - 1);
    expect(trims).toBe(0);
    vi.advanceTimersByTime(1);
    expect(trims).toBe(1);
  });

  it('a trim that throws costs nothing but the trim; stop() cancels a pending one', () => {
    vi.useFakeTimers();
    const failing = new HeapTrim(() => {
      throw new Error('no malloc_trim here');
    }, () => Date.now());
    failing.noteOutput(HEAP_TRIM_AFTER_BYTES);
    expect(() => vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS)).not.toThrow();
    let trims = 0;
    const stopped = new HeapTrim(() => (trims += 1), () => Date.now());
    stopped.noteOutput(HEAP_TRIM_AFTER_BYTES);
    stopped.stop();
    vi.advanceTimersByTime(HEAP_TRIM_QUIET_MS * 2);
    expect(trims).toBe(0);
  });
});
