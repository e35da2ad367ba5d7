/**
 * `npm run build`'s second step: dist/src/ (tsc's output, ~150 ES modules) bundled into
 * dist/bundle/, CommonJS chunks with the lazy parts (what a session loads after the agent's
 * first screen, the dashboards, the other commands) kept in chunks of their own. The `agentwrap`
 * shell front (src/cli/bin/agentwrap) starts the bundle when it is at least as new as tsc's
 * output, else the tree.
 *
 * Why: before it spawns the agent, Node resolved, read and linked each ES module of the launch
 * path one by one, and an ES import of `node:fs` builds its facade by reading every export,
 * which loads fs streams; the chunks are a handful of `require`s. Start to the agent's exec went
 * from ~120 ms to ~76 ms (Node alone ~43 ms), and `status --json` from ~75 ms to ~43 ms
 * (test/bench/NOTES.md, 2026-12-08). The runtime dependencies stay outside (native addons,
 * xterm, smol-toml, semver): the bundle is agentwrap's own code only.
 *
 *   node test/tools/bundle.mjs      (after tsc; `npm run build` runs both)
 */
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
const ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** What agentwrap loads from node_modules: native addons and well-kept libraries, used as installed. */
const EXTERNAL = [/^node:/, 're2', 'node-pty', '@xterm/headless', 'smol-toml', 'semver'];

/** Bundles tsc's output into `outDir` (replaced whole, so no chunk of an older build is left behind). */
export async function bundle(outDir = BUNDLE_DIR) {
  rmSync(outDir, { recursive: true, force: true });
  const build = await rolldown({ input: { main: ENTRY }, platform: 'node', external: EXTERNAL, logLevel: 'warn' });
  try {
    await build.write({ dir: outDir, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' });
  } finally {
    await build.close();
  }
  return join(outDir, 'main.cjs');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundle();
}
