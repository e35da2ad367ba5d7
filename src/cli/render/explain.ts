/**
 * Pure rendering of a pack explanation: the winner and every rule with its region preview and
 * each clause's result. The JSON form is a documented contract (docs/packs.md "status explain
 * --json"): keys are only ever added, never renamed or removed.
 */
import type { RuleEvaluation } from '../../core/packs/evaluate.js';
import type { FixtureOutcome } from '../../core/packs/fixture.js';
import type { VersionStatus } from '../../core/packs/versions.js';

export interface ExplainReport {
  readonly agent: string;
  readonly pack: {
    /** `bundled`, `user`, or `file` (a pack given with --pack). */
    readonly source: 'bundled' | 'user' | 'file';
    readonly path: string;
    readonly validatedVersions: string;
    readonly unverified: boolean;
  };
  readonly agentVersion:
    | { readonly version: string; readonly source: string; readonly status: VersionStatus }
    | undefined;
  /** Worth knowing, nothing wrong: a release newer than the pack's span. */
  readonly notes: readonly string[];
  readonly warnings: readonly string[];
  readonly input: { readonly file: string; readonly rows: number; readonly title: string | undefined; readonly progress: string | undefined };
  readonly rules: readonly RuleEvaluation[];
}

/** Where the running release sits, in words. */
const VERSION_PLACES: Readonly<Record<VersionStatus, string>> = {
  inside: 'inside the validated range',
  newer: 'newer than the validated range',
  older: 'older than the validated range',
  between: 'in a gap of the validated range',
  unparsable: 'not comparable with the validated range',
};

/** The winner: the first strong matching rule (rules are already in priority order). */
export function explainWinner(rules: readonly RuleEvaluation[]): RuleEvaluation | undefined {
  return rules.find((r) => r.matched && r.strength === 'strong');
}

export function explainState(rules: readonly RuleEvaluation[]): FixtureOutcome {
  return explainWinner(rules)?.state ?? 'unknown';
}

/** The stable JSON object of `status explain --json`. */
export function explainToJson(report: ExplainReport): Record<string, unknown> {
  const winner = explainWinner(report.rules);
  return {
    agent: report.agent,
    pack: {
      source: report.pack.source,
      path: report.pack.path,
      validated_versions: report.pack.validatedVersions,
      unverified: report.pack.unverified,
    },
    agent_version:
      report.agentVersion === undefined
        ? null
        : { version: report.agentVersion.version, source: report.agentVersion.source, status: report.agentVersion.status },
    notes: report.notes,
    warnings: report.warnings,
    input: { file: report.input.file, rows: report.input.rows, title: report.input.title ?? null, progress: report.input.progress ?? null },
    state: explainState(report.rules),
    rule_id: winner?.id ?? null,
    strength: winner?.strength ?? null,
    matches: report.rules.filter((r) => r.matched).map((r) => r.id),
    rules: report.rules.map((r) => ({
      id: r.id,
      state: r.state,
      priority: r.priority,
      region: r.region,
      matched: r.matched,
      strength: r.strength,
      ...(r.failedClause === undefined ? {} : { failed_clause: r.failedClause }),
      region_preview: r.regionPreview,
      region_lines: r.regionLineCount,
      clauses: r.clauses.map((c) => ({ clause: c.clause, passed: c.passed, ...(c.detail === '' ? {} : { detail: c.detail }) })),
    })),
  };
}

/** How many preview lines the human form shows per rule before eliding. */
const PREVIEW_LINES = 8;
/** Characters per preview line in the human form; wide screens would otherwise wrap unreadably. */
const PREVIEW_LINE_CHARS = 120;

function clip(line: string): string {
  const chars = [...line];
  return chars.length <= PREVIEW_LINE_CHARS ? line : `${chars.slice(0, PREVIEW_LINE_CHARS).join('')}…`;
}

function indentPreview(preview: string, lineCount: number): string[] {
  if (lineCount === 0) return ['      region: (empty)'];
  const lines = preview.split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => `      │ ${clip(line)}`);
  const hidden = lineCount - Math.min(lines.length, PREVIEW_LINES);
  const header = `      region (${lineCount} line${lineCount === 1 ? '' : 's'}):`;
  return [header, ...shown, ...(hidden > 0 ? [`      │ … ${hidden} more`] : [])];
}

export function renderExplainText(report: ExplainReport): string {
  const winner = explainWinner(report.rules);
  const out: string[] = [];
  const unverified = report.pack.unverified ? ', unverified' : '';
  out.push(`agent ${report.agent}: ${report.pack.source} pack ${report.pack.path} (validated ${report.pack.validatedVersions}${unverified})`);
  if (report.agentVersion !== undefined) {
    out.push(`agent version ${report.agentVersion.version} (${VERSION_PLACES[report.agentVersion.status]}; from ${report.agentVersion.source})`);
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  for (const warning of report.warnings) out.push(`warning: ${warning}`);
  const extras = [
    report.input.title === undefined ? undefined : `title ${JSON.stringify(report.input.title)}`,
    report.input.progress === undefined ? undefined : `progress ${JSON.stringify(report.input.progress)}`,
  ].filter((x) => x !== undefined);
  out.push(`screen ${report.input.file} (${report.input.rows} rows${extras.length > 0 ? `, ${extras.join(', ')}` : ''})`);
  out.push(
    winner === undefined
      ? 'state: unknown (no strong rule matched)'
      : `state: ${winner.state} (rule ${winner.id}, ${winner.strength}, priority ${winner.priority})`,
  );
  const weak = report.rules.filter((r) => r.matched && r.strength === 'weak');
  if (weak.length > 0) out.push(`weak matches (recorded, do not decide): ${weak.map((r) => r.id).join(', ')}`);
  out.push('');
  for (const rule of report.rules) {
    const mark = rule.matched ? (rule === winner ? '★' : '✓') : '✗';
    out.push(`${mark} ${rule.id}  ${rule.state} · priority ${rule.priority} · ${rule.strength} · ${rule.region}`);
    for (const clause of rule.clauses) {
      out.push(`    ${clause.passed ? '✓' : '✗'} ${clause.clause}${clause.detail === '' ? '' : ` — ${clause.detail}`}`);
    }
    if (rule.clauses.length === 0 && rule.failedClause !== undefined) out.push(`    ✗ ${rule.failedClause}`);
    out.push(...indentPreview(rule.regionPreview, rule.regionLineCount));
  }
  return `${out.join('\n')}\n`;
}
