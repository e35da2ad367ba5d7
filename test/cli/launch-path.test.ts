/**
 * What runs before the agent is spawned is what the agent's first byte waits for
 * (docs/launcher.md, "Nothing of detection runs before the agent is spawned"): the launch path's
 * static imports, from the CLI entry to the spawn, must not reach the session loop (screen
 * mirror, packs, RE2, the control client, OpenCode's stream, the TOML parser). Those load by
 * `await import()` after the spawn, or only for the one hook plan that needs them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'src');

/** The modules main.ts loads on the way to launchWrapped (the dynamic imports it awaits first). */
const LAUNCH_PATH = ['cli/main.ts', 'cli/user-config.ts', 'cli/commands/launch.ts', 'cli/session-launch.ts'];

/**
 * Static value imports and re-exports (`import type` is erased, `import()` is dynamic), and
 * packages a module `require`s at load time through `createRequire(import.meta.url)(…)`.
 */
function staticImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(?!type\s)[^'"`;]*?from\s*['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)) {
    const specifier = match[2] ?? match[3];
    if (specifier !== undefined) found.push(specifier);
  }
  for (const match of text.matchAll(/createRequire\(import\.meta\.url\)\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

/** Every source file, package and Node built-in the launch path loads statically. */
function closure(entries: readonly string[]): { files: Set<string>; packages: Set<string>; builtins: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const todo = entries.map((entry) => join(SRC, entry));
  for (let path = todo.pop(); path !== undefined; path = todo.pop()) {
    if (files.has(path)) continue;
    files.add(path);
    for (const specifier of staticImports(readFileSync(path, 'utf8'))) {
      if (specifier.startsWith('node:')) {
        builtins.add(specifier);
        continue;
      }
      if (!specifier.startsWith('.')) {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? specifier));
        continue;
      }
      const target = resolve(dirname(path), specifier).replace(/\.js$/, '.ts');
      if (existsSync(target)) todo.push(target);
    }
  }
  return { files, packages, builtins };
}

describe('the launch path before the spawn', () => {
  const { files, packages } = closure(LAUNCH_PATH);
  const loaded = [...files].map((file) => relative(SRC, file));

  it('reaches the launcher and the hook plan (the walk follows imports)', () => {
    expect(loaded).toEqual(expect.arrayContaining(['app/launch/launch.ts', 'app/reporters/hooks.ts', 'app/control/socket-path.ts', 'adapters/pty/index.ts']));
    expect([...packages]).toContain('node-pty');
  });

  it('loads nothing of the session loop, the control client or the TOML parser', () => {
    const sessionLoop = loaded.filter((file) =>
      /^app\/(live\/|pack-registry|control\/client|control\/socket\.ts|reporters\/opencode-events|session\.ts|recording\/recorder)|^adapters\/screen\//.test(file),
    );
    expect(sessionLoop).toEqual([]);
    expect([...packages].filter((pkg) => ['smol-toml', 're2', '@xterm/headless'].includes(pkg))).toEqual([]);
  });
});

/**
 * What a plain live session loads is memory every wrapper holds for its whole life (docs/architecture.md,
 * "What a session costs"): node:crypto (~0.7 MB) loads only to record or for Codex's hook
 * hashes (adapters/crypto-on-demand.ts), node:http and node:https (TLS, ~1.2 MB with crypto)
 * only at the first webhook notification (adapters/http-post.ts).
 */
describe('the live session, loaded after the first screen', () => {
  const { files, builtins } = closure([...LAUNCH_PATH, 'app/live/live-session.ts']);

  it('reaches the mirror, the packs and the publisher (the walk follows imports)', () => {
    const loaded = [...files].map((file) => relative(SRC, file));
    expect(loaded).toEqual(expect.arrayContaining(['app/pack-registry.ts', 'adapters/screen/index.ts', 'app/notify/webhook.ts', 'app/recording/record-dir.ts']));
    expect([...builtins]).toContain('node:net');
  });

  it('loads neither node:crypto nor node:http(s) until something needs them', () => {
    expect([...builtins].filter((name) => ['node:crypto', 'node:http', 'node:https', 'node:tls'].includes(name))).toEqual([]);
  });
});
