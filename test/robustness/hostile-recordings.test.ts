/**
 * Crafted recordings through the real `replay` and `eval`: a recording is a file people send
 * each other and commit to repositories whose CI runs `eval recordings/`. Each must end by
 * itself within 20 s and 500 MB, say what it stepped over as `FILE:LINE: …`, and print no raw
 * control byte (limits: core/input-bounds.ts; docs/robustness.md "Bounded reads").
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { boundsOf, runCliBounded } from './bounded-run.js';

const WITHIN_BOUNDS = { killedFor: undefined, withinMemory: true, rawControl: false };
const HEADER_V2 = '{"version":2,"width":80,"height":24,"command":"claude"}';

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'aw-hostile-cast-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cast(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('replay of a crafted recording ends within 20 s and 500 MB, saying FILE:LINE', () => {
  it.each([
    {
      what: 'a header of 2,000,000 × 2,000,000 cells is clamped',
      lines: ['{"version":2,"width":2000000,"height":2000000,"command":"claude"}', '[0.5, "o", "hello"]'],
      note: ':1: header size 2000000x2000000 is past the 500x300 limit; clamped to 500x300',
    },
    {
      what: 'a resize to 99999x99999 is clamped',
      lines: [HEADER_V2, '[0.5, "o", "hello"]', '[1.0, "r", "99999x99999"]', '[1.5, "o", "after"]'],
      note: ':3: resize to 99999x99999 is past the 500x300 limit; clamped to 500x300',
    },
    {
      what: 'an event at t = 1e9 ends the recording',
      lines: [HEADER_V2, '[0.5, "o", "hello"]', '[1e9, "o", "late"]'],
      note: ':3: event time 1000000000 s is past the 86400 s a recording may span; this line and the rest ignored',
    },
    {
      what: 'an event at t = 1e300 ends the recording',
      lines: [HEADER_V2, '[0.5, "o", "hello"]', '[1e300, "o", "never"]'],
      note: ':3: event time 1e+300 s is past the 86400 s a recording may span; this line and the rest ignored',
    },
    {
      what: 'v3 intervals that sum past the span end the recording',
      lines: ['{"version":3,"term":{"cols":80,"rows":24}}', '[0.5, "o", "hello"]', '[1e200, "o", "x"]', '[1e200, "o", "y"]'],
      note: ':3: event time 1e+200 s is past the 86400 s a recording may span; this line and the rest ignored',
    },
  ])('$what', async ({ what, lines, note }) => {
    const path = cast(`${what.replace(/\W+/g, '-')}.cast`, lines);

    const run = await runCliBounded(['replay', path]);

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`agentwrap: ${path}${note}`);
  });

  it('a 500×300 screen redrawn every 0.2 s for an hour stops at the screen-work limit', async () => {
    const screen = `${'y'.repeat(499)}\r\n`.repeat(299);
    const redraws = Array.from({ length: 18_000 }, (_, i) => JSON.stringify([0.2 * (i + 1), 'o', `\u001b[10;10H${i}`]));
    const path = cast('huge-screen-hour.cast', ['{"version":2,"width":500,"height":300,"command":"claude"}', JSON.stringify([0.1, 'o', screen]), ...redraws]);

    const run = await runCliBounded(['replay', path]);

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/agentwrap: replay stopped at \d+\.\d s of 3600\.0 s: it read 60000000 screen cells, its limit\n/);
  });

  it('a FIFO named .cast is refused without waiting for a writer', async () => {
    const path = join(dir, 'fifo.cast');
    execFileSync('mkfifo', [path]);

    const run = await runCliBounded(['replay', path]);

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path}: is a FIFO, not a regular file; not read`);
  });

  it('a 600 MiB recording is refused by its size before any of it is read', async () => {
    const path = cast('huge.cast', [HEADER_V2]);
    truncateSync(path, 600 * 1024 * 1024);

    const run = await runCliBounded(['replay', path]);

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path}: is ${600 * 1024 * 1024} bytes, more than the ${32 * 1024 * 1024} allowed; not read`);
  });
});

describe('eval of a folder holding crafted recordings ends within 20 s and 500 MB', () => {
  it('scores them with every clamp and cut said once, as FILE:LINE', async () => {
    const folder = join(dir, 'repo', 'recordings');
    mkdirSync(folder, { recursive: true });
    const labels = '{"t":0,"state":"uncertain"}\n{"t":1,"state":"idle"}\n';
    const crafted = {
      'big-header': ['{"version":2,"width":2000000,"height":2000000,"command":"claude"}', '[0.5, "o", "hello"]', '[2, "o", "x"]'],
      resize: [HEADER_V2, '[0.5, "o", "hello"]', '[1.0, "r", "99999x99999"]', '[2, "o", "x"]'],
      'far-future': [HEADER_V2, '[0.5, "o", "hello"]', '[2, "o", "x"]', '[1e300, "o", "never"]'],
    };
    for (const [name, lines] of Object.entries(crafted)) {
      writeFileSync(join(folder, `${name}.cast`), `${lines.join('\n')}\n`);
      writeFileSync(join(folder, `${name}.labels.jsonl`), labels);
    }

    const run = await runCliBounded(['eval', folder, '--json', '--report', join(dir, 'report.html')]);

    expect(boundsOf(run)).toEqual(WITHIN_BOUNDS);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as { files: unknown[] }).files).toHaveLength(3);
    expect(run.stderr).toContain(`agentwrap: ${join(folder, 'big-header.cast')}:1: header size 2000000x2000000 is past the 500x300 limit`);
    expect(run.stderr).toContain(`agentwrap: ${join(folder, 'resize.cast')}:3: resize to 99999x99999 is past the 500x300 limit`);
    expect(run.stderr).toContain(`agentwrap: ${join(folder, 'far-future.cast')}:4: event time 1e+300 s is past the 86400 s`);
  });
});
