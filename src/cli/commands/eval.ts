/**
 * `agentwrap eval PATH…`: replay every labeled recording under the paths through the live
 * pipeline and score the published states against the labels (core/recordings/score.ts has the exact rules).
 */
import { loadDefaultRegistry } from '../../app/pack-registry.js';
import { writeFileAtomicSync } from '../../app/platform.js';
import { REPORT_SCREEN_TEXT_MAX_CHARS } from '../../core/input-bounds.js';
import { findRecordings, packForRecording, withoutPackScreenRules } from '../../app/recording/files.js';
import { replayRecording, type ReplayMoment } from '../../app/recording/replay.js';
import { scoreRecordings, type EvalReport, type ScoreInput, type ScoreSummary } from '../../core/recordings/score.js';
import { renderEvalPage, type EvalPageRecording } from '../render/eval-page.js';
import { COMMANDS } from '../command-table.js';
import { CliError, printDiagnostic, UsageError } from '../errors.js';
import { toJson } from '../../core/text/sanitize.js';
import { numberFlag, parseCommand } from '../flags.js';
import { loadRecordingOrFail } from './replay.js';

const SPEC = {
  name: 'eval',
  usage: `usage: agentwrap eval PATH… [--json] [--report FILE.html] [--min-accuracy X] [--agent A] [--no-screen-rules]

Replays every recording (.cast with a .labels.jsonl beside it) under PATH and scores what
agentwrap would have published against the labels.
  --json             the scores as JSON
  --report FILE.html write an HTML page with timelines and screens
  --min-accuracy X   exit 1 when the overall accuracy is below X (0–1)
  --agent A          use agent A's pack for every recording
  --no-screen-rules  turn every screen rule of the pack off: only the agent's signals (OSC 7501,
                     hooks), its title and progress, and process evidence decide (docs/signals.md)
`,
  options: COMMANDS.eval.options,
} as const;

/** Seconds between the screen snapshots embedded in the HTML report (plus one per transition). */
const REPORT_SNAPSHOT_EVERY_S = 1;

export interface EvalRun {
  readonly report: EvalReport;
  readonly recordings: EvalPageRecording[];
  readonly skipped: string[];
  /** What decoding stepped over or clamped, `FILE:LINE: note`, and screens the report left out. */
  readonly notes: string[];
}

/** The recordings under `paths`, or a one-line error naming the path that cannot be read. */
function findRecordingsOrFail(paths: readonly string[]): string[] {
  try {
    return findRecordings(paths);
  } catch (error) {
    const { code, path } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR') {
      throw new CliError(`eval: cannot read ${path ?? paths.join(' ')}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : 'not a directory'}`);
    }
    throw error;
  }
}

/** Replays and scores; shared by the command and the accuracy-floor tests. */
export async function evaluateRecordings(
  paths: readonly string[],
  options: { agent?: string | undefined; withSnapshots?: boolean; env?: NodeJS.ProcessEnv; noScreenRules?: boolean } = {},
): Promise<EvalRun> {
  const registry = loadDefaultRegistry(options.env ?? process.env);
  const inputs: ScoreInput[] = [];
  const extras: { snapshots: { t: number; text: string }[]; labels: ScoreInput['labels']; published: ScoreInput['published']; durationS: number }[] = [];
  const skipped: string[] = [];
  const notes: string[] = [];
  for (const path of findRecordingsOrFail(paths)) {
    const loaded = loadRecordingOrFail(path);
    for (const note of loaded.recording.notes) notes.push(`${path}:${note.line}: ${note.message}`);
    if (loaded.labels === undefined || loaded.labels.length === 0) {
      skipped.push(`${path}: no labels`);
      continue;
    }
    const choice = packForRecording(registry, loaded, options.agent);
    const snapshots: { t: number; text: string }[] = [];
    // A day of screens at their largest would be gigabytes: past the budget the report keeps none.
    let screenTextChars = 0;
    const take = (moment: ReplayMoment): void => {
      if (options.withSnapshots !== true || screenTextChars > REPORT_SCREEN_TEXT_MAX_CHARS) return;
      const text = moment.screen.view().rows.join('\n');
      screenTextChars += text.length;
      if (screenTextChars > REPORT_SCREEN_TEXT_MAX_CHARS) notes.push(`${path}: the report keeps no screens after ${moment.tS.toFixed(1)} s (over ${REPORT_SCREEN_TEXT_MAX_CHARS} characters of screen text)`);
      else snapshots.push({ t: moment.tS, text });
    };
    const duration = loaded.recording.events.at(-1)?.t ?? 0;
    const grid: number[] = [];
    if (options.withSnapshots === true) for (let t = 0; t <= duration; t += REPORT_SNAPSHOT_EVERY_S) grid.push(t);
    let lastState: string | undefined;
    const result = await replayRecording(loaded.recording, {
      pack: options.noScreenRules === true ? withoutPackScreenRules(choice.pack) : choice.pack,
      keyInputAtS: loaded.driverInputAtS,
      inspectAtS: grid,
      inspect: take,
      onTick: (entry, moment) => {
        if (entry.state !== lastState) take(moment);
        lastState = entry.state;
      },
    });
    for (const warning of result.warnings) notes.push(`${path}: ${warning}`);
    const input: ScoreInput = {
      file: path,
      agent: choice.agent ?? 'unknown',
      labels: loaded.labels,
      published: result.transitions,
      durationS: result.durationS,
    };
    inputs.push(input);
    extras.push({ snapshots: snapshots.sort((a, b) => a.t - b.t), labels: input.labels, published: input.published, durationS: input.durationS });
  }
  const report = scoreRecordings(inputs);
  const recordings = report.files.map((score, i) => {
    const extra = extras[i];
    if (extra === undefined) throw new Error('eval: score and replay lists out of step');
    return { score, ...extra };
  });
  return { report, recordings, skipped, notes };
}

function percent(value: number | null): string {
  return value === null ? '   –  ' : `${(value * 100).toFixed(1).padStart(5)}%`;
}

function row(name: string, s: ScoreSummary): string {
  const ps = s.per_state as Record<string, { precision: number | null; recall: number | null } | undefined>;
  const blocked = ps.blocked;
  return [
    name.padEnd(44),
    String(s.samples).padStart(7),
    percent(s.accuracy),
    blocked === undefined ? '   –  ' : percent(blocked.recall),
    String(s.latency_ms.p50 ?? '–').padStart(6),
    String(s.latency_ms.p95 ?? '–').padStart(6),
    String(s.missed).padStart(6),
    String(s.spurious_transitions).padStart(8),
  ].join(' ');
}

export function renderEvalTable(report: EvalReport): string {
  const header = ['recording'.padEnd(44), 'samples'.padStart(7), 'accur.', 'blk.rc', 'p50ms'.padStart(6), 'p95ms'.padStart(6), 'missed', 'spurious'].join(' ');
  const lines = [header, ...report.files.map((f) => row(f.file.length > 44 ? `…${f.file.slice(-43)}` : f.file, f)), row('TOTAL', report.total)];
  return `${lines.join('\n')}\n`;
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError('eval: give one or more recordings or directories');
  const minAccuracy = numberFlag('eval', 'min-accuracy', values['min-accuracy']);
  const run = await evaluateRecordings(positionals, { agent: values.agent, withSnapshots: values.report !== undefined, noScreenRules: values['no-screen-rules'] === true });
  for (const line of run.notes) printDiagnostic(line);
  for (const line of run.skipped) printDiagnostic(`skipped ${line}`);
  if (run.report.files.length === 0) throw new CliError('eval: no labeled recordings found (a recording needs <name>.labels.jsonl beside it)');
  if (values.json === true) process.stdout.write(`${toJson(run.report)}\n`);
  else process.stdout.write(renderEvalTable(run.report));
  if (values.report !== undefined) {
    // 0600 like captures and recordings: the page holds the recorded screens.
    writeFileAtomicSync(values.report, renderEvalPage(run.recordings, { title: 'agentwrap eval report', total: run.report.total }));
    process.stderr.write(`agentwrap: wrote ${values.report}\n`);
  }
  if (minAccuracy !== undefined && (run.report.total.accuracy ?? 0) < minAccuracy) {
    process.stderr.write(`agentwrap: accuracy ${run.report.total.accuracy} is below --min-accuracy ${minAccuracy}\n`);
    return 1;
  }
  return 0;
}
