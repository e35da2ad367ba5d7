import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformWithOxc } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { RecorderError, type RecorderOptions, createRecorder } from '../../../src/app/recording/recorder.js';
import { decodeRecording } from '../../../src/core/recordings/recording.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwrap-recorder-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function options(overrides: Partial<RecorderOptions> = {}): RecorderOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    cols: 80,
    rows: 24,
    command: 'demo --fast',
    env: { TERM: 'xterm-256color' },
    recordInput: false,
    clock: manualClock(1_000, 1_790_000_000_000),
    onWarning: (message) => warnings.push(message),
    warnings,
    ...overrides,
  };
}

const read = (path: string): string => readFileSync(path, 'utf8');

describe('createRecorder', () => {
  it('writes events to the file while the recorder is still open', async () => {
    const path = join(dir, 'live.cast');
    const clock = manualClock(1_000, 1_790_000_000_000);
    const recorder = await createRecorder(path, options({ clock }));

    clock.advanceTo(1_250);
    recorder.output(bytes('hello'));
    await vi.waitFor(() => expect(read(path)).toContain('"hello"'));
    clock.advanceTo(2_000);
    recorder.resize(100, 30);
    recorder.marker('second turn');
    await vi.waitFor(() => expect(read(path)).toContain('second turn'));

    const recording = decodeRecording(read(path), path);
    expect(recording.header).toMatchObject({ version: 2, cols: 80, rows: 24, command: 'demo --fast', timestamp: 1_790_000_001 });
    expect(recording.events).toEqual([
      { t: 0.25, kind: 'o', data: 'hello' },
      { t: 1, kind: 'r', data: '100x30' },
      { t: 1, kind: 'm', data: 'second turn' },
    ]);
    await recorder.close();
  });

  it('creates the file owner-only, and tightens an existing file to 0600', async () => {
    const fresh = join(dir, 'fresh.cast');
    const existing = join(dir, 'existing.cast');
    writeFileSync(existing, 'old contents that must go\n');
    chmodSync(existing, 0o644);

    const first = await createRecorder(fresh, options());
    const second = await createRecorder(existing, options());
    await Promise.all([first.close(), second.close()]);

    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(statSync(existing).mode & 0o777).toBe(0o600);
    expect(read(existing)).not.toContain('old contents');
  });

  it('keeps input only as markers (size and kind, never the keys) unless input recording was asked for', async () => {
    const withoutInput = join(dir, 'no-input.cast');
    const withInput = join(dir, 'input.cast');

    for (const [path, recordInput] of [[withoutInput, false], [withInput, true]] as const) {
      const recorder = await createRecorder(path, options({ recordInput }));
      recorder.input(bytes('hunter2\r'));
      recorder.output(bytes('ok'));
      await recorder.close();
    }

    expect(read(withoutInput)).not.toContain('hunter2');
    expect(decodeRecording(read(withoutInput)).events).toEqual([
      { t: 0, kind: 'agentwrap.input', data: JSON.stringify({ bytes: 8, source: 'typed', interrupt: false }) },
      { t: 0, kind: 'o', data: 'ok' },
    ]);
    expect(decodeRecording(read(withInput)).events).toEqual([
      { t: 0, kind: 'i', data: 'hunter2\r' },
      { t: 0, kind: 'o', data: 'ok' },
    ]);
  });

  it('keeps a character split across output chunks whole, and flushes a dangling tail at close', async () => {
    const path = join(dir, 'utf8.cast');
    const recorder = await createRecorder(path, options());
    const euro = bytes('€');

    recorder.output(euro.slice(0, 1));
    recorder.output(euro.slice(1));
    recorder.output(new Uint8Array([0xf0, 0x9f]));
    await recorder.close();

    expect(decodeRecording(read(path)).events.map((event) => event.data)).toEqual(['€', '\ufffd']);
  });

  it('refuses a symlink with an error naming the file', async () => {
    const target = join(dir, 'target.txt');
    const link = join(dir, 'link.cast');
    writeFileSync(target, 'keep me');
    symlinkSync(target, link);

    await expect(createRecorder(link, options())).rejects.toThrow(RecorderError);
    await expect(createRecorder(link, options())).rejects.toThrow(`cannot record to ${link}`);
    expect(read(target)).toBe('keep me');
  });

  it.runIf(process.platform === 'linux')('warns once, naming the file, when the disk fails, and keeps accepting calls', async () => {
    const opts = options();
    const recorder = await createRecorder('/dev/full', opts);

    recorder.output(bytes('one'));
    await vi.waitFor(() => expect(opts.warnings).toHaveLength(1));
    recorder.output(bytes('two'));
    recorder.marker('still fine');
    await recorder.close();

    expect(opts.warnings).toHaveLength(1);
    expect(opts.warnings[0]).toMatch(/recording to \/dev\/full stopped: .*ENOSPC.*the session continues/);
  });

  it('writes everything synchronously with closeSync, for exit paths', async () => {
    const path = join(dir, 'sync.cast');
    const recorder = await createRecorder(path, options());

    recorder.output(bytes('last words'));
    recorder.closeSync();

    expect(decodeRecording(read(path)).events.map((event) => event.data)).toEqual(['last words']);
  });
});

/**
 * The recorder, compiled to plain JS for a child process (vitest is not there to load TS).
 * The child records numbered events until it is killed.
 */
async function buildChild(outDir: string): Promise<string> {
  for (const file of ['src/app/recording/recorder.ts', 'src/core/recordings/recording.ts', 'src/core/recordings/recorded-evidence.ts', 'src/core/detector/gating.ts', 'src/core/detector/event-classes.ts', 'src/core/detector/operator-input.ts', 'src/core/policy.ts', 'src/core/input-bounds.ts', 'src/adapters/clock.ts']) {
    const result = await transformWithOxc(read(join(ROOT, file)), file, { lang: 'ts' });
    const out = join(outDir, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, result.code);
  }
  const child = join(outDir, 'child.mjs');
  writeFileSync(
    child,
    `import { createRecorder } from './src/app/recording/recorder.js';
import { systemClock } from './src/adapters/clock.js';
const recorder = await createRecorder(process.argv[2], {
  cols: 80, rows: 24, command: 'child', env: {}, recordInput: false, clock: systemClock,
  onWarning: (message) => { process.stderr.write(message + '\\n'); process.exit(3); },
});
let n = 0;
setInterval(() => { n += 1; recorder.output(Buffer.from('event ' + n + '\\n')); }, 2);
`,
  );
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}');
  return child;
}

describe('a crash', () => {
  it('kill -9 of a recording process keeps every event written before the kill', async () => {
    const outDir = join(dir, 'child');
    const child = await buildChild(outDir);
    const path = join(dir, 'killed.cast');
    const proc = spawn(process.execPath, [child, path], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<NodeJS.Signals | null>((resolveExit) => proc.on('exit', (_code, signal) => resolveExit(signal)));

    // Wait until at least 20 events reached the file while the child is still recording, then kill it.
    await vi.waitFor(
      () => {
        expect(proc.exitCode).toBeNull();
        expect((read(path).match(/event \d+/g) ?? []).length).toBeGreaterThanOrEqual(20);
      },
      { timeout: 15_000, interval: 20 },
    );
    proc.kill('SIGKILL');
    const signal = await exited;

    const recording = decodeRecording(read(path), path);
    const numbers = recording.events.map((event) => Number(/event (\d+)/.exec(event.data)?.[1]));
    expect(signal).toBe('SIGKILL');
    expect(recording.header.command).toBe('child');
    expect(numbers.length).toBeGreaterThanOrEqual(20);
    // Every event from the first to the last one written is there, in order, none lost or torn.
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
    expect(recording.notes.every((note) => note.message.startsWith('truncated last line'))).toBe(true);
  }, 30_000);
});
