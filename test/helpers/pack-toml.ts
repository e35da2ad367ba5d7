/**
 * Builders for pack tests: small inline TOML packs (a standard header plus the rules under
 * test), compiled packs, and screens from plain row arrays.
 */
import { compilePack, type CompiledPack } from '../../src/core/packs/compile.js';
import { formatPackIssue, parsePack, type Pack, type PackParseResult } from '../../src/core/packs/schema.js';
import type { PackInput } from '../../src/core/packs/regions.js';
import type { ScreenView } from '../../src/core/types.js';

export interface HeaderOverrides {
  readonly agent?: string;
  readonly commands?: string;
  readonly validatedVersions?: string;
  readonly extra?: string;
}

/** A valid pack header followed by `rules` (TOML `[[rule]]` tables). */
export function packToml(rules: string, header: HeaderOverrides = {}): string {
  return [
    'schema_version = 1',
    `agent = "${header.agent ?? 'test'}"`,
    `commands = ${header.commands ?? '["test-agent"]'}`,
    `validated_versions = "${header.validatedVersions ?? '>=1.0.0, <2.0.0'}"`,
    header.extra ?? '',
    '',
    rules,
  ].join('\n');
}

export function parseToml(text: string, path = 'test.toml'): PackParseResult {
  return parsePack(text, path);
}

/** Parses a pack that must be valid; a failing parse throws with every issue. */
export function validPack(text: string): Pack {
  const result = parsePack(text, 'test.toml');
  if (result.kind !== 'ok') {
    const issues = result.kind === 'invalid' ? result.errors : [result.issue];
    throw new Error(`expected a valid pack:\n${issues.map(formatPackIssue).join('\n')}`);
  }
  return result.pack;
}

export function compiledPack(text: string): CompiledPack {
  return compilePack(validPack(text));
}

/** The error messages of a pack that must be invalid. */
export function packErrors(text: string): string[] {
  const result = parsePack(text, 'test.toml');
  if (result.kind !== 'invalid') throw new Error(`expected an invalid pack, got ${result.kind}`);
  return result.errors.map(formatPackIssue);
}

export function screenOf(rows: readonly string[], cursorRow = Math.max(0, rows.length - 1)): ScreenView {
  return { rows, cols: 80, cursorRow, cursorCol: 0, isAlternateScreen: false, revision: 1 };
}

export function inputOf(
  rows: readonly string[],
  extra: { title?: string; progress?: string; cursorRow?: number } = {},
): PackInput {
  return { screen: screenOf(rows, extra.cursorRow), title: extra.title, progress: extra.progress };
}
