/**
 * `agentwrap demo --auto` end to end: the built CLI wraps the real demo agent in a PTY, drives
 * it by keystrokes, and reports every published state. The published sequence must be exactly
 * the turn's story, with no spurious transition, and blocked must follow the dialog (how
 * quickly is the machine's load as much as ours: `npm run bench` measures it).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { CLI, ensureBuilt } from '../helpers/cli.js';

const EXPECTED = ['idle', 'working', 'done', 'idle', 'working', 'blocked', 'working', 'done', 'idle'];

/** The built CLI without a terminal, asynchronously: the runs below go at the same time. */
function runCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { encoding: 'utf8', env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
    child.stdin?.end();
  });
}

// Concurrent: each run mostly waits on the demo's own pace, and three runs side by side are
// also three loaded machines for each other; the story must still be exact in every one.
describe.concurrent('agentwrap demo --auto', () => {
  it.for([1, 2, 3])('run %i publishes exactly the story of the turn', async (run, { expect }) => {
    ensureBuilt();
    const stateDir = mkdtempSync(join(tmpdir(), `aw-demo-${run}-`));

    const result = await runCli(['demo', '--auto', '--json'], { ...process.env, AGENT_STATUS_DIR: join(stateDir, 'status') });

    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; transitions: { state: string; rule_id: string | null }[]; blocked_latency_ms: number | null };
    expect(report.ok).toBe(true);
    expect(report.transitions.map((t) => t.state)).toEqual(EXPECTED);
    const blocked = report.transitions.find((t) => t.state === 'blocked');
    expect(blocked?.rule_id).toBe('permission-dialog');
    expect(report.blocked_latency_ms).not.toBeNull();
    expect(report.blocked_latency_ms).toBeGreaterThanOrEqual(0);
  });

  // The README teaches agentwrap's options before the name: `agentwrap --record s.cast demo`
  // once said `demo: command not found`. Both orders must run the same demo and record it.
  it('agentwrap --record FILE demo --auto is agentwrap demo --auto --record FILE', async ({ expect }) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'aw-demo-record-'));
    const env = { ...process.env, AGENT_STATUS_DIR: join(dir, 'status') };

    const [before, after] = await Promise.all([
      runCli(['--record', join(dir, 'before.cast'), 'demo', '--auto', '--json'], env),
      runCli(['demo', '--auto', '--json', '--record', join(dir, 'after.cast')], env),
    ]);

    for (const [result, file] of [[before, 'before.cast'], [after, 'after.cast']] as const) {
      expect(result.status, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { transitions: { state: string }[] }).transitions.map((t) => t.state)).toEqual(EXPECTED);
      expect(existsSync(join(dir, file))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, file), 'utf8').split('\n')[0] ?? '')).toMatchObject({ version: 2 });
    }
  });

  it('says so and drives itself when there is no terminal', async ({ expect }) => {
    ensureBuilt();

    const result = await runCli(['demo']);

    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('no terminal here');
    expect(result.stdout).toContain('published: idle → working → done → idle → working → blocked → working → done → idle');
  });
});
