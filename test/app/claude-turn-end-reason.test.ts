/**
 * Claude Code's fatal API error names the turn's end (rule api-error-turn-end, reason
 * "api-error"), which debounce publishes at once. The screens come from the error-fatal
 * recordings (fixtures/claude/, cut with test/capture/cut-fixture.mjs at labelled-idle seconds).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PackRegistry } from '../../src/app/pack-registry.js';
import { evaluatePack } from '../../src/core/evaluate.js';
import { fixtureInput, parseFixture } from '../../src/core/fixture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const claude = PackRegistry.load({ bundledDir: join(ROOT, 'packs'), userDir: undefined }).packForAgent('claude')?.compiled;

function winnerOf(fixtureName: string): { ruleId: string | undefined; reason: string | undefined } {
  if (claude === undefined) throw new Error('no bundled claude pack');
  const fixture = parseFixture(readFileSync(join(ROOT, 'fixtures', 'claude', fixtureName), 'utf8'));
  const winner = evaluatePack(claude, fixtureInput(fixture)).winner;
  return { ruleId: winner?.ruleId, reason: winner?.reason };
}

describe('claude api-error-turn-end', () => {
  it('names the error once the prompt box is back', () => {
    expect(winnerOf('idle_api-error-403_error-fatal-80x24.txt')).toEqual({ ruleId: 'api-error-turn-end', reason: 'api-error' });
  });

  it('names it in the frame where the turn\'s effort hint still sits above the box (120x40 at 12.6 s)', () => {
    // Before the hint was allowed, prompt-box-idle won this frame and done came a tick later.
    expect(winnerOf('idle_api-error-403-effort-hint_error-fatal-120x40.txt')).toEqual({ ruleId: 'api-error-turn-end', reason: 'api-error' });
  });
});
