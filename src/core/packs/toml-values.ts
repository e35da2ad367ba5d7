/** Reading TOML values for pack validation: type names for messages, string lists, engine versions, and the issue collector. */
import type { PackIssue } from './types.js';

export type Table = Record<string, unknown>;

export function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a float';
  return `a ${typeof value}`;
}

export class Collector {
  readonly errors: PackIssue[] = [];
  readonly warnings: PackIssue[] = [];
  constructor(readonly path: string) {}
  error(line: number | undefined, ruleId: string | undefined, message: string): void {
    this.errors.push({ path: this.path, line, ruleId, message });
  }
  warn(line: number | undefined, ruleId: string | undefined, message: string): void {
    this.warnings.push({ path: this.path, line, ruleId, message });
  }
  /** The errors in file order (stable: one line's errors keep the order they were found in); a whole-file error counts as line 1. */
  errorsByLine(): PackIssue[] {
    return this.errors.map((issue) => (issue.line === undefined ? { ...issue, line: 1 } : issue)).sort((a, b) => (a.line ?? 1) - (b.line ?? 1));
  }
}

export function stringList(
  value: unknown,
  key: string,
  report: (message: string) => void,
): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report(`${key} must be an array of strings, got ${typeName(value)}`);
    return undefined;
  }
  const out: string[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') {
      report(`${key}[${i}] must be a string, got ${typeName(item)}`);
      return undefined;
    }
    out.push(item);
  }
  return out;
}

export function engineVersion(value: unknown, key: string, report: (message: string) => void): number | undefined {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    report(`${key} must be a positive integer, got ${typeName(value)}${typeof value === 'number' ? ` ${value}` : ''}`);
    return undefined;
  }
  return value;
}
