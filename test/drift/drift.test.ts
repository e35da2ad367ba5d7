/**
 * The pure parts of `npm run drift` (drift.mjs): which release a run records, the goals a cell
 * is held to, how a pack's validated_versions widens, and the tables of docs/drift.md.
 */
import { describe, expect, it } from 'vitest';
import { driftDoc, goalMisses, releasePasses, releaseTable, releaseToCheck, widenPackText, widenRange, type DriftCell, type DriftRelease, type EvalTotal } from './drift.mjs';

function total(overrides: Partial<EvalTotal> = {}): EvalTotal {
  return { accuracy: 0.995, per_state: { blocked: { recall: 1 } }, latency_ms: { p95: 640 }, missed: 0, spurious_transitions: 0, ...overrides };
}

function cell(overrides: Partial<DriftCell> = {}): DriftCell {
  return { place: 'tmux', scenario: 'approve', size: '80x24', all: total(), noScreenRules: total({ accuracy: 0.65, per_state: { blocked: { recall: 0.3 } } }), ...overrides };
}

function release(cells: DriftCell[]): DriftRelease {
  return { agent: 'claude', version: '2.1.337', date: '2026-12-07', rangeBefore: '>=2.1.282, <=2.1.332', rangeAfter: '>=2.1.282, <=2.1.337', cells };
}

describe('the release a drift run records', () => {
  it('records the newest release when it is newer than the range', () => {
    const choice = releaseToCheck({ range: '>=2.1.282, <=2.1.332', newest: '2.1.337' });

    expect(choice).toMatchObject({ version: '2.1.337', status: 'newer', record: true });
  });

  it('records nothing when the newest release is inside the range', () => {
    const choice = releaseToCheck({ range: '>=0.155.0, <=0.171.0', newest: '0.171.0' });

    expect(choice).toMatchObject({ version: '0.171.0', status: 'inside', record: false });
  });

  it('records nothing when the newest on npm is older than the range (a newer one was pulled)', () => {
    expect(releaseToCheck({ range: '>=1.18.3, <=1.18.33', newest: '1.18.2' })).toMatchObject({ status: 'older', record: false });
  });

  it('records the release asked for, whatever the registry says', () => {
    expect(releaseToCheck({ range: '>=2.1.282, <=2.1.332', newest: '2.1.337', asked: '2.1.335' })).toMatchObject({ version: '2.1.335', record: true });
  });
});

describe('the goals a cell is held to', () => {
  it('a cell at every goal misses none', () => {
    expect(goalMisses(total())).toEqual([]);
  });

  it.each([
    ['accuracy under 98%', total({ accuracy: 0.979 }), 'accuracy 97.9% < 98.0%'],
    ['a blocked sample missed', total({ per_state: { blocked: { recall: 0.9 } } }), 'blocked recall 90.0%'],
    ['a missed change', total({ missed: 1 }), '1 missed'],
    ['a spurious transition', total({ spurious_transitions: 2 }), '2 spurious'],
    ['p95 over a second', total({ latency_ms: { p95: 1001 } }), 'p95 1001 ms > 1000 ms'],
  ])('%s is named', (_what, t, miss) => {
    expect(goalMisses(t)).toEqual([miss]);
  });

  it('a scenario without a blocked label (simple) does not miss blocked recall', () => {
    expect(goalMisses(total({ per_state: { blocked: { recall: null } } }))).toEqual([]);
  });

  it('a release passes only when every cell was recorded and meets the goals', () => {
    expect(releasePasses(release([cell(), cell({ scenario: 'deny' })]))).toBe(true);
    expect(releasePasses(release([cell(), cell({ scenario: 'deny', all: total({ missed: 1 }) })]))).toBe(false);
    expect(releasePasses(release([cell(), { place: 'tmux', scenario: 'deny', size: '80x24', error: 'ready screen never came' }]))).toBe(false);
    expect(releasePasses(release([]))).toBe(false);
  });

  it('the screen-rules-off scores decide nothing', () => {
    expect(releasePasses(release([cell({ noScreenRules: total({ accuracy: 0.1, missed: 5 }) })]))).toBe(true);
  });
});

describe('widening validated_versions', () => {
  it.each([
    ['>=2.1.282, <=2.1.332', '2.1.337', '>=2.1.282, <=2.1.337'],
    ['1.0.102', '1.0.103', '>=1.0.102, <=1.0.103'],
    ['>=0.1.0, <0.2.0', '0.2.3', '>=0.1.0, <=0.2.3'],
    ['>=1.18.3 <=1.18.33', '1.19.0', '>=1.18.3, <=1.19.0'],
  ])('%s takes in %s as %s', (range, version, widened) => {
    expect(widenRange(range, version)).toEqual({ ok: true, range: widened, changed: true });
  });

  it('leaves a range alone when the release is already inside', () => {
    expect(widenRange('>=2.1.282, <=2.1.332', '2.1.300')).toEqual({ ok: true, range: '>=2.1.282, <=2.1.332', changed: false });
  });

  it('refuses to widen for an older release, a gap, or a range of alternatives', () => {
    expect(widenRange('>=2.1.282, <=2.1.332', '2.1.200')).toMatchObject({ ok: false });
    expect(widenRange('1.0.0 || 1.2.0', '1.1.0')).toMatchObject({ ok: false });
    expect(widenRange('1.0.0 || 1.2.0', '1.3.0')).toMatchObject({ ok: false, reason: expect.stringContaining('2 alternatives') });
    expect(widenRange('>=1.0.0', '2.0.0')).toMatchObject({ ok: false, reason: expect.stringContaining('no upper bound') });
  });

  it('rewrites only the range line of a pack file', () => {
    const pack = '# Exactly the recorded span\nschema_version = 1\nvalidated_versions = ">=2.1.282, <=2.1.332"\ndescription = "Claude Code"\n';

    const widened = widenPackText(pack, '2.1.337');

    expect(widened).toMatchObject({ ok: true, from: '>=2.1.282, <=2.1.332', range: '>=2.1.282, <=2.1.337' });
    if (!widened.ok) return;
    expect(widened.text).toBe(pack.replace('<=2.1.332', '<=2.1.337'));
  });

  it('says so when a pack file has no range line', () => {
    expect(widenPackText('schema_version = 1\n', '1.0.0')).toEqual({ ok: false, reason: 'no validated_versions = "…" line' });
  });
});

describe('the tables of docs/drift.md', () => {
  it('has a row per cell with the goal verdict and the screen-rules-off scores', () => {
    const table = releaseTable(release([cell(), cell({ scenario: 'deny', all: total({ spurious_transitions: 1 }) }), { place: 'terminal', scenario: 'simple', size: '120x40', error: 'no recording' }]));

    const rows = table.split('\n');
    expect(rows).toHaveLength(5);
    expect(rows[2]).toBe('| tmux | approve 80x24 | 99.5% | 100.0% | 0 | 0 | 640 | yes | 65.0% | 30.0% | 0 | 0 | 640 |');
    expect(rows[3]).toContain('| **no**: 1 spurious |');
    expect(rows[4]).toBe('| terminal | simple 120x40 | – | – | – | – | – | **no**: recording failed: no recording | – | – | – | – | – |');
  });

  it('lists the last check of every CLI and each recorded release newest first, with what happened to the range', () => {
    const older = { ...release([cell()]), version: '2.1.335', published: '2026-12-02', rangeAfter: '>=2.1.282, <=2.1.335' };
    const failed = { ...release([cell({ all: total({ missed: 1 }) })]), rangeAfter: '>=2.1.282, <=2.1.332' };

    const doc = driftDoc({
      checks: { codex: { date: '2026-12-07', newest: '0.171.0', range: '>=0.155.0, <=0.171.0', result: 'nothing to record' } },
      releases: { claude: [older, failed] },
      names: { claude: 'Claude Code', codex: 'Codex' },
    });

    expect(doc).toContain('| Codex | 2026-12-07 | 0.171.0 | `>=0.155.0, <=0.171.0` | nothing to record |');
    expect(doc.indexOf('### 2.1.337 (recorded 2026-12-07)')).toBeLessThan(doc.indexOf('### 2.1.335 (published 2026-12-02, recorded 2026-12-07)'));
    expect(doc).toContain('**not at the goal**; `validated_versions` left at ">=2.1.282, <=2.1.332"');
    expect(doc).toContain('every cell at the goal; `validated_versions` ">=2.1.282, <=2.1.332" → ">=2.1.282, <=2.1.335"');
  });
});
