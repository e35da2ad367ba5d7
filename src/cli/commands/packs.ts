/**
 * `agentwrap packs list [--json] | lint [FILE…] | test [DIR…]`: what packs are live, whether a
 * pack file is valid (every problem as `FILE:LINE: rule ID: reason`, exit 1 on any error), and
 * whether the packs still classify the screen fixtures (exit 1 on any failure).
 */
import { resolve } from 'node:path';
import { BUNDLED_FIXTURES_DIR, BUNDLED_PACKS_DIR, userPacksDir } from '../../app/platform.js';
import { DEMO_PACK_AGENT, describePackReadFailure, listPackFiles, loadDefaultRegistry, readPackText, sweepFixtures, type PackFileEntry } from '../../app/pack-registry.js';
import { describePackDisagreement, livePackDisagreements } from '../../app/pack-disagreements.js';
import { resolveStateRoot } from '../../app/sessions/state-access.js';
import { compilePack } from '../../core/packs/compile.js';
import { compileIssue } from '../../core/packs/lines.js';
import { formatPackIssue, parsePack, RULE_ENGINE_VERSION } from '../../core/packs/schema.js';
import { forTerminal, toJson } from '../../core/text/sanitize.js';
import { COMMANDS } from '../command-table.js';
import { CliError, UsageError } from '../errors.js';
import { closest, parseCommand } from '../flags.js';

const USAGE = 'packs list [--json] | packs lint [FILE…] | packs test [DIR…]';

const PACKS_USAGE = `usage: agentwrap ${USAGE}

  list [--json]   the live packs (bundled and yours), their status and validated versions
  lint [FILE…]    check pack files (default: every live one); exit 1 on any error
  test [DIR…]     sweep screen fixtures against the live packs (default: the bundled fixtures/)
`;
const LIST = { name: 'packs list', usage: 'usage: agentwrap packs list [--json]\n\nThe live packs (bundled and yours), their status and validated versions.\n', options: COMMANDS.packs.subcommands.list.options } as const;
const LINT = { name: 'packs lint', usage: 'usage: agentwrap packs lint [FILE…]\n\nChecks pack files (default: every live one): every problem as FILE:LINE: rule ID: reason; exit 1 on any error.\n', options: COMMANDS.packs.subcommands.lint.options } as const;
const TEST = { name: 'packs test', usage: 'usage: agentwrap packs test [DIR…]\n\nSweeps screen fixtures (DIR/<agent>/*.txt; default the bundled fixtures/) against the live packs; exit 1 on any failure.\n', options: COMMANDS.packs.subcommands.test.options } as const;

function write(text: string): void {
  // Pack issues quote the pack's text and error messages: nothing in them reaches the terminal raw.
  process.stdout.write(forTerminal(text, { multiline: true }));
}

function entryToJson(entry: PackFileEntry): Record<string, unknown> {
  const pack = entry.pack?.compiled.pack;
  return {
    agent: entry.agent ?? null,
    source: entry.origin,
    status: entry.status,
    path: entry.path,
    validated_versions: pack?.validatedVersions ?? null,
    commands: pack?.commands ?? [],
    rules: pack?.rules.length ?? null,
    skipped_rules: pack?.skippedRules.map((r) => r.id) ?? [],
    unverified: pack?.unverified ?? null,
    problems: entry.problems,
  };
}

function list(args: readonly string[]): number {
  const parsed = parseCommand(LIST, args);
  if (parsed === undefined) return 0;
  const json = parsed.values.json === true;
  const unknown = parsed.positionals[0];
  if (unknown !== undefined) throw new UsageError(`packs list: unexpected argument ${unknown}`);
  const registry = loadDefaultRegistry(process.env);
  const entries = registry.entries();
  const nowWallMs = Date.now();
  const disagreements = livePackDisagreements(resolveStateRoot(process.env), nowWallMs);
  const staleFor = (entry: PackFileEntry): string[] =>
    entry.status === 'live' ? disagreements.filter((d) => d.agent === entry.agent).map((d) => describePackDisagreement(d, nowWallMs)) : [];
  if (json) {
    write(`${toJson({ engine_version: RULE_ENGINE_VERSION, user_dir: registry.userPacksDir ?? null, packs: entries.map((e) => ({ ...entryToJson(e), possibly_stale: staleFor(e) })) }, 2)}\n`);
    return 0;
  }
  const rows = entries.map((e) => {
    const pack = e.pack?.compiled.pack;
    return [
      e.agent ?? '?',
      e.origin,
      e.status,
      pack === undefined ? '-' : String(pack.rules.length),
      pack?.validatedVersions ?? '-',
      evidence(e),
      e.path,
    ];
  });
  const header = ['AGENT', 'SOURCE', 'STATUS', 'RULES', 'VERSIONS', 'EVIDENCE', 'PATH'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  const out = [line(header)];
  entries.forEach((entry, i) => {
    out.push(line(rows[i] ?? []));
    for (const problem of entry.problems) out.push(`    ${problem}`);
    for (const news of staleFor(entry)) out.push(`    possibly stale for the running release: ${news}`);
  });
  if (entries.length === 0) out.push('(no packs found)');
  out.push('', `bundled packs: ${BUNDLED_PACKS_DIR}`, `user packs:    ${registry.userPacksDir ?? '(no HOME; none)'}   rule engine v${RULE_ENGINE_VERSION}`);
  write(`${out.join('\n')}\n`);
  return 0;
}

/** `verified` (built from recordings of the real agent), `unverified`, or the bundled demo's own. */
function evidence(entry: PackFileEntry): string {
  const pack = entry.pack?.compiled.pack;
  if (pack === undefined) return '-';
  if (entry.origin === 'bundled' && entry.agent === DEMO_PACK_AGENT) return 'verified (the demo agent)';
  return pack.unverified ? 'unverified' : 'verified';
}

/** Lints one file; returns the number of errors (warnings print but do not count). */
function lintFile(path: string): number {
  let text: string;
  try {
    text = readPackText(path);
  } catch (error) {
    write(`${path}: ${describePackReadFailure(error)}\n`);
    return 1;
  }
  const result = parsePack(text, path);
  switch (result.kind) {
    case 'invalid':
      for (const issue of result.errors) write(`${formatPackIssue(issue)}\n`);
      return result.errors.length;
    case 'needs-newer-engine':
      // The pack may be fine for a newer agentwrap, but this one would skip it: not usable here.
      write(`${formatPackIssue(result.issue)}\n`);
      return 1;
    case 'ok': {
      for (const warning of result.warnings) write(`${formatPackIssue({ ...warning, message: `warning: ${warning.message}` })}\n`);
      try {
        compilePack(result.pack);
      } catch (error) {
        write(`${formatPackIssue(compileIssue(path, text, error))}\n`);
        return 1;
      }
      const skipped = result.pack.skippedRules.length === 0 ? '' : `, ${result.pack.skippedRules.length} skipped`;
      write(`${path}: ok (agent ${result.pack.agent}, ${result.pack.rules.length} rules${skipped})\n`);
      return 0;
    }
    default: {
      const never: never = result;
      return never;
    }
  }
}

function lint(allArgs: readonly string[]): number {
  const parsed = parseCommand(LINT, allArgs);
  if (parsed === undefined) return 0;
  const args = parsed.positionals;
  let files: string[];
  if (args.length > 0) files = [...args];
  else {
    const bundled = listPackFiles(BUNDLED_PACKS_DIR);
    const user = listPackFiles(userPacksDir(process.env));
    for (const error of [bundled.error, user.error]) if (error !== undefined) write(`${error}\n`);
    files = [...bundled.files, ...user.files];
  }
  if (files.length === 0) {
    write('no pack files found\n');
    return 1;
  }
  let errors = 0;
  for (const file of files) errors += lintFile(file);
  write(`${files.length} file${files.length === 1 ? '' : 's'} checked, ${errors} error${errors === 1 ? '' : 's'}\n`);
  return errors > 0 ? 1 : 0;
}

function test(allArgs: readonly string[]): number {
  const parsed = parseCommand(TEST, allArgs);
  if (parsed === undefined) return 0;
  const args = parsed.positionals;
  const roots = args.length > 0 ? args.map((a) => resolve(a)) : [BUNDLED_FIXTURES_DIR];
  const registry = loadDefaultRegistry(process.env);
  let passed = 0;
  let failed = 0;
  for (const root of roots) {
    let results;
    try {
      results = sweepFixtures(root, (agent) => registry.packForAgent(agent)?.compiled);
    } catch (error) {
      throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    for (const result of results) {
      write(`${result.passed ? 'PASS' : 'FAIL'} ${result.name}: ${result.summary}\n`);
      if (result.passed) passed++;
      else failed++;
    }
  }
  if (passed + failed === 0) {
    write(`no fixtures found in ${roots.join(', ')}\n`);
    return 1;
  }
  write(`${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

function unknownSubcommand(word: string): string {
  const near = closest(word, Object.keys(COMMANDS.packs.subcommands));
  return `packs: unknown subcommand ${word}; ${near === undefined ? 'there are list, lint and test' : `did you mean packs ${near}?`}`;
}

export async function main(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return list(rest);
    case 'lint':
      return lint(rest);
    case 'test':
      return test(rest);
    case undefined:
      throw new UsageError('packs needs a subcommand: list, lint or test');
    case '-h':
    case '--help':
      process.stdout.write(PACKS_USAGE);
      return 0;
    default:
      throw new UsageError(unknownSubcommand(sub));
  }
}
