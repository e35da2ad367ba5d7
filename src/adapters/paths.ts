/**
 * The single source for locations: where agentwrap's own files are (bundled packs, the demo
 * agent) and, as they land, the user pack directory and the state directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: `dist/src/adapters/paths.js` and `src/adapters/paths.ts` both sit three levels down. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'agentwrap') return dir;
    } catch {
      // Not this level (no package.json, or not ours): keep walking up.
    }
    dir = resolve(dir, '..');
  }
  throw new Error(`agentwrap: cannot find its own package.json above ${fileURLToPath(import.meta.url)}`);
}

export const PACKAGE_ROOT = findPackageRoot();

export const AGENTWRAP_VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

export const BUNDLED_PACKS_DIR = join(PACKAGE_ROOT, 'packs');

/** The bundled screen fixtures (`fixtures/<agent>/*.txt`); present in a checkout, not in the npm package. */
export const BUNDLED_FIXTURES_DIR = join(PACKAGE_ROOT, 'fixtures');

/**
 * The user pack directory: $AGENTWRAP_PACKS, else $XDG_CONFIG_HOME/agentwrap/packs, else
 * ~/.config/agentwrap/packs. Undefined when none can be formed (no HOME).
 */
export function userPacksDir(env: NodeJS.ProcessEnv): string | undefined {
  const explicit = env['AGENTWRAP_PACKS'];
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const xdg = env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg !== '' && xdg.startsWith('/')) return join(xdg, 'agentwrap', 'packs');
  const home = env['HOME'];
  if (home !== undefined && home !== '') return join(home, '.config', 'agentwrap', 'packs');
  return undefined;
}

/**
 * agentwrap's own per-user state (what it has already told this user): $XDG_STATE_HOME/agentwrap,
 * else ~/.local/state/agentwrap. Undefined when none can be formed (no HOME).
 */
export function userStateDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg !== undefined && xdg !== '' && xdg.startsWith('/')) return join(xdg, 'agentwrap');
  const home = env['HOME'];
  if (home !== undefined && home !== '') return join(home, '.local', 'state', 'agentwrap');
  return undefined;
}

/**
 * The CLI's entry as compiled by tsc: what agent hooks run (`node CLI_MAIN_PATH report …`).
 * Known here rather than from the CLI's own module URL, so no lower layer points up at src/cli.
 */
export const CLI_MAIN_PATH = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

/** The bundled demo agent, as compiled by tsc (a standalone program agentwrap wraps). */
export const DEMO_AGENT_PATH = join(PACKAGE_ROOT, 'dist', 'src', 'demo', 'agent.js');
