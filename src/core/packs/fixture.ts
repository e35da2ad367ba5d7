/**
 * Screen fixtures: `fixtures/<agent>/<expected>_<slug>.txt`, one viewport per file, shared by
 * the sweep test, `packs test` and `status explain --file`. `<expected>` is working, blocked,
 * idle or false_positive. Header lines at the top of the file are not part of the screen:
 *   # not: <state>          false positives: the state the pack must NOT produce (default working)
 *   # provenance: <text>    where the screen came from (also stripped anywhere else in the file)
 *   # title: <text>         the OSC title (the `osc_title` region); absent = no title
 *   # progress: <text>      the OSC 9;4 progress as region text, e.g. `1;50`, `3`, `0`
 *   # cursor: <row>         1-based cursor row; default: the last non-blank row
 *   # agent: <agent>        whose screen it is (written by `status capture` and `replay --capture-at`,
 *                           whose files land outside fixtures/<agent>/)
 * The jackin convention (`# not:` first line, `# provenance:` stripped) is a subset of this.
 */
import type { PackInput } from './regions.js';
import type { PackVerdict, RuleState, ScreenView } from '../types.js';

export const FIXTURE_EXPECTATIONS = ['working', 'blocked', 'idle', 'false_positive'] as const;
export type FixtureExpectation = (typeof FIXTURE_EXPECTATIONS)[number];
/** What a fixture can observe: the winner's state, or `unknown` when no strong rule matched. */
export type FixtureOutcome = RuleState | 'unknown';
const NOT_STATES: readonly FixtureOutcome[] = ['working', 'blocked', 'idle', 'freeze', 'unknown'];

export interface Fixture {
  readonly rows: readonly string[];
  readonly notState: FixtureOutcome | undefined;
  readonly provenance: readonly string[];
  readonly title: string | undefined;
  readonly progress: string | undefined;
  /** 0-based cursor row. */
  readonly cursorRow: number;
  /**
   * The agent the header names: `# agent:`, else the first word of a `status capture`
   * provenance line (`claude 2.1.3, <time>, agentwrap status capture of session …`).
   */
  readonly agent: string | undefined;
  /** Header lines that could not be read; a fixture with problems fails. */
  readonly problems: readonly string[];
}

/** `blocked_permission.txt` → expectation and slug; undefined for a name outside the convention. */
export function parseFixtureName(fileName: string): { expected: FixtureExpectation; slug: string } | undefined {
  const match = /^(working|blocked|idle|false_positive)_(.+)\.txt$/.exec(fileName);
  if (match === null) return undefined;
  const expected = FIXTURE_EXPECTATIONS.find((e) => e === match[1]);
  return expected === undefined ? undefined : { expected, slug: match[2] ?? '' };
}

const HEADER = /^# (not|provenance|title|progress|cursor|agent):(?: (.*))?$/;
/** What `agentwrap status capture` writes as provenance: `<agent> <version>, <time>, agentwrap status capture of session <key> …`. */
const CAPTURE_PROVENANCE = /^([A-Za-z0-9._-]+) [^,]*, [^,]*, agentwrap status capture of session /;

export function parseFixture(text: string): Fixture {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const problems: string[] = [];
  const provenance: string[] = [];
  let notState: FixtureOutcome | undefined;
  let title: string | undefined;
  let progress: string | undefined;
  let cursorText: string | undefined;
  let agent: string | undefined;
  let start = 0;
  for (; start < lines.length; start++) {
    const header = HEADER.exec(lines[start] ?? '');
    if (header === null) break;
    const value = (header[2] ?? '').trim();
    switch (header[1]) {
      case 'not': {
        notState = NOT_STATES.find((s) => s === value);
        if (notState === undefined) problems.push(`# not: "${value}" is not one of ${NOT_STATES.join(', ')}`);
        break;
      }
      case 'provenance':
        provenance.push(value);
        break;
      case 'title':
        title = value;
        break;
      case 'progress':
        progress = value;
        break;
      case 'cursor':
        cursorText = value;
        break;
      case 'agent':
        if (value !== '') agent = value;
        break;
      default:
        break;
    }
  }
  const rows: string[] = [];
  for (const line of lines.slice(start)) {
    if (line.startsWith('# provenance:')) {
      provenance.push(line.slice('# provenance:'.length).trim());
      continue;
    }
    // Screen rows are right-trimmed, exactly as the live screen mirror delivers them.
    rows.push(line.replace(/\s+$/, ''));
  }
  let cursorRow = lastNonBlankRow(rows);
  if (cursorText !== undefined) {
    const n = /^[0-9]+$/.test(cursorText) ? Number(cursorText) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > Math.max(rows.length, 1)) problems.push(`# cursor: "${cursorText}" is not a row between 1 and ${rows.length}`);
    else cursorRow = n - 1;
  }
  agent ??= provenance.map((line) => CAPTURE_PROVENANCE.exec(line)?.[1]).find((name) => name !== undefined);
  return { rows, notState, provenance, title, progress, cursorRow, agent, problems };
}

function lastNonBlankRow(rows: readonly string[]): number {
  for (let i = rows.length - 1; i >= 0; i--) if ((rows[i] ?? '').trim() !== '') return i;
  return 0;
}

/** A text screen as the live viewport: its lines are the rows. */
export function screenFromRows(rows: readonly string[], cursorRow: number): ScreenView {
  const cols = rows.reduce((max, row) => Math.max(max, [...row].length), 0);
  return { rows, cols: Math.max(cols, 1), cursorRow, cursorCol: 0, isAlternateScreen: false, revision: 1 };
}

export function fixtureInput(fixture: Fixture, overrides: { title?: string; progress?: string } = {}): PackInput {
  return {
    screen: screenFromRows(fixture.rows, fixture.cursorRow),
    title: overrides.title ?? fixture.title,
    progress: overrides.progress ?? fixture.progress,
  };
}

/** The state a verdict asserts on its own: the strong winner's, else `unknown`. */
export function verdictOutcome(verdict: PackVerdict): FixtureOutcome {
  return verdict.winner?.state ?? 'unknown';
}

export interface FixtureCheck {
  readonly passed: boolean;
  /** `working`, or `not working` for a false positive. */
  readonly wanted: string;
  readonly got: FixtureOutcome;
  readonly ruleId: string | undefined;
  readonly problems: readonly string[];
}

export function checkFixture(expected: FixtureExpectation, fixture: Fixture, verdict: PackVerdict): FixtureCheck {
  const got = verdictOutcome(verdict);
  const ruleId = verdict.winner?.ruleId;
  if (expected === 'false_positive') {
    const avoid = fixture.notState ?? 'working';
    return { passed: fixture.problems.length === 0 && got !== avoid, wanted: `not ${avoid}`, got, ruleId, problems: fixture.problems };
  }
  const problems = fixture.notState === undefined ? fixture.problems : [...fixture.problems, '# not: only applies to false_positive_ fixtures'];
  return { passed: problems.length === 0 && got === expected, wanted: expected, got, ruleId, problems };
}
