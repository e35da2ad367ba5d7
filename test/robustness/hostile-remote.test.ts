/**
 * A hostile remote host through a fake ssh (AGENTWRAP_SSH_COMMAND, adapters/ssh.ts): whatever it
 * prints, `status --host`, `status --watch --host` and `events --host` stay within 500 MB and
 * say what they dropped. Before the bounds, status buffered 7 GB until V8 aborted, the watch
 * died with a RangeError at 4.9 GB, and events re-scanned one endless line on every read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { boundsOf, HOSTILE_MEMORY_CAP_KIB, runCliBounded } from './bounded-run.js';

const STDOUT_CAP_BYTES = 16 * 1024 * 1024;
const EVENT_LINE_CAP_CHARS = 64 * 1024;

let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'aw-hostile-remote-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fake ssh: ignores its arguments and runs `body` as the remote side. */
function fakeSsh(name: string, body: string): Record<string, string> {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o700 });
  return { AGENTWRAP_SSH_COMMAND: path, AGENT_STATUS_DIR: join(dir, 'state') };
}

describe('a remote that never stops printing', () => {
  it('status --host reads at most 16 MiB of it and reports the host unreachable', async () => {
    const env = fakeSsh('flood', 'exec cat /dev/zero');

    const run = await runCliBounded(['status', '--host', 'box'], { env });

    expect(boundsOf(run)).toEqual({ killedFor: undefined, withinMemory: true, rawControl: false });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`host box: unreachable (the remote printed more than ${STDOUT_CAP_BYTES} bytes; stopped reading)`);
  });

  it('status --watch --host keeps polling it within 500 MB', async () => {
    const env = fakeSsh('flood-watch', 'exec cat /dev/zero');

    const run = await runCliBounded(['status', '--watch', '--host', 'box'], { env, stopWhenStdout: /the remote printed more than/ });

    expect(run.killedFor).toBeUndefined();
    expect(run.peakKiB).toBeLessThanOrEqual(HOSTILE_MEMORY_CAP_KIB);
    expect(run.stdout).toContain('host box: unreachable (the remote printed more than');
  });
});

describe('a remote events stream with one endless line', () => {
  it('drops the line with one warning and goes on with the next event', async () => {
    const event = '{"t":1,"session":"s1","agent":"claude","from":null,"to":"idle","winner":null,"rule_id":null}';
    const env = fakeSsh('endless-line', `head -c 300000000 /dev/zero | tr '\\0' x\nprintf '\\n%s\\n' '${event}'\nexec sleep 60`);

    const run = await runCliBounded(['events', '--host', 'box'], { env, stopWhenStdout: /"to":"idle"/ });

    expect(boundsOf(run)).toEqual({ killedFor: undefined, withinMemory: true, rawControl: false });
    expect(run.stdout).toBe(`${event.slice(0, -1)},"reason":null,"host":"box"}\n`);
    expect(run.stderr).toBe(`agentwrap: box: a line longer than ${EVENT_LINE_CAP_CHARS} characters was dropped (not an event)\n`);
  });
});
