/**
 * Fixtures cut from recordings take their expectation from the recording's labels, never from
 * what agentwrap published (core/recordings/fixture-labels.ts). The sweep below reads every committed
 * fixture with a `replay --capture-at` provenance and fails when the label at its second does
 * not support its name. Whether the screen still matches the recording is checked by
 * `npm run fixtures` (it replays every recording; too slow for here).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFixture, parseFixtureName } from '../../../src/core/packs/fixture.js';
import { captureOrigin, describeAgreement, expectationFromLabel, labelAgreement } from '../../../src/core/recordings/fixture-labels.js';
import { labelAt, parseLabels } from '../../../src/core/recordings/labels.js';
import { ROOT } from '../../helpers/cli.js';

describe('captureOrigin', () => {
  it('reads the cast and the second from the capture provenance line, wherever it is', () => {
    expect(captureOrigin(['OpenCode 1.18.33, recorded 2026-11-30', 'approve-80x24.cast at 17.1s, agentwrap replay --capture-at'])).toEqual({
      cast: 'approve-80x24.cast',
      atS: 17.1,
    });
  });

  it('is undefined for fixtures that were not cut from a recording', () => {
    expect(captureOrigin(['synthetic, from agent-facts.md'])).toBeUndefined();
  });
});

describe('labelAgreement', () => {
  it.each([
    ['working', undefined, 'working', 'agrees'],
    ['working', undefined, 'idle', 'disagrees'],
    ['blocked', undefined, 'uncertain', 'uncertain'],
    ['idle', undefined, undefined, 'uncertain'],
    ['false_positive', 'blocked', 'working', 'agrees'],
    ['false_positive', 'blocked', 'blocked', 'disagrees'],
    ['false_positive', undefined, 'working', 'disagrees'],
    ['false_positive', 'working', 'uncertain', 'uncertain'],
  ] as const)('%s (not %s) against a %s label: %s', (expected, notState, label, kind) => {
    expect(labelAgreement(expected, notState, label).kind).toBe(kind);
  });

  it('names a fixture after the label, and keeps a false positive one', () => {
    expect(expectationFromLabel('working', 'idle')).toBe('idle');
    expect(expectationFromLabel('false_positive', 'idle')).toBe('false_positive');
  });

  it('says which recording, which second and which label', () => {
    const origin = { cast: 'simple-80x24.cast', atS: 16 };

    expect(describeAgreement(labelAgreement('idle', undefined, 'working'), origin)).toBe('simple-80x24.cast is labelled working at 16s, not idle');
  });
});

describe('the committed fixtures cut from recordings', () => {
  const fixtures = readdirSync(join(ROOT, 'fixtures')).flatMap((agent) =>
    readdirSync(join(ROOT, 'fixtures', agent))
      .filter((file) => parseFixtureName(file) !== undefined)
      .map((file) => ({ agent, file, fixture: parseFixture(readFileSync(join(ROOT, 'fixtures', agent, file), 'utf8')) }))
      .flatMap(({ agent, file, fixture }) => {
        const origin = captureOrigin(fixture.provenance);
        const labelsPath = origin === undefined ? '' : join(ROOT, 'recordings', agent, origin.cast.replace(/\.cast$/, '.labels.jsonl'));
        return origin !== undefined && existsSync(labelsPath) ? [{ name: `${agent}/${file}`, file, fixture, origin, labelsPath }] : [];
      }),
  );

  it('are many (the sweep below is not empty)', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(50);
  });

  it.each(fixtures)('$name agrees with the label at its second', ({ file, fixture, origin, labelsPath }) => {
    const labels = parseLabels(readFileSync(labelsPath, 'utf8'), labelsPath);
    const expected = parseFixtureName(file)?.expected ?? 'working';

    const agreement = labelAgreement(expected, fixture.notState, labelAt(labels, origin.atS));

    expect(agreement.kind, describeAgreement(agreement, origin)).toBe('agrees');
  });
});
