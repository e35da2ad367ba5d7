/**
 * Builds dist/ (tsc, then the bundle) once before the suite: many tests run the real CLI (`node dist/src/cli/main.js`)
 * and the real demo agent, as a user would. A type error anywhere fails the run here, loudly.
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  // .ci/run builds first, then runs a set of tests with /proc hidden, where tsc cannot run
  // (typescript-go needs /proc/self/exe).
  if (process.env['AGENTWRAP_TEST_PREBUILT'] === '1') return;
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = resolve(root, 'node_modules', '.bin', 'tsc');
  // Emit even with errors, so a file mid-edit elsewhere does not leave dist/ stale for everyone.
  const result = spawnSync(tsc, ['-p', 'tsconfig.json', '--noEmitOnError', 'false'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0 && process.env['AGENTWRAP_TEST_ALLOW_TYPE_ERRORS'] !== '1') {
    throw new Error(
      `tsc found type errors (set AGENTWRAP_TEST_ALLOW_TYPE_ERRORS=1 to run the tests anyway while a file is mid-edit):\n${result.stdout}${result.stderr}`,
    );
  }
  // Then the bundle `agentwrap` starts (npm run build's second step), so the tests that run the
  // command as users do run what a user's install runs.
  const bundled = spawnSync(process.execPath, [resolve(root, 'test', 'tools', 'bundle.mjs')], { cwd: root, encoding: 'utf8' });
  if (bundled.status !== 0) throw new Error(`bundling dist/ failed:\n${bundled.stdout}${bundled.stderr}`);
}
