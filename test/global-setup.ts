/**
 * Builds dist/ once before the suite: many tests run the real CLI (`node dist/src/cli/main.js`)
 * and the real demo agent, as a user would. A type error anywhere fails the run here, loudly.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = resolve(root, 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-p', 'tsconfig.json'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`tsc failed, so the built CLI the tests run would be stale:\n${result.stdout}${result.stderr}`);
  }
}
