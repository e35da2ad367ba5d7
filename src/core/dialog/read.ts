/**
 * Reads the blocked dialog on one screen with the pack's `[[dialog]]` tables: the last run of
 * option lines in the table's region (the live dialog is the lowest one; an answer quoting an
 * old dialog sits above it), and the question as the last question line above that run.
 * Every string is made safe for a terminal and bounded before it is digested, so what is shown,
 * published and compared is the same text.
 */
import { packRegex } from '../packs/regex.js';
import { analyzeScreen, extractRegion, isBlank, type PackInput } from '../packs/regions.js';
import type { DialogSpec, Pack } from '../packs/types.js';
import { forTerminal } from '../text/sanitize.js';
import { DIALOG_LABEL_MAX_UNITS, DIALOG_MAX_OPTIONS, DIALOG_QUESTION_MAX_UNITS } from '../input-bounds.js';
import { dialogDigest, type LiveDialog } from './digest.js';
import { keysFor } from './keys.js';


/** Screen text as published: terminal-safe, runs of spaces collapsed, bounded. */
function clean(text: string, maxUnits: number): string {
  const safe = forTerminal(text).replace(/\s{2,}/g, ' ').trim();
  if (safe.length <= maxUnits) return safe;
  // Cut on a code point, never inside a surrogate pair.
  const cut = safe.slice(0, maxUnits);
  return (/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut).trimEnd();
}

function matchLine(pattern: string, line: string): RegExpExecArray | null {
  const re = packRegex(pattern);
  return re instanceof Error ? null : re.exec(line);
}

interface OptionRead {
  /** The option's own row, and its wrapped rows (their continuation groups). */
  readonly line: string;
  readonly wrapped: string[];
}

/** The last run of option lines (with their continuation lines) and the row it starts on. */
function lastOptionRun(lines: readonly string[], spec: DialogSpec): { start: number; options: OptionRead[] } | undefined {
  let run: { start: number; options: OptionRead[] } | undefined;
  let current: { start: number; options: OptionRead[] } | undefined;
  lines.forEach((line, row) => {
    if (matchLine(spec.option, line) !== null) {
      current ??= { start: row, options: [] };
      current.options.push({ line, wrapped: [] });
      run = current;
      return;
    }
    const previous = current?.options[current.options.length - 1];
    const continued = previous === undefined || spec.continuation === undefined || isBlank(line) ? null : matchLine(spec.continuation, line);
    if (previous !== undefined && continued !== null) {
      previous.wrapped.push(continued[1] ?? continued[0]);
      return;
    }
    current = undefined;
  });
  return run;
}

/**
 * An option's label and key. A wrapped option is read again joined into one line, so a key the
 * agent shows at its end (Codex's "(p)" on the second row at 80 columns) is still found.
 */
function optionParts(option: OptionRead, spec: DialogSpec): { label: string; key: string | undefined } {
  const joined = option.wrapped.length === 0 ? null : matchLine(spec.option, `${option.line.trimEnd()} ${option.wrapped.join(' ')}`);
  if (joined !== null) return { label: joined.groups?.['label'] ?? '', key: joined.groups?.['key'] };
  const own = matchLine(spec.option, option.line);
  const label = [own?.groups?.['label'] ?? '', ...option.wrapped].join(' ');
  return { label, key: own?.groups?.['key'] };
}

function readOne(spec: DialogSpec, lines: readonly string[]): LiveDialog | undefined {
  const run = lastOptionRun(lines, spec);
  if (run === undefined) return undefined;
  let question: string | undefined;
  for (let row = run.start - 1; row >= 0 && question === undefined; row--) {
    const found = matchLine(spec.question, lines[row] ?? '');
    if (found !== null) question = found[1] ?? found[0];
  }
  if (question === undefined) return undefined;
  const read = run.options.slice(0, DIALOG_MAX_OPTIONS).map((option) => optionParts(option, spec));
  const options = read.map((option) => clean(option.label, DIALOG_LABEL_MAX_UNITS));
  const keys = read.map((option, i) => keysFor(spec.keys, i + 1, option.key) ?? '');
  const shown = clean(question, DIALOG_QUESTION_MAX_UNITS);
  return { id: spec.id, question: shown, options, keys, digest: dialogDigest(shown, options) };
}

/**
 * The dialog on screen, read by the first of the pack's `[[dialog]]` tables that applies to
 * `ruleId` (the blocked rule that won) and finds one; undefined when none does.
 */
export function readDialog(pack: Pick<Pack, 'dialogs' | 'promptCarets'>, input: PackInput, ruleId: string | null): LiveDialog | undefined {
  const specs = (pack.dialogs ?? []).filter((spec) => spec.rules.length === 0 || (ruleId !== null && spec.rules.includes(ruleId)));
  if (specs.length === 0) return undefined;
  const analysis = analyzeScreen(input.screen.rows, pack.promptCarets);
  for (const spec of specs) {
    const dialog = readOne(spec, extractRegion(spec.region, input, analysis));
    if (dialog !== undefined) return dialog;
  }
  return undefined;
}
