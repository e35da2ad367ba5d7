/**
 * Enforces the dependency rule of architecture.md §2 (cli → app → adapters → core, never back)
 * and keeps src/core pure: no clock, timers, fs, env or console there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const LAYERS = ['core', 'adapters', 'app', 'cli', 'demo'] as const;
type Layer = (typeof LAYERS)[number];

/** Which layers each layer may import (itself included). */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  adapters: ['core', 'adapters'],
  app: ['core', 'adapters', 'app'],
  cli: ['core', 'adapters', 'app', 'cli'],
  // The bundled demo agent is a separate program agentwrap wraps; it shares no code with it.
  demo: ['demo'],
};

/** Third-party packages core may use: pure libraries only. */
const CORE_PACKAGES = new Set(['smol-toml', 're2', 'semver']);

/** Tokens that would make core impure (time, timers, environment, I/O, console). */
const CORE_FORBIDDEN_TOKENS = [
  'Date.now',
  'new Date(',
  'performance.now',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'process.',
  'console.',
  'require(',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|\s)(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier !== undefined) specifiers.push(specifier);
  }
  return specifiers;
}

function layerOf(path: string): Layer | undefined {
  const top = relative(SRC, path).split('/')[0];
  return LAYERS.find((layer) => layer === top);
}

/** Strips comments so prose that mentions `process.` does not trip the purity check. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const files = sourceFiles(SRC);

describe('architecture', () => {
  it('finds the layered source tree', () => {
    for (const layer of ['core', 'adapters', 'app', 'cli'] as const) {
      expect(files.some((file) => layerOf(file) === layer), `src/${layer} has sources`).toBe(true);
    }
  });

  it.each(files.map((file) => [relative(ROOT, file), file] as const))(
    '%s imports only what its layer allows',
    (_name, file) => {
      const layer = layerOf(file);
      expect(layer, `${file} sits in a known layer`).toBeDefined();
      if (layer === undefined) return;
      const text = readFileSync(file, 'utf8');
      for (const specifier of importsOf(text)) {
        if (specifier.startsWith('.')) {
          const target = layerOf(resolve(dirname(file), specifier));
          expect(target, `${specifier} resolves inside src/`).toBeDefined();
          if (target !== undefined) {
            expect(ALLOWED[layer], `${relative(ROOT, file)} may not import ${specifier} (${target})`).toContain(target);
          }
        } else if (layer === 'core') {
          const pkg = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
          expect(CORE_PACKAGES.has(pkg ?? ''), `core may not import ${specifier}`).toBe(true);
        }
      }
    },
  );

  it.each(files.filter((file) => layerOf(file) === 'core').map((file) => [relative(ROOT, file), file] as const))(
    '%s stays pure',
    (_name, file) => {
      const code = withoutComments(readFileSync(file, 'utf8'));
      for (const token of CORE_FORBIDDEN_TOKENS) {
        expect(code.includes(token), `${relative(ROOT, file)} uses ${token}`).toBe(false);
      }
    },
  );

  it('catches a violation (the checks are not vacuous)', () => {
    expect(importsOf(`import { x } from '../app/session.js';\nimport fs from 'node:fs';`)).toEqual([
      '../app/session.js',
      'node:fs',
    ]);
    expect(withoutComments('// process.env in a comment\nconst a = 1;')).not.toContain('process.');
  });
});
