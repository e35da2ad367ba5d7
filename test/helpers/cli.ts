/**
 * The built CLI, for tests that run agentwrap as a user would. The vitest global setup
 * (test/global-setup.ts) builds dist/ once before any test file runs.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Fails with a clear message when dist/ is missing (vitest run outside `npm test` without a build). */
export function ensureBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test builds it first)`);
}
