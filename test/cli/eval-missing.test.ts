// `agentwrap eval` on a path that is not there: one line naming the path, exit 1, no stack.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../helpers/cli.js';

describe('eval on a missing path', () => {
  it('names the path in one line and exits 1', () => {
    ensureBuilt();
    const result = spawnSync(process.execPath, [CLI, 'eval', '/nonexistent/agentwrap-recordings'], { encoding: 'utf8', timeout: 30_000 });

    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('agentwrap: eval: cannot read /nonexistent/agentwrap-recordings: no such file or directory');
  });
});
