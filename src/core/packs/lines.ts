/** Where in a pack's text a problem is: lines for rules and keys, and "did you mean" for unknown keys. */
import { PackCompileError } from './compile.js';
import type { PackIssue } from './types.js';
import { editDistance } from '../text/edit-distance.js';

/**
 * smol-toml reports positions only for syntax errors, so semantic errors find their line by
 * scanning: the n-th `[[rule]]` header is rule n, and a key is the first `key =` after it.
 */
export class LineIndex {
  private readonly lines: readonly string[];
  private readonly ruleHeaders: readonly number[];

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    const headers: number[] = [];
    this.lines.forEach((line, i) => {
      if (/^\s*\[\[\s*rule\s*\]\]/.test(line)) headers.push(i);
    });
    this.ruleHeaders = headers;
  }

  /** 1-based line of the rule's header; falls back to the line of `id = "<id>"`. */
  ruleLine(index: number, id: string | undefined): number | undefined {
    const header = this.ruleHeaders[index];
    if (header !== undefined) return header + 1;
    if (id === undefined) return undefined;
    const found = this.lines.findIndex((line) => new RegExp(`^\\s*id\\s*=\\s*["']${escapeRegExp(id)}["']`).test(line));
    return found >= 0 ? found + 1 : undefined;
  }

  /** 1-based line of `key =` inside rule `index` (or at top level when index is undefined). */
  keyLine(key: string, index: number | undefined): number | undefined {
    const start = index === undefined ? 0 : this.ruleHeaders[index];
    if (start === undefined) return undefined;
    const end = index === undefined ? (this.firstTableLine() ?? this.lines.length) : (this.ruleHeaders[index + 1] ?? this.lines.length);
    const pattern = new RegExp(`^\\s*(?:"${escapeRegExp(key)}"|${escapeRegExp(key)})\\s*[=.]`);
    const tablePattern = new RegExp(`^\\s*\\[\\s*rule\\.${escapeRegExp(key)}\\s*\\]`);
    for (let i = start; i < end; i++) {
      const line = this.lines[i] ?? '';
      if (pattern.test(line) || tablePattern.test(line)) return i + 1;
    }
    return index === undefined ? this.tableLine(key) : start + 1;
  }

  /** 1-based line of the rule whose `id = "<id>"` this is: for errors found after parsing (compiling). */
  ruleLineById(id: string): number | undefined {
    return this.ruleLine(this.ruleHeaders.length, id);
  }

  /** A top-level key written as a table (`[key]`, `[[key]]`, `[key.x]`): a misspelt `[[rules]]`. */
  private tableLine(key: string): number | undefined {
    const pattern = new RegExp(`^\\s*\\[\\[?\\s*(?:"${escapeRegExp(key)}"|${escapeRegExp(key)})\\s*[\\].]`);
    const found = this.lines.findIndex((line) => pattern.test(line));
    return found >= 0 ? found + 1 : undefined;
  }

  /** 1-based line where `needle` first occurs inside rule `index`, for gate leaves. */
  textLine(needle: string, index: number): number | undefined {
    const start = this.ruleHeaders[index];
    if (start === undefined) return undefined;
    const end = this.ruleHeaders[index + 1] ?? this.lines.length;
    for (let i = start; i < end; i++) if ((this.lines[i] ?? '').includes(needle)) return i + 1;
    return undefined;
  }

  private firstTableLine(): number | undefined {
    const found = this.lines.findIndex((line) => /^\s*\[/.test(line));
    return found >= 0 ? found : undefined;
  }
}

/** A pack that validated but does not compile (an RE2 regex), as an issue at its rule's line. */
export function compileIssue(path: string, text: string, error: unknown): PackIssue {
  const ruleId = error instanceof PackCompileError ? error.ruleId : undefined;
  const line = (ruleId === undefined ? undefined : new LineIndex(text).ruleLineById(ruleId)) ?? 1;
  return { path, line, ruleId: undefined, message: error instanceof Error ? error.message : String(error) };
}

/**
 * Whether a formatted problem is an unknown key (unknownKeyMessage's words). A misspelt key is
 * usually the cause of the problems reported beside it (a rule without matchers, a required key
 * missing), so a one-line summary shows it rather than the first problem by line.
 */
export function isUnknownKeyProblem(problem: string): boolean {
  return /: unknown (?:top-level )?key "/.test(problem);
}

export function unknownKeyMessage(key: string, known: ReadonlySet<string>, what: string): string {
  const close = [...known].filter((k) => k !== 'rule' && editDistance(key, k) <= 2);
  const hint = close.length > 0 ? `did you mean "${close[0]}"?` : `${what}: ${[...known].filter((k) => k !== 'rule').join(', ')}`;
  return `unknown ${what === 'rule keys' ? '' : 'top-level '}key "${key}" (${hint})`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
