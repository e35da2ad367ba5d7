import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeEphemeralFileSync, writeFileAtomic, writeFileAtomicSync } from '../../src/adapters/fs-atomic.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-atomic-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Each version is self-checking: the padding length and the trailer both encode `n`. */
function version(n: number): string {
  return `${JSON.stringify({ n, pad: 'x'.repeat(1_000 + (n % 7) * 20_000), check: n })}\n`;
}

/**
 * A separate process reads the file READS times as fast as it can and reports how many reads
 * were torn (unparsable, or fields disagreeing). Plain JS, so it shares nothing with the writer.
 */
const READER = `
const { readFileSync } = require('node:fs');
const [path, reads] = process.argv.slice(1);
let torn = 0, missing = 0, seen = new Set();
for (let i = 0; i < Number(reads); i++) {
  let text;
  try { text = readFileSync(path, 'utf8'); } catch (e) { missing++; continue; }
  try {
    const v = JSON.parse(text);
    if (v.n !== v.check || v.pad.length !== 1000 + (v.n % 7) * 20000) torn++;
    seen.add(v.n);
  } catch { torn++; }
}
process.stdout.write(JSON.stringify({ torn, missing, distinct: seen.size }));
`;

/** Rewrites `path` with `write(n)` until a reader in another process has read it 2000 times. */
async function rewriteWhileReading(path: string, write: (n: number) => Promise<void>): Promise<{ torn: number; missing: number; distinct: number }> {
  const reader = spawn(process.execPath, ['-e', READER, path, '2000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  reader.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) => reader.on('exit', () => { running = false; resolve(); }));
  for (let writes = 1; running && writes < 100_000; writes++) await write(writes);
  await exited;
  return JSON.parse(output) as { torn: number; missing: number; distinct: number };
}

describe('writeFileAtomic', () => {
  it('writes the data with mode 0600 and leaves no temp file', async () => {
    const path = join(dir, 'a.json');

    await writeFileAtomic(path, '{"a":1}');

    expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('replaces a symlink at the target instead of writing through it', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    const path = join(dir, 'a.json');
    symlinkSync(victim, path);

    await writeFileAtomic(path, 'new');

    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readFileSync(path, 'utf8')).toBe('new');
  });

  it('cleans up its temp file when the rename fails', async () => {
    const path = join(dir, 'target');
    // rename(2) of a file onto a non-empty directory fails (EISDIR/ENOTEMPTY).
    mkdirSync(join(path, 'inner'), { recursive: true });

    await expect(writeFileAtomic(path, 'x')).rejects.toThrow();

    expect(readdirSync(dir)).toEqual(['target']);
  });

  it('fails without leaving anything in a directory that does not exist', async () => {
    await expect(writeFileAtomic(join(dir, 'missing', 'a.json'), 'x')).rejects.toThrow(/ENOENT/);
    expect(() => writeFileAtomicSync(join(dir, 'missing', 'a.json'), 'x')).toThrow(/ENOENT/);
  });

  it('the sync twin writes 0600 and leaves no temp file', () => {
    const path = join(dir, 'b.json');

    writeFileAtomicSync(path, 'sync');

    expect([readFileSync(path, 'utf8'), statSync(path).mode & 0o777, readdirSync(dir)]).toEqual(['sync', 0o600, ['b.json']]);
  });

  it('a reader in another process never sees a torn file while it is rewritten (2000 reads)', async () => {
    const path = join(dir, 'record.json');
    await writeFileAtomic(path, version(0));

    const result = await rewriteWhileReading(path, (n) => writeFileAtomic(path, version(n)));

    expect([result.torn, result.missing]).toEqual([0, 0]);
    // The reader really overlapped with the writer: it saw several versions.
    expect(result.distinct).toBeGreaterThan(1);
    expect(readdirSync(dir)).toEqual(['record.json']);
  });
});

describe('writeEphemeralFileSync', () => {
  it('writes 0600, replaces a symlink instead of following it, and leaves no temp file', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    const path = join(dir, 'record.json');
    symlinkSync(victim, path);

    writeEphemeralFileSync(path, 'new');

    expect([readFileSync(path, 'utf8'), statSync(path).mode & 0o777, readFileSync(victim, 'utf8')]).toEqual(['new', 0o600, 'keep']);
    expect(readdirSync(dir).sort()).toEqual(['record.json', 'victim']);
  });

  it('fails without leaving anything when the rename fails', () => {
    const path = join(dir, 'target');
    mkdirSync(join(path, 'inner'), { recursive: true });

    expect(() => writeEphemeralFileSync(path, 'x')).toThrow();

    expect(readdirSync(dir)).toEqual(['target']);
  });

  it('a reader in another process never sees a torn file while it is rewritten (2000 reads)', async () => {
    const path = join(dir, 'record.json');
    writeEphemeralFileSync(path, version(0));

    const result = await rewriteWhileReading(path, async (n) => {
      writeEphemeralFileSync(path, version(n));
      // Yield now and then so the reader's output and exit events are seen.
      if (n % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    });

    expect([result.torn, result.missing]).toEqual([0, 0]);
    expect(result.distinct).toBeGreaterThan(1);
    expect(readdirSync(dir)).toEqual(['record.json']);
  });
});
