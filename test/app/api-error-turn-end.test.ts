/**
 * A fatal API error names the turn's end (rule api-error-turn-end, reason "api-error"), which
 * debounce publishes at once. The screens come from the error-fatal recordings of Claude Code,
 * Codex, Gemini CLI and OpenCode (fixtures/<agent>/, cut with test/capture/cut-fixture.mjs at labelled-idle seconds).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PackRegistry } from '../../src/app/pack-registry.js';
import { evaluatePack } from '../../src/core/packs/evaluate.js';
import { fixtureInput, parseFixture } from '../../src/core/packs/fixture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const registry = PackRegistry.load({ bundledDir: join(ROOT, 'packs'), userDir: undefined });

function winnerOf(fixtureName: string, agent = 'claude'): { ruleId: string | undefined; reason: string | undefined } {
  const pack = registry.packForAgent(agent)?.compiled;
  if (pack === undefined) throw new Error(`no bundled ${agent} pack`);
  const fixture = parseFixture(readFileSync(join(ROOT, 'fixtures', agent, fixtureName), 'utf8'));
  const winner = evaluatePack(pack, fixtureInput(fixture)).winner;
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

describe('codex api-error-turn-end', () => {
  it('names the "■ unexpected status 403" cell above the composer', () => {
    expect(winnerOf('idle_api-error-403_error-fatal-120x40.txt', 'codex')).toEqual({ ruleId: 'api-error-turn-end', reason: 'api-error' });
  });

  it('no longer names it once the user has submitted another prompt under it', () => {
    const fixture = parseFixture(readFileSync(join(ROOT, 'fixtures', 'codex', 'idle_api-error-403_error-fatal-120x40.txt'), 'utf8'));
    const composer = fixture.rows.findIndex((row) => row.startsWith('› Ask Codex'));
    const rows = [...fixture.rows];
    rows[composer - 2] = '› try again please'; // a blank row of the recorded screen
    expect(fixture.rows[composer - 2]).toBe('');
    const pack = registry.packForAgent('codex')?.compiled;
    if (pack === undefined) throw new Error('no bundled codex pack');
    expect(evaluatePack(pack, fixtureInput({ ...fixture, rows })).winner?.ruleId).not.toBe('api-error-turn-end');
  });
});

describe('gemini api-error-turn-end', () => {
  it('names the "✕ [API Error: …403…]" block above the input box', () => {
    expect(winnerOf('idle_api-error-403_error-fatal-80x24.txt', 'gemini')).toEqual({ ruleId: 'api-error-turn-end', reason: 'api-error' });
  });
});

describe('opencode api-error-turn-end', () => {
  it('names the barred error block under the prompt once the idle status row is back', () => {
    expect(winnerOf('idle_api-error-turn-end_error-fatal-80x24.txt', 'opencode')).toEqual({ ruleId: 'api-error-turn-end', reason: 'api-error' });
  });

  it('does not name a turn that ended with an answer (a timed ▣ line under unbarred text)', () => {
    expect(winnerOf('idle_after-answer_approve-80x24.txt', 'opencode')).toEqual({ ruleId: 'input-box-idle', reason: undefined });
    expect(winnerOf('idle_finished-turn-light-theme_xterm-light-simple-80x24.txt', 'opencode')).toEqual({ ruleId: 'input-box-idle', reason: undefined });
  });
});
