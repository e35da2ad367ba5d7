import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the e2e harness, without types
import { paneFiles, paneTerminalEnv, startPane } from './tmux-pane.mjs';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

describe.skipIf(!HAS_TMUX)(`a pane of a real tmux server, as the capture lab's habitats run it${HAS_TMUX ? '' : ' (skipped: tmux is not installed)'}`, () => {
  const dirs: string[] = [];
  afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

  async function runInPane(habitat: string, script: string) {
    const dir = mkdtempSync(join(tmpdir(), 'agentwrap-pane-test-'));
    dirs.push(dir);
    const files = paneFiles(dir, 'probe');
    // The caller's own COLORTERM and TERM must not leak in: the habitat decides them, as a user's tmux server does.
    const env = { PATH: process.env.PATH, HOME: dir, COLORTERM: 'leaked', TERM: 'leaked', PROBE: 'seen' };
    const { proc, go } = startPane({ argv: ['sh', '-c', script], env, cwd: dir, cols: 80, rows: 24, habitat, files });
    let output = '';
    proc.onData((text: string) => { output += text; });
    const exit = new Promise<{ exitCode: number }>((resolve) => proc.onExit(resolve));
    go();
    const { exitCode } = await exit;
    proc.close();
    return { exitCode, output, terminalEnv: paneTerminalEnv(files) };
  }

  it('gives the program tmux\'s TERM and TMUX, no COLORTERM in the plain habitat, and its own output and exit status', async () => {
    // The output comes just before the exit: tmux can pass it to the pipe after the exit status is
    // written (seen once in a full `npm test` on a clean clone), which the pane's end waits for.
    const r = await runInPane('tmux', 'printf "pane:%s" "$PROBE"; exit 3');
    expect(r.exitCode).toBe(3);
    expect(r.output).toContain('pane:seen');
    expect(r.terminalEnv.TERM).toMatch(/^(tmux|screen)/);
    expect(r.terminalEnv.COLORTERM).toBeNull();
    expect(r.terminalEnv.TERM_PROGRAM).toBe('tmux');
    expect(r.terminalEnv.TMUX).toMatch(/^\/.+,\d+,\d+$/);
  });

  it('passes COLORTERM=truecolor on in the truecolor habitat', async () => {
    const r = await runInPane('tmux-truecolor', 'printf "colorterm:%s" "$COLORTERM"');
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('colorterm:truecolor');
    expect(r.terminalEnv.COLORTERM).toBe('truecolor');
  });
});
