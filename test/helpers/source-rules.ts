/**
 * The checks behind test/architecture.test.ts, as functions over (path, text) pairs so a test
 * can run them on a synthetic tree (a planted cli → adapters import must fail) as well as on
 * src/. Heuristic parsing, no compiler: imports by pattern, functions by their braces at the
 * signature's indentation (the code is prettier-formatted, so a body closes at that indent).
 */
import { dirname, relative, resolve } from 'node:path';

export const LAYERS = ['core', 'adapters', 'app', 'cli', 'demo'] as const;
export type Layer = (typeof LAYERS)[number];

/**
 * Which layers each layer may import (itself included): the one right below, and core, whose
 * pure vocabulary (types, decisions, renderable data) every layer shares. Nothing skips a
 * layer: the CLI reaches the machine through app (app/platform.ts), never adapters directly.
 */
export const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  core: ['core'],
  adapters: ['core', 'adapters'],
  app: ['core', 'adapters', 'app'],
  cli: ['core', 'app', 'cli'],
  // The bundled demo agent is a separate program agentwrap wraps; it shares no code with it.
  demo: ['demo'],
};

export const FILE_MAX_LINES = 500;
export const FUNCTION_MAX_LINES = 120;

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export interface Dependency {
  readonly specifier: string;
  /** `new URL('…', import.meta.url)`: a file this module locates (and may run), not imports. */
  readonly isUrl: boolean;
}

/** Static and dynamic imports, re-exports, and `new URL('./x', import.meta.url)` paths. */
export function dependenciesOf(text: string): Dependency[] {
  const found: Dependency[] = [];
  const importPattern = /(?:^|\s)(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier !== undefined) found.push({ specifier, isUrl: false });
  }
  for (const match of text.matchAll(/new URL\(\s*['"`]([^'"`]+)['"`]\s*,\s*import\.meta\.url\s*\)/g)) {
    if (match[1] !== undefined) found.push({ specifier: match[1], isUrl: true });
  }
  return found;
}

export function layerOf(src: string, path: string): Layer | undefined {
  const top = relative(src, path).split('/')[0];
  return LAYERS.find((layer) => layer === top);
}

/** Every dependency that points at a layer its file's layer may not use; `src` is the tree's root. */
export function layerViolations(src: string, files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(src, file.path);
    if (layer === undefined) {
      violations.push(`${relative(src, file.path)} sits in no layer`);
      continue;
    }
    for (const { specifier, isUrl } of dependenciesOf(file.text)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file.path), specifier);
      const targetLayer = layerOf(src, target);
      // A URL may point outside src/ (packs/, dist/); an import must not.
      if (targetLayer === undefined) {
        if (!isUrl) violations.push(`${relative(src, file.path)} imports ${specifier}, outside src/`);
        continue;
      }
      if (!ALLOWED[layer].includes(targetLayer)) {
        violations.push(`${relative(src, file.path)} (${layer}) ${isUrl ? 'locates' : 'imports'} ${specifier} (${targetLayer}); ${layer} may use ${ALLOWED[layer].join(', ')}`);
      }
    }
  }
  return violations;
}

export interface FunctionSpan {
  readonly name: string;
  /** 1-based line of the line that opens the body. */
  readonly line: number;
  readonly lines: number;
}

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'else', 'do', 'try', 'finally']);

/**
 * Function bodies (declarations, methods, arrow functions with a block body) with their length
 * from the line that opens the body to the line that closes it, at the same indentation.
 */
export function functionSpans(text: string): FunctionSpan[] {
  const lines = text.split('\n');
  const spans: FunctionSpan[] = [];
  lines.forEach((rawLine, index) => {
    const line = rawLine.replace(/\s*\/\/.*$/, '');
    if (!/\{\s*$/.test(line)) return;
    const [, indent = '', code = ''] = /^(\s*)(.*)$/.exec(line) ?? [];
    const name = functionName(code);
    if (name === undefined) return;
    let end = index + 1;
    while (end < lines.length && !(lines[end] ?? '').startsWith(`${indent}}`)) end += 1;
    spans.push({ name, line: index + 1, lines: end - index + 1 });
  });
  return spans;
}

function functionName(code: string): string | undefined {
  const declared = /\bfunction\b\s*\*?\s*([\w$]*)/.exec(code);
  if (declared !== null) return declared[1] || 'function';
  if (/=>\s*\{\s*$/.test(code)) return (/(?:const|let)\s+([\w$]+)/.exec(code) ?? /([\w$.]+)\(/.exec(code))?.[1] ?? 'arrow function';
  const method = /^(?:(?:public|private|protected|static|async|override|get|set|readonly)\s+)*([A-Za-z_$][\w$]*)\s*(?:<.*>)?\(.*\)\s*(?::.*)?\{\s*$/.exec(code);
  if (method !== null && !NOT_FUNCTIONS.has(method[1] ?? '')) return method[1];
  // The last line of a signature that spans lines: `): Decision {`, or `| undefined {` ending a
  // return type written as a union over several lines.
  if (/^\)\s*(?::.*)?\{\s*$/.test(code) || /^\|\s.*\{\s*$/.test(code)) return 'function (signature above)';
  return undefined;
}

/** Files over FILE_MAX_LINES and functions over FUNCTION_MAX_LINES, as messages. */
export function sizeViolations(src: string, files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const name = relative(src, file.path);
    const lineCount = file.text.split('\n').length;
    if (lineCount > FILE_MAX_LINES) violations.push(`${name}: ${lineCount} lines (at most ${FILE_MAX_LINES})`);
    for (const span of functionSpans(file.text)) {
      if (span.lines > FUNCTION_MAX_LINES) violations.push(`${name}:${span.line} ${span.name}: ${span.lines} lines (at most ${FUNCTION_MAX_LINES})`);
    }
  }
  return violations;
}

export const FOLDER_MAX_FILES = 15;

/**
 * Folders holding more than FOLDER_MAX_FILES source files directly (not counting subfolders):
 * past that, a name prefix is doing a folder's job (docs/architecture.md §2).
 */
export function crowdedFolders(src: string, files: readonly SourceFile[]): string[] {
  const perFolder = new Map<string, number>();
  for (const file of files) {
    const folder = relative(src, dirname(file.path)) || '.';
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  return [...perFolder]
    .filter(([, count]) => count > FOLDER_MAX_FILES)
    .map(([folder, count]) => `${folder}/: ${count} source files (at most ${FOLDER_MAX_FILES}; group them into folders named for their concern)`);
}
