/**
 * Fixtures cut from recordings (`replay --capture-at`) against the recordings' labels. The
 * expectation in a fixture's name must come from something agentwrap cannot influence: the
 * ground-truth label at the second it was cut, not the state agentwrap published then.
 *   working/blocked/idle_<slug>.txt   the label at that second is that state
 *   false_positive_<slug>.txt         the label is certain and is not the `# not:` state
 * A second where the label is `uncertain` (a transition's margin, before the agent is up,
 * after it quit) proves nothing either way: such a fixture is re-cut at a certain second.
 */
import type { FixtureExpectation, FixtureOutcome } from '../packs/fixture.js';
import type { CertainLabelState, LabelState } from './labels.js';

/** `approve-80x24.cast at 8.5s, agentwrap replay --capture-at` → where the fixture was cut. */
export interface CaptureOrigin {
  readonly cast: string;
  readonly atS: number;
}

const CAPTURE_PROVENANCE = /^(\S+\.cast) at (\d+(?:\.\d+)?)s, agentwrap replay --capture-at$/;

export function captureOrigin(provenance: readonly string[]): CaptureOrigin | undefined {
  for (const line of provenance) {
    const match = CAPTURE_PROVENANCE.exec(line);
    if (match !== null) return { cast: match[1] ?? '', atS: Number(match[2]) };
  }
  return undefined;
}

export type LabelAgreement =
  | { readonly kind: 'agrees' }
  /** The label names another state: the name (or the second) is wrong. */
  | { readonly kind: 'disagrees'; readonly labelState: CertainLabelState; readonly expectation: FixtureExpectation }
  /** No certain label at that second. */
  | { readonly kind: 'uncertain'; readonly labelState: LabelState | undefined };

/**
 * Does the label at the fixture's second support its name? `notState` is the false positive's
 * `# not:` (default working, as the sweep reads it).
 */
export function labelAgreement(expected: FixtureExpectation, notState: FixtureOutcome | undefined, labelState: LabelState | undefined): LabelAgreement {
  if (labelState === undefined || labelState === 'uncertain') return { kind: 'uncertain', labelState };
  if (expected === 'false_positive') {
    return labelState === (notState ?? 'working') ? { kind: 'disagrees', labelState, expectation: expected } : { kind: 'agrees' };
  }
  return labelState === expected ? { kind: 'agrees' } : { kind: 'disagrees', labelState, expectation: expected };
}

/** The expectation the label gives a fixture: a false positive stays one; otherwise the label's state. */
export function expectationFromLabel(current: FixtureExpectation, labelState: CertainLabelState): FixtureExpectation {
  return current === 'false_positive' ? current : labelState;
}

export function describeAgreement(agreement: LabelAgreement, origin: CaptureOrigin): string {
  switch (agreement.kind) {
    case 'agrees':
      return `label agrees at ${origin.atS}s`;
    case 'disagrees':
      return agreement.expectation === 'false_positive'
        ? `${origin.cast} is labelled ${agreement.labelState} at ${origin.atS}s, the very state this false positive must not produce`
        : `${origin.cast} is labelled ${agreement.labelState} at ${origin.atS}s, not ${agreement.expectation}`;
    case 'uncertain':
      return `${origin.cast} has no certain label at ${origin.atS}s (${agreement.labelState ?? 'before the first label'}): re-cut at a second the label is certain`;
  }
}
