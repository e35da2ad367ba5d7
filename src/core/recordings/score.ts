/**
 * Scoring for `agentwrap eval` (issue 6): the published states of a replay against the
 * ground-truth labels of its recording. The rules, exactly:
 *
 * - Sample the published state every SAMPLE_INTERVAL_MS of recording time, at 0, 0.1, 0.2 …
 *   up to and including the recording's duration. Before the first published transition the
 *   published state is `unknown` (nothing was published yet).
 * - Skip samples whose label is `uncertain` or that fall before the first label.
 * - A sample is correct when the published state equals the label, `done` counting as `idle`.
 *   `unknown` is wrong; a published entry with `stuck: true` is wrong whatever its state.
 * - A labeled change is a certain label segment whose state differs from the previous certain
 *   segment's (consecutive labels with the same state are one segment; the first certain
 *   segment is not a change; `working → uncertain → working` is not a change). Its latency runs
 *   from the moment the state changed — the start of the `uncertain` span right before the new
 *   label if there is one (of its last line, when consecutive `uncertain` lines restart it: the
 *   lab writes one where a new event, such as a tool call, came while the previous event's
 *   window was still open), else the new label's time — to the first sample at or after that
 *   moment where the published state equals the new label (samples inside that uncertain span
 *   count for detection). No such sample before the new segment ends is a miss.
 * - A spurious transition is a published change, at a time inside one certain label segment
 *   (start inclusive, end exclusive; the last segment runs to the duration inclusive), to a
 *   state other than that segment's label. A "change" compares the scored class (`done` = `idle`,
 *   stuck = its own class), so idle→done or a new winner with the same state is not a change.
 *
 * Totals pool: accuracy, precision and recall are computed over all samples of all files
 * together (not an average of per-file ratios, so a long recording weighs more); latency
 * percentiles are over all files' latencies together; counts are summed. Percentiles use the
 * nearest-rank method: the value at rank ⌈p/100 · n⌉ of the sorted latencies (1-based).
 * Ratios are rounded to 4 decimals and latencies to whole milliseconds; a ratio with a zero
 * denominator and a percentile of no latencies are `null`.
 *
 * Times are compared in integer microseconds so 0.3 s of labels and the 3rd sample agree.
 */
import type { CertainLabelState, Label, LabelState } from './labels.js';
import type { AgentState } from '../types.js';

/** The sampling period of the published state, in recording time. */
export const SAMPLE_INTERVAL_MS = 100;

const MICROS_PER_MS = 1_000;
const MICROS_PER_SECOND = 1_000_000;
const SAMPLE_INTERVAL_US = SAMPLE_INTERVAL_MS * MICROS_PER_MS;

/** One published transition of a replay (the shape of `agentwrap replay --json` lines). */
export interface PublishedTransition {
  /** Seconds since the start of the recording. */
  readonly t: number;
  readonly state: AgentState;
  readonly stuck: boolean;
  readonly winner?: string | null | undefined;
  readonly rule_id?: string | null | undefined;
}

/** What a sample counts the published state as: `done` folds into `idle`, stuck is its own class. */
export type ScoredClass = 'working' | 'blocked' | 'idle' | 'unknown' | 'stuck';

export interface ScoreInput {
  readonly file: string;
  readonly agent: string;
  readonly labels: readonly Label[];
  /** In time order (equal times keep their given order). */
  readonly published: readonly PublishedTransition[];
  /** Seconds; usually the time of the recording's last event. */
  readonly durationS: number;
}

export interface Sample {
  readonly t: number;
  readonly label: LabelState | undefined;
  readonly published: ScoredClass;
  /** undefined when the sample is not scored (uncertain, or before the first label). */
  readonly correct: boolean | undefined;
}

export interface LabeledChange {
  readonly from: CertainLabelState;
  readonly to: CertainLabelState;
  /** When the new label starts. */
  readonly labelT: number;
  /** When the state changed: the preceding uncertain span's start, else labelT. */
  readonly startT: number;
  /** When the new label's segment ends. */
  readonly endT: number;
  readonly detectedT: number | undefined;
  /** undefined for a miss. */
  readonly latencyMs: number | undefined;
}

export interface SpuriousTransition {
  readonly t: number;
  readonly published: ScoredClass;
  readonly label: CertainLabelState;
}

/** Everything scoring found in one recording, for totals and for the HTML report's markers. */
export interface RecordingAnalysis {
  readonly file: string;
  readonly agent: string;
  readonly durationS: number;
  readonly samples: readonly Sample[];
  readonly changes: readonly LabeledChange[];
  readonly spurious: readonly SpuriousTransition[];
}

export interface StateScore {
  /** Correct samples of this state / samples published as this state; null if none were. */
  readonly precision: number | null;
  /** Correct samples of this state / samples labeled this state; null if none were. */
  readonly recall: number | null;
  readonly labeled: number;
  readonly predicted: number;
}

export interface LatencySummary {
  readonly p50: number | null;
  readonly p95: number | null;
  readonly max: number | null;
}

export interface ScoreSummary {
  /** Scored samples (uncertain and before-first-label samples excluded). */
  readonly samples: number;
  readonly accuracy: number | null;
  readonly per_state: Readonly<Record<CertainLabelState, StateScore>>;
  readonly latency_ms: LatencySummary;
  /** Labeled changes (detected + missed). */
  readonly changes: number;
  readonly missed: number;
  readonly spurious_transitions: number;
  /** Scored samples where `unknown` was published. */
  readonly unknown_samples: number;
  /** Scored samples where the published entry was stuck. */
  readonly stuck_samples: number;
}

export interface FileScore extends ScoreSummary {
  readonly file: string;
  readonly agent: string;
}

/** The `agentwrap eval --json` document. */
export interface EvalReport {
  readonly files: readonly FileScore[];
  readonly total: ScoreSummary;
}

interface Segment {
  readonly state: LabelState;
  readonly startUs: number;
  /** Exclusive, except for the last segment, which includes the duration itself. */
  readonly endUs: number;
  readonly isLast: boolean;
  /** For an `uncertain` segment: the time of its last label line (where its latest event began). */
  readonly lastLineUs: number;
}

export function scoredClassOf(transition: PublishedTransition | undefined): ScoredClass {
  if (transition === undefined) return 'unknown';
  if (transition.stuck) return 'stuck';
  return transition.state === 'done' ? 'idle' : transition.state;
}

export function analyzeRecording(input: ScoreInput): RecordingAnalysis {
  const durationUs = toUs(Math.max(0, input.durationS));
  const published = [...input.published].sort((a, b) => a.t - b.t);
  const publishedUs = published.map((transition) => toUs(transition.t));
  const segments = segmentsOf(input.labels, durationUs);

  /** Index of the last transition at or before `tUs`, or -1. */
  const transitionIndexAt = (tUs: number): number => {
    let low = 0;
    let high = publishedUs.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((publishedUs[middle] ?? Infinity) <= tUs) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  };
  const classAt = (tUs: number): ScoredClass => scoredClassOf(published[transitionIndexAt(tUs)]);
  const inSegment = (segment: Segment, tUs: number): boolean =>
    tUs >= segment.startUs && (tUs < segment.endUs || (segment.isLast && tUs === segment.endUs));

  const samples: Sample[] = [];
  let segmentIndex = 0;
  for (let tUs = 0; tUs <= durationUs; tUs += SAMPLE_INTERVAL_US) {
    while (segmentIndex < segments.length && !(tUs < (segments[segmentIndex]?.endUs ?? 0) || segments[segmentIndex]?.isLast)) {
      segmentIndex += 1;
    }
    const segment = segments[segmentIndex];
    const label = segment !== undefined && tUs >= segment.startUs ? segment.state : undefined;
    const publishedClass = classAt(tUs);
    const correct = label === undefined || label === 'uncertain' ? undefined : publishedClass === label;
    samples.push({ t: fromUs(tUs), label, published: publishedClass, correct });
  }

  const changes: LabeledChange[] = [];
  const spurious: SpuriousTransition[] = [];
  let lastCertain: CertainLabelState | undefined;
  let uncertainStartUs: number | undefined;
  for (const segment of segments) {
    if (segment.state === 'uncertain') {
      uncertainStartUs = segment.lastLineUs;
      continue;
    }
    const state = segment.state;
    if (lastCertain !== undefined && state !== lastCertain) {
      const startUs = uncertainStartUs ?? segment.startUs;
      let detectedUs: number | undefined;
      for (let tUs = Math.ceil(startUs / SAMPLE_INTERVAL_US) * SAMPLE_INTERVAL_US; tUs <= durationUs; tUs += SAMPLE_INTERVAL_US) {
        if (tUs >= segment.startUs && !inSegment(segment, tUs)) break;
        if (classAt(tUs) === state) {
          detectedUs = tUs;
          break;
        }
      }
      changes.push({
        from: lastCertain,
        to: state,
        labelT: fromUs(segment.startUs),
        startT: fromUs(startUs),
        endT: fromUs(segment.endUs),
        detectedT: detectedUs === undefined ? undefined : fromUs(detectedUs),
        latencyMs: detectedUs === undefined ? undefined : Math.round((detectedUs - startUs) / MICROS_PER_MS),
      });
    }

    for (let index = 0; index < published.length; index += 1) {
      const tUs = publishedUs[index] ?? 0;
      if (!inSegment(segment, tUs)) continue;
      const now = scoredClassOf(published[index]);
      const before = scoredClassOf(published[index - 1]);
      if (now !== before && now !== state) spurious.push({ t: fromUs(tUs), published: now, label: state });
    }
    lastCertain = state;
    uncertainStartUs = undefined;
  }

  return { file: input.file, agent: input.agent, durationS: fromUs(durationUs), samples, changes, spurious };
}

/** Pooled metrics over any number of analyses (one for a file, all of them for the total). */
export function summarize(analyses: readonly RecordingAnalysis[]): ScoreSummary {
  const labeled = countsByState();
  const predicted = countsByState();
  const correctByState = countsByState();
  let scored = 0;
  let correct = 0;
  let unknownSamples = 0;
  let stuckSamples = 0;
  const latencies: number[] = [];
  let changes = 0;
  let missed = 0;
  let spurious = 0;

  for (const analysis of analyses) {
    for (const sample of analysis.samples) {
      if (sample.correct === undefined || sample.label === undefined || sample.label === 'uncertain') continue;
      scored += 1;
      labeled[sample.label] += 1;
      if (sample.published === 'unknown') unknownSamples += 1;
      else if (sample.published === 'stuck') stuckSamples += 1;
      else predicted[sample.published] += 1;
      if (sample.correct) {
        correct += 1;
        correctByState[sample.label] += 1;
      }
    }
    for (const change of analysis.changes) {
      changes += 1;
      if (change.latencyMs === undefined) missed += 1;
      else latencies.push(change.latencyMs);
    }
    spurious += analysis.spurious.length;
  }

  const stateScore = (state: CertainLabelState): StateScore => ({
    precision: ratio(correctByState[state], predicted[state]),
    recall: ratio(correctByState[state], labeled[state]),
    labeled: labeled[state],
    predicted: predicted[state],
  });
  latencies.sort((a, b) => a - b);
  return {
    samples: scored,
    accuracy: ratio(correct, scored),
    per_state: { working: stateScore('working'), blocked: stateScore('blocked'), idle: stateScore('idle') },
    latency_ms: {
      p50: nearestRank(latencies, 50),
      p95: nearestRank(latencies, 95),
      max: latencies.at(-1) ?? null,
    },
    changes,
    missed,
    spurious_transitions: spurious,
    unknown_samples: unknownSamples,
    stuck_samples: stuckSamples,
  };
}

export function scoreRecording(input: ScoreInput): FileScore {
  return fileScoreOf(analyzeRecording(input));
}

export function fileScoreOf(analysis: RecordingAnalysis): FileScore {
  return { file: analysis.file, agent: analysis.agent, ...summarize([analysis]) };
}

/** Per-file scores and the pooled total, in the `eval --json` shape. */
export function scoreRecordings(inputs: readonly ScoreInput[]): EvalReport {
  const analyses = inputs.map(analyzeRecording);
  return { files: analyses.map(fileScoreOf), total: summarize(analyses) };
}

/** Nearest-rank percentile of ascending `sorted`: the value at rank ⌈p/100 · n⌉; null if empty. */
export function nearestRank(sorted: readonly number[], percent: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
}

/** Labels → segments clipped to the duration: equal times keep the later label, same states merge. */
function segmentsOf(labels: readonly Label[], durationUs: number): Segment[] {
  const starts: { state: LabelState; startUs: number; lastLineUs: number }[] = [];
  for (const label of labels) {
    const startUs = toUs(label.t);
    if (startUs > durationUs) break;
    const previous = starts.at(-1);
    if (previous !== undefined && previous.startUs === startUs) starts.pop();
    const current = starts.at(-1);
    if (current?.state === label.state) {
      starts[starts.length - 1] = { ...current, lastLineUs: startUs };
      continue;
    }
    starts.push({ state: label.state, startUs, lastLineUs: startUs });
  }
  return starts.map((start, index) => {
    const next = starts[index + 1];
    return {
      state: start.state,
      startUs: start.startUs,
      endUs: next === undefined ? durationUs : next.startUs,
      isLast: next === undefined,
      lastLineUs: start.lastLineUs,
    };
  });
}

function countsByState(): Record<CertainLabelState, number> {
  return { working: 0, blocked: 0, idle: 0 };
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000;
}

function toUs(seconds: number): number {
  return Math.round(seconds * MICROS_PER_SECOND);
}

function fromUs(us: number): number {
  return us / MICROS_PER_SECOND;
}
