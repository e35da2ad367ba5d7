/**
 * Enforces the dependency rule (docs/architecture.md: cli → app → adapters → core, no layer
 * skipped, nothing pointing back), keeps src/core pure (no clock, timers, fs, env or console),
 * and keeps files, functions and folders readable (at most 500 lines, 120 lines, 15 source files
 * directly in one folder). The checks themselves are
 * test/helpers/source-rules.ts, run here on src/ and on planted violations.
 */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crowdedFolders, dependenciesOf, functionSpans, layerOf, layerViolations, sizeViolations, type SourceFile } from './helpers/source-rules.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

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

/**
 * Strips comments and import paths, so prose that mentions `process.` and an import of the
 * detector's own process.js module do not trip the purity check (imports are checked by layer).
 */
function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/(\bfrom\s+)'[^']*'/g, "$1''");
}

const files = sourceFiles(SRC);
const sources: SourceFile[] = files.map((path) => ({ path, text: readFileSync(path, 'utf8') }));

describe('architecture', () => {
  it('finds the layered source tree', () => {
    for (const layer of ['core', 'adapters', 'app', 'cli'] as const) {
      expect(files.some((file) => layerOf(SRC, file) === layer), `src/${layer} has sources`).toBe(true);
    }
  });

  it.each(sources.map((file) => [relative(ROOT, file.path), file] as const))('%s imports only what its layer allows', (_name, file) => {
    expect(layerViolations(SRC, [file])).toEqual([]);

    if (layerOf(SRC, file.path) !== 'core') return;
    for (const { specifier } of dependenciesOf(file.text)) {
      if (specifier.startsWith('.')) continue;
      const pkg = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
      expect(CORE_PACKAGES.has(pkg ?? ''), `core may not import ${specifier}`).toBe(true);
    }
  });

  it.each(files.filter((file) => layerOf(SRC, file) === 'core').map((file) => [relative(ROOT, file), file] as const))('%s stays pure', (_name, file) => {
    const code = codeOnly(readFileSync(file, 'utf8'));
    for (const token of CORE_FORBIDDEN_TOKENS) {
      expect(code.includes(token), `${relative(ROOT, file)} uses ${token}`).toBe(false);
    }
  });

  it('keeps every file under 500 lines and every function under 120', () => {
    expect(sizeViolations(SRC, sources)).toEqual([]);
  });

  it('keeps at most 15 source files directly in any folder', () => {
    expect(crowdedFolders(SRC, sources)).toEqual([]);
  });
});

describe('the checks fail on planted violations (they are not vacuous)', () => {
  const fake = (path: string, text: string): SourceFile => ({ path: join(SRC, path), text });

  it('a cli → adapters import skips app', () => {
    const planted = fake('cli/commands/x.ts', "import { isPidAlive } from '../../adapters/process-alive.js';\n");

    expect(layerViolations(SRC, [planted])).toEqual([
      'cli/commands/x.ts (cli) imports ../../adapters/process-alive.js (adapters); cli may use core, app, cli',
    ]);
  });

  it('an upward dependency, a dynamic import and a new URL() path', () => {
    const planted = [
      fake('adapters/x.ts', "export { thing } from '../app/session.js';\n"),
      fake('core/y.ts', "const m = await import('../adapters/clock.js');\n"),
      fake('app/z.ts', "const main = fileURLToPath(new URL('../cli/main.js', import.meta.url));\n"),
    ];

    expect(layerViolations(SRC, planted)).toHaveLength(3);
    expect(layerViolations(SRC, planted)[2]).toContain('locates ../cli/main.js (cli)');
  });

  it('a URL may point outside src/, an import may not', () => {
    const url = fake('adapters/p.ts', "const packs = new URL('../../packs/', import.meta.url);\n");
    const escape = fake('app/q.ts', "import { x } from '../../test/helpers/cli.js';\n");

    expect(layerViolations(SRC, [url])).toEqual([]);
    expect(layerViolations(SRC, [escape])).toHaveLength(1);
  });

  it('a planted cli → adapters import in a temporary copy of src/cli fails the tree check', () => {
    const tree = mkdtempSync(join(tmpdir(), 'aw-architecture-'));
    try {
      const planted = join(tree, 'cli', 'planted.ts');
      mkdirSync(dirname(planted), { recursive: true });
      writeFileSync(planted, "import { resolveStateRoot } from '../adapters/state-dir.js';\n");
      const copy = sourceFiles(join(tree, 'cli')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

      expect(layerViolations(tree, copy)).toEqual([
        'cli/planted.ts (cli) imports ../adapters/state-dir.js (adapters); cli may use core, app, cli',
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('a long function and a long file', () => {
    const body = Array.from({ length: 130 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = `export function long(): void {\n${body}\n}\n\nclass K {\n  short(x: number): number {\n    return x;\n  }\n}\n`;

    expect(functionSpans(text)).toEqual([
      { name: 'long', line: 1, lines: 132 },
      { name: 'short', line: 135, lines: 3 },
    ]);
    expect(sizeViolations(SRC, [fake('core/long.ts', text.repeat(4))]).map((v) => v.replace(/:\d+ /, ' '))).toContain(
      'core/long.ts long: 132 lines (at most 120)',
    );
    expect(sizeViolations(SRC, [fake('core/long.ts', text.repeat(4))])[0]).toBe('core/long.ts: 553 lines (at most 500)');
  });

  it('a sixteenth source file in one folder', () => {
    const fifteen = Array.from({ length: 15 }, (_, i) => fake(`core/packs/f${i}.ts`, 'export {};\n'));
    const nested = fake('core/packs/deeper/g.ts', 'export {};\n');

    expect(crowdedFolders(SRC, [...fifteen, nested])).toEqual([]);
    expect(crowdedFolders(SRC, [...fifteen, nested, fake('core/packs/f15.ts', 'export {};\n')])).toEqual([
      'core/packs/: 16 source files (at most 15; group them into folders named for their concern)',
    ]);
  });

  it('the tree check fails on a sixteenth file planted in the real src/cli', () => {
    const cliTop = sources.filter((file) => dirname(file.path) === join(SRC, 'cli'));
    const padding = Array.from({ length: 16 - cliTop.length }, (_, i) => fake(`cli/planted-${i}.ts`, 'export {};\n'));

    expect(crowdedFolders(SRC, sources)).toEqual([]);
    expect(crowdedFolders(SRC, [...sources, ...padding])).toEqual([
      'cli/: 16 source files (at most 15; group them into folders named for their concern)',
    ]);
  });

  it('comments and import paths do not count as impurity', () => {
    expect(codeOnly('// process.env in a comment\nconst a = 1;')).not.toContain('process.');
    expect(codeOnly("import { parseStat } from './process.js';")).not.toContain('process.');
    expect(codeOnly("const env = process.env;")).toContain('process.');
  });
});
