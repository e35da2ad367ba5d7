/**
 * Every relative link in the docs a reader follows (docs/*.md, docs/notebook/*.md, README.md,
 * E2E.md, BENCHMARKS.md) points at a file or folder of this repository and, with a #anchor into
 * a markdown file, at a heading of that file as GitHub names it. Results move out of the docs
 * into dated notebook pages (docs/notebook/); this keeps the links between them from rotting.
 * The checker is plain functions over text, tried first on planted broken links, then on the tree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The markdown files whose links are checked, relative to the repository root. */
function checkedFiles(): string[] {
  const inFolder = (folder: string) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${folder}/${name}`);
  const top = ['README.md', 'E2E.md', 'BENCHMARKS.md'].filter((name) => existsSync(join(ROOT, name)));
  const notebook = existsSync(join(ROOT, 'docs/notebook')) ? inFolder('docs/notebook') : [];
  return [...top, ...inFolder('docs'), ...notebook];
}

/** The text with fenced code blocks blanked line for line, so nothing inside them counts. */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      return '';
    }
    return line;
  });
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lower-cased, every character
 * but letters, digits, marks, connector punctuation ('_'), spaces and '-' dropped, each space a '-'.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image renders as its text
    .replace(/<[^>]+>/g, ''); // inline HTML tags render as nothing
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a markdown file offers: its headings' slugs (repeats get -1, -2…) and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1] ?? '');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id[1] ?? '');
  }
  return anchors;
}

export interface Link {
  line: number;
  target: string;
}

/** Relative link targets, inline `](target)` and reference `[x]: target`, outside code. */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  withoutFences(markdown).forEach((text, index) => {
    const line = text.replace(/`+[^`]*`+/g, ''); // inline code is not a link
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ''),
      ...[...line.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((m) => m[1] ?? ''),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:, …
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** Where the checker reads: paths relative to the repository root. */
export interface Tree {
  read(path: string): string | null;
  exists(path: string): boolean;
}

/**
 * The broken links of one markdown file (`file` relative to `root`): a target outside the
 * repository or missing, or an anchor no heading of the target markdown file has.
 */
export function brokenLinks(root: string, file: string, tree: Tree): string[] {
  const broken: string[] = [];
  const text = tree.read(file);
  if (text === null) return [`${file}: cannot be read`];
  for (const { line, target } of relativeLinks(text)) {
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart === '' ? file : relative(root, resolve(root, dirname(file), pathPart));
    const where = `${file}:${line}: ${target}`;
    if (resolved.startsWith('..') || resolved.startsWith(sep)) {
      broken.push(`${where}: points outside the repository`);
      continue;
    }
    if (!tree.exists(resolved)) {
      broken.push(`${where}: no such file ${resolved}`);
      continue;
    }
    if (anchor === null || anchor === '' || !resolved.endsWith('.md')) continue;
    const targetText = tree.read(resolved);
    if (targetText !== null && !anchorsOf(targetText).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${resolved}`);
  }
  return broken;
}

/** The files under `root` as they are on disk. */
function diskTree(root: string): Tree {
  return {
    read(path) {
      try {
        return readFileSync(join(root, path), 'utf8');
      } catch {
        return null;
      }
    },
    exists: (path) => existsSync(join(root, path)),
  };
}

describe('markdown link checker', () => {
  it('names anchors as GitHub does', () => {
    expect(githubSlug('Terminal personalities (`--personality`)')).toBe('terminal-personalities---personality');
    expect(githubSlug('The corpus: scenario × CLI')).toBe('the-corpus-scenario--cli');
    expect(githubSlug("OpenCode's start, online and offline (`test/e2e/opencode-start.mjs`)")).toBe(
      'opencodes-start-online-and-offline-teste2eopencode-startmjs',
    );
    expect(githubSlug('Names_with_underscores and [a link](x.md)')).toBe('names_with_underscores-and-a-link');
    expect([...anchorsOf('# Title\n\n## Notes\n```\n## not a heading\n```\n## Notes\n')]).toEqual(['title', 'notes', 'notes-1']);
  });

  it('reports a missing file, a missing heading and a link out of the repository, and nothing in code', () => {
    const root = join(ROOT, 'docs'); // the planted page stands in docs/; only its targets are read
    const planted: Record<string, string> = {
      'page.md': [
        '# Page',
        '## Kept section',
        'Good: [self](#kept-section), [capture](capture.md#how-it-works), [folder](notebook/).',
        'Broken: [gone](no-such-page.md), [anchor](capture.md#no-such-heading), [mine](#nowhere).',
        'Outside: [seed](../../shared/seeds/000.txt). Web: [site](https://example.com/x.md#y).',
        '`[in code](missing.md)`',
        '```',
        '[in a fence](missing-too.md)',
        '```',
      ].join('\n'),
    };
    const disk = diskTree(root);
    const tree: Tree = {
      read: (path) => planted[path] ?? disk.read(path),
      exists: (path) => path in planted || disk.exists(path),
    };
    expect(brokenLinks(root, 'page.md', tree)).toEqual([
      'page.md:4: no-such-page.md: no such file no-such-page.md',
      'page.md:4: capture.md#no-such-heading: no heading #no-such-heading in capture.md',
      'page.md:4: #nowhere: no heading #nowhere in page.md',
      'page.md:5: ../../shared/seeds/000.txt: points outside the repository',
    ]);
  });
});

describe('the docs', () => {
  const files = checkedFiles();

  it('include docs/capture.md and the notebook it links to', () => {
    expect(files).toContain('docs/capture.md');
    expect(files.some((file) => file.startsWith('docs/notebook/'))).toBe(true);
  });

  it('link only to files and headings that exist', () => {
    const tree = diskTree(ROOT);
    expect(files.flatMap((file) => brokenLinks(ROOT, file, tree))).toEqual([]);
  });
});
