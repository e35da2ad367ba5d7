/**
 * Throughput of the screen mirror on realistic TUI output (not a test: speed is measured here,
 * not asserted). Build, then: node dist/test/helpers/screen-bench.js [MB] [raw|main|main-lossy|main-paced|replay-1k]…
 * Prints MB/s for parsing MB megabytes fed in 64 KiB chunks in exact mode (nothing skipped),
 * the wall time of the feeding loop itself, and the lossy mode's skipped share.
 */
import { performance } from 'node:perf_hooks';
import xtermHeadless from '@xterm/headless';
import { manualClock } from '../../src/adapters/clock.js';
import { createScreen, type ScreenOptions } from '../../src/adapters/screen/index.js';
import { chunksOf, tuiBytes } from './screen-tui.js';

const MB = 1024 * 1024;

async function measure(label: string, bytes: Uint8Array, options: Partial<ScreenOptions>): Promise<void> {
  const screen = createScreen({ cols: 120, rows: 40, clock: manualClock(0), ...options });
  // Not timed: the first write loads xterm's parser tables, once per session.
  await screen.write('warm-up');
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const eluStarted = performance.eventLoopUtilization();
  let last: Promise<void> = Promise.resolve();
  for (const chunk of chunksOf(bytes)) last = screen.write(chunk);
  const fed = performance.now();
  await last;
  const done = performance.now();
  const cpu = process.cpuUsage(cpuStarted);
  const mainBusyMs = performance.eventLoopUtilization(eluStarted).active;
  const stats = screen.stats();
  const seconds = (done - started) / 1000;
  console.log(
    `${label.padEnd(22)} ${(bytes.length / MB / seconds).toFixed(1).padStart(7)} MB/s  wall ${seconds.toFixed(2)} s  ` +
      `feed loop ${(fed - started).toFixed(0)} ms  process cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s  ` +
      `main thread busy ${(mainBusyMs / 1000).toFixed(2)} s  ` +
      `skipped ${((100 * stats.skippedBytes) / bytes.length).toFixed(1)}%`,
  );
  screen.dispose();
}

/** Bare @xterm/headless, fed 16 MiB at a time (it throws past 50 MB pending): the ceiling. */
async function measureRaw(bytes: Uint8Array): Promise<void> {
  const term = new xtermHeadless.Terminal({ cols: 120, rows: 40, scrollback: 0, allowProposedApi: true });
  const started = performance.now();
  let fedSinceWait = 0;
  for (const chunk of chunksOf(bytes)) {
    fedSinceWait += chunk.length;
    if (fedSinceWait < 16 * MB) term.write(chunk);
    else {
      await new Promise<void>((resolve) => term.write(chunk, resolve));
      fedSinceWait = 0;
    }
  }
  await new Promise<void>((resolve) => term.write('', resolve));
  const seconds = (performance.now() - started) / 1000;
  console.log(`${'raw xterm'.padEnd(22)} ${(bytes.length / MB / seconds).toFixed(1).padStart(7)} MB/s  wall ${seconds.toFixed(2)} s`);
  term.dispose();
}

/** Like a PTY: one chunk per event-loop turn, never waiting for the mirror (live, lossy). */
async function measurePaced(label: string, bytes: Uint8Array, options: Partial<ScreenOptions>): Promise<void> {
  const screen = createScreen({ cols: 120, rows: 40, clock: manualClock(0), ...options });
  // Not timed: the first write loads xterm's parser tables, once per session.
  await screen.write('warm-up');
  const started = performance.now();
  let last: Promise<void> = Promise.resolve();
  for (const chunk of chunksOf(bytes)) {
    last = screen.write(chunk);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const fed = performance.now();
  await last;
  const done = performance.now();
  const stats = screen.stats();
  console.log(
    `${label.padEnd(22)} feed ${(bytes.length / MB / ((fed - started) / 1000)).toFixed(1).padStart(7)} MB/s  ` +
      `caught up ${(done - fed).toFixed(0)} ms after the last chunk  skipped ${((100 * stats.skippedBytes) / bytes.length).toFixed(1)}%`,
  );
  screen.dispose();
}

/** Like replay: every write awaited (exact mode parses inline when idle). */
async function measureAwaited(label: string, bytes: Uint8Array, chunkBytes: number): Promise<void> {
  const screen = createScreen({ cols: 120, rows: 40, clock: manualClock(0), exact: true });
  const started = performance.now();
  let writes = 0;
  for (const chunk of chunksOf(bytes, chunkBytes)) {
    await screen.write(chunk);
    writes += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label.padEnd(22)} ${(bytes.length / MB / seconds).toFixed(1).padStart(7)} MB/s  ${(writes / seconds).toFixed(0)} writes/s`);
  screen.dispose();
}

const totalMb = Number(process.argv[2] ?? '200');
const modes = process.argv.slice(3);
const bytes = tuiBytes(totalMb * MB);
console.log(`${(bytes.length / MB).toFixed(0)} MB of TUI output, 120x40, 64 KiB chunks`);
for (const mode of modes.length > 0 ? modes : ['raw', 'main', 'main-lossy', 'main-paced', 'replay-1k']) {
  if (mode === 'raw') await measureRaw(bytes);
  else if (mode === 'main') await measure('main thread, exact', bytes, { exact: true });
  else if (mode === 'main-lossy') await measure('main thread, lossy', bytes, {});
  else if (mode === 'main-paced') await measurePaced('main thread, paced', bytes, {});
  else if (mode === 'replay-1k') await measureAwaited('replay, 1 KiB writes', bytes, 1024);
}
