import { describe, expect, it } from 'vitest';
import { decideAnswer, decidePrompt } from '../../../src/core/dialog/answer.js';
import { dialogDigest, type LiveDialog } from '../../../src/core/dialog/digest.js';
import { keysFor } from '../../../src/core/dialog/keys.js';

function dialog(question: string, options: readonly string[], keys: readonly string[] = options.map((_, i) => String(i + 1))): LiveDialog {
  return { id: 'd', question, options, keys, digest: dialogDigest(question, options) };
}

describe('answering a dialog', () => {
  const shown = dialog('Do you want to run ls -la?', ['Yes', 'No']);

  it('the dialog that was offered, still showing: the option’s keys', () => {
    expect(decideAnswer('blocked', shown, 2, shown.digest)).toEqual({ ok: true, keys: '2', label: 'No' });
  });

  it('a dialog that changed since it was offered is refused, saying what shows now', () => {
    const now = dialog('Do you want to run rm -rf build/?', ['Yes', 'No']);

    const decision = decideAnswer('blocked', now, 1, shown.digest);

    expect(decision).toMatchObject({ ok: false, code: 'changed' });
    expect(decision.ok ? '' : decision.message).toContain('"Do you want to run rm -rf build/?" 1. Yes  2. No');
  });

  it.each([
    ['working', shown, 1, 'not-blocked'],
    ['blocked', undefined, 1, 'no-dialog'],
    ['blocked', shown, 3, 'no-option'],
    ['blocked', shown, 0, 'no-option'],
    ['blocked', dialog('Q?', ['Yes', 'No'], ['1', '']), 2, 'no-keys'],
  ] as const)('state %s: refused (%s)', (state, current, option, code) => {
    const digest = current?.digest ?? shown.digest;

    expect(decideAnswer(state, current, option, digest)).toMatchObject({ ok: false, code });
  });

  it('the digest covers the question and every label, in order', () => {
    expect(dialogDigest('Q?', ['Yes', 'No'])).not.toBe(dialogDigest('Q?', ['No', 'Yes']));
    expect(dialogDigest('Q?', ['Yes', 'No'])).not.toBe(dialogDigest('Q!', ['Yes', 'No']));
    expect(dialogDigest('Q?', ['Yes', 'No'])).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('sending a prompt', () => {
  it.each([
    ['idle', false, true],
    ['done', false, true],
    ['working', false, false],
    ['blocked', false, false],
    ['working', true, true],
    ['blocked', true, true],
  ] as const)('%s, forced %s: sent %s', (state, isForced, ok) => {
    expect(decidePrompt(state, isForced).ok).toBe(ok);
  });
});

describe('keys templates', () => {
  it.each([
    ['{key}', 1, '1', '1'],
    ['{key}', 3, 'esc', '\x1b'],
    ['{n}<enter>', 2, undefined, '2\r'],
    ['<down><down><enter>', 3, undefined, '\x1b[B\x1b[B\r'],
    ['{key}', 1, undefined, undefined],
    ['{key}', 1, 'yes', undefined],
  ])('%s for option %i with key %s types %j', (template, n, key, typed) => {
    expect(keysFor(template, n, key)).toBe(typed);
  });
});
