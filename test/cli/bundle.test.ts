/**
 * The bundle `agentwrap` starts (test/tools/bundle.mjs, built by `npm run build` and by the
 * suite's global setup): the shell front picks it only while it is not older than tsc's tree,
 * and it does what the tree does, a live session included.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/cli.js';
import { openOuterTerminal, type OuterTerminal } from '../helpers/pty-outer.js';

const FRONT = join(ROOT, 'src', 'cli', 'bin', 'agentwrap');
const BUNDLE = join(ROOT, 'dist', 'bundle', 'main.cjs');
const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGKILL');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

/** A package root holding a copy of the front, and a tree and a bundle that only say which they are. */
function fakeInstall(withBundle: boolean): { front: string; tree: string; bundle: string } {
  const root = mkdtempSync(join(tmpdir(), 'aw-bundle-front-'));
  const front = join(root, 'src', 'cli', 'bin', 'agentwrap');
  const tree = join(root, 'dist', 'src', 'cli', 'main.js');
  const bundle = join(root, 'dist', 'bundle', 'main.cjs');
  for (const path of [front, tree, bundle]) mkdirSync(dirname(path), { recursive: true });
  copyFileSync(FRONT, front);
  chmodSync(front, 0o755);
  writeFileSync(tree, 'console.log("tree", process.argv.slice(2).join(" "));\n');
  if (withBundle) writeFileSync(bundle, 'console.log("bundle", process.argv.slice(2).join(" "));\n');
  return { front, tree, bundle };
}

function runFront(front: string): string {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` };
  const result = spawnSync('/bin/sh', [front, 'status', '--json'], { encoding: 'utf8', env });
  expect(result.stderr).toBe('');
  return result.stdout.trim();
}

describe('the bundle', () => {
  it('is what the front starts while it is as new as the tree or newer, and the tree once tsc ran after it', () => {
    const { front, tree, bundle } = fakeInstall(true);
    const at = (path: string, seconds: number): void => utimesSync(path, seconds, seconds);

    at(tree, 1_000);
    at(bundle, 2_000);
    const newer = runFront(front);
    // npm pack stamps every file with one date: equal times are a built package.
    at(bundle, 1_000);
    const same = runFront(front);
    at(tree, 3_000);
    const stale = runFront(front);

    expect([newer, same, stale]).toEqual(['bundle status --json', 'bundle status --json', 'tree status --json']);
    expect(runFront(fakeInstall(false).front)).toBe('tree status --json');
  });

  it('answers as the tree does', () => {
    const env = { ...process.env, AGENT_STATUS_DIR: mkdtempSync(join(tmpdir(), 'aw-bundle-')) };
    const run = (entry: string, args: string[]) => spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', env });

    for (const args of [['--version'], ['packs', 'list'], ['status', '--json']]) {
      const fromTree = run(CLI, args);
      const fromBundle = run(BUNDLE, args);
      expect(fromBundle.status, fromBundle.stderr).toBe(fromTree.status);
      expect(fromBundle.stdout.replace(/"now": ?\d+/, '')).toBe(fromTree.stdout.replace(/"now": ?\d+/, ''));
    }
  });

  it('wraps an agent and publishes its session, its lazy chunks loaded after the spawn', async () => {
    const env = { AGENT_STATUS_DIR: mkdtempSync(join(tmpdir(), 'aw-bundle-')) };
    const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BUNDLE)} run --no-hooks -- sh -c 'echo READY; sleep 30'`, { env });
    opened.push(term);
    await term.waitFor('READY');

    const listed = (): number => {
      const status = spawnSync(process.execPath, [BUNDLE, 'status', '--json'], { encoding: 'utf8', env: { ...process.env, ...env } });
      return (JSON.parse(status.stdout) as { sessions: unknown[] }).sessions.length;
    };
    await expect.poll(listed, { timeout: 15_000, interval: 200 }).toBe(1);
  });
});
