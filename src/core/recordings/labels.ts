/**
 * Ground-truth labels beside a recording (docs/architecture.md §6): `<name>.labels.jsonl`, one
 * `{"t": seconds, "state": "working"|"blocked"|"idle"|"uncertain"}` per line, each holding
 * until the next. Other fields are allowed (notes, who labeled it) and ignored.
 */

export type LabelState = 'working' | 'blocked' | 'idle' | 'uncertain';

/** The label states that are scored; `uncertain` spans are skipped. */
export type CertainLabelState = Exclude<LabelState, 'uncertain'>;

export const LABEL_STATES: readonly LabelState[] = ['working', 'blocked', 'idle', 'uncertain'];

export interface Label {
  /** Seconds since the start of the recording. */
  readonly t: number;
  readonly state: LabelState;
}

export interface LabelProblem {
  /** 1-based line number in the labels file. */
  readonly line: number;
  readonly message: string;
}

/** Every problem in a labels file, each with its line, in one error. */
export class LabelsFormatError extends Error {
  override readonly name = 'LabelsFormatError';
  readonly source: string;
  readonly problems: readonly LabelProblem[];

  constructor(source: string, problems: readonly LabelProblem[]) {
    super(
      `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n` +
        problems.map((problem) => `  ${source}:${problem.line}: ${problem.message}`).join('\n'),
    );
    this.source = source;
    this.problems = problems;
  }
}

/** The suffix that pairs a labels file with its recording: `a.cast` ↔ `a.labels.jsonl`. */
export const LABELS_SUFFIX = '.labels.jsonl';

/** `dir/name.cast` → `dir/name.labels.jsonl` (any extension after the last dot is replaced). */
export function labelsPathFor(recordingPath: string): string {
  const slash = recordingPath.lastIndexOf('/');
  const dot = recordingPath.lastIndexOf('.');
  const stem = dot > slash + 1 ? recordingPath.slice(0, dot) : recordingPath;
  return `${stem}${LABELS_SUFFIX}`;
}

/**
 * Parses a labels file. Blank lines are skipped. Labels must be in time order (equal times are
 * allowed; the later line wins). Throws LabelsFormatError listing every bad line: labels are
 * ground truth, so a half-read file would score against the wrong answer.
 */
export function parseLabels(text: string, source = 'labels'): Label[] {
  const labels: Label[] = [];
  const problems: LabelProblem[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '') return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      // The JSON parser's wording (offsets into the line) is noise next to the line number.
      problems.push({ line, message: 'not valid JSON' });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ line, message: 'not a JSON object' });
      return;
    }
    const record = value as Record<string, unknown>;
    const t = record['t'];
    const state = record['state'];
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
      problems.push({ line, message: '"t" must be a number of seconds ≥ 0' });
      return;
    }
    if (!isLabelState(state)) {
      problems.push({ line, message: `"state" must be one of ${LABEL_STATES.join(', ')} (got ${JSON.stringify(state)})` });
      return;
    }
    const previous = labels.at(-1);
    if (previous !== undefined && t < previous.t) {
      problems.push({ line, message: `t=${t} is before the previous label's t=${previous.t}; labels must be in time order` });
      return;
    }
    labels.push({ t, state });
  });
  if (problems.length > 0) throw new LabelsFormatError(source, problems);
  return labels;
}

/** The label holding at `t` (the last label with label.t ≤ t), or undefined before the first. */
export function labelAt(labels: readonly Label[], t: number): LabelState | undefined {
  let low = 0;
  let high = labels.length - 1;
  let found: LabelState | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const label = labels[middle];
    if (label === undefined) break;
    if (label.t <= t) {
      found = label.state;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

export function isLabelState(value: unknown): value is LabelState {
  return typeof value === 'string' && (LABEL_STATES as readonly string[]).includes(value);
}
