/**
 * Reading a blocked dialog with the bundled packs' `[[dialog]]` tables, on screens cut from real
 * recordings (each fixture's provenance line names its recording and time) and on the demo agent's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDialog } from '../../../src/core/dialog/read.js';
import { evaluatePack } from '../../../src/core/packs/evaluate.js';
import { compilePack } from '../../../src/core/packs/compile.js';
import { fixtureInput, parseFixture } from '../../../src/core/packs/fixture.js';
import { parsePack, type Pack } from '../../../src/core/packs/schema.js';
import { screenFromRows } from '../../../src/core/packs/fixture.js';

function bundledPack(agent: string): Pack {
  const result = parsePack(readFileSync(`packs/${agent}.toml`, 'utf8'), `packs/${agent}.toml`);
  if (result.kind !== 'ok') throw new Error(`packs/${agent}.toml does not parse`);
  return result.pack;
}

/** The dialog as the live session reads it: the winning blocked rule first, then its dialog table. */
function dialogOn(agent: string, fixturePath: string) {
  const pack = bundledPack(agent);
  const fixture = parseFixture(readFileSync(fixturePath, 'utf8'));
  const input = fixtureInput(fixture);
  const verdict = evaluatePack(compilePack(pack), input);
  expect(verdict.winner?.state).toBe('blocked');
  return readDialog(pack, input, verdict.winner?.ruleId ?? null);
}

describe('reading a dialog from a recorded screen', () => {
  it('Claude: the permission question and its four options, digits as keys (approve-80x24.cast at 8.5 s)', () => {
    const dialog = dialogOn('claude', 'fixtures/claude/blocked_bash-permission_approve-80x24.txt');

    expect(dialog?.question).toBe('Do you want to proceed?');
    expect(dialog?.options).toEqual([
      'Yes',
      'Yes, and always allow access to /root/.cache/agentwrap-capture/runs/claude-approve-80x24-rznjNl/work from this project',
      'Yes, and switch to auto mode · auto mode handles these prompts for you',
      'No',
    ]);
    expect(dialog?.keys).toEqual(['1', '2', '3', '4']);
  });

  it('Claude: options wrapped at 70 columns are joined into one label each (multi-tool-70x22.cast)', () => {
    const dialog = dialogOn('claude', 'fixtures/claude/blocked_bash-permission-wrapped-options_multi-tool-70x22.txt');

    expect(dialog?.options).toHaveLength(4);
    expect(dialog?.options[2]).toBe('Yes, and switch to auto mode · auto mode handles these prompts for you');
  });

  it('Codex: the approval question, labels without their shortcut, and the shortcut as the key (approve-80x24.cast at 8.5 s)', () => {
    const dialog = dialogOn('codex', 'fixtures/codex/blocked_command-approval_approve-80x24.txt');

    expect(dialog?.question).toBe('Would you like to run the following command?');
    expect(dialog?.options).toEqual([
      'Yes, proceed',
      "Yes, and don't ask again for commands that start with `mkdir -p tests`",
      'No, and tell Codex what to do differently',
    ]);
    expect(dialog?.keys).toEqual(['y', 'p', '\x1b']);
  });

  it("Codex: a wrapped option is read joined, its shortcut from the option's second row (plain-256-deny-80x24.cast)", () => {
    const dialog = dialogOn('codex', 'fixtures/codex/blocked_command-approval_plain-256-deny-80x24.txt');

    expect(dialog?.options).toEqual([
      'Yes, proceed',
      "Yes, and don't ask again for commands that start with `rm -f notes.txt README.md`",
      'No, and tell Codex what to do differently',
    ]);
    expect(dialog?.keys).toEqual(['y', 'p', '\x1b']);
  });

  it('Codex: options that show no shortcut are offered, but have no keys to type (plan-120x40.cast)', () => {
    const dialog = dialogOn('codex', 'fixtures/codex/blocked_implement-plan_plan-120x40.txt');

    expect(dialog?.question).toBe('Implement this plan?');
    expect(dialog?.keys.every((k) => k === '')).toBe(true);
  });

  it('Gemini: the question inside the box and its three options (approve-80x24.cast at 11 s)', () => {
    const dialog = dialogOn('gemini', 'fixtures/gemini/blocked_tool-approval_approve-80x24.txt');

    expect(dialog?.question).toBe('Allow execution of [Shell]?');
    expect(dialog?.options).toEqual(['Allow once', 'Allow for this session', 'No, suggest changes (esc)']);
    expect(dialog?.keys).toEqual(['1', '2', '3']);
  });

  it("Gemini: a question's option descriptions are part of their options (question-80x24.cast)", () => {
    const dialog = dialogOn('gemini', 'fixtures/gemini/blocked_ask-user-question_question-80x24.txt');

    expect(dialog?.question).toBe('Which test runner should the project use?');
    expect(dialog?.options).toEqual(['node:test Built into Node, no dependency', 'vitest Fast, with watch mode', 'Enter a custom value']);
  });

  it('a blocked screen the tables do not describe reads no dialog (Claude trust folder: options without numbers)', () => {
    expect(dialogOn('claude', 'fixtures/claude/blocked_trust-folder_startup-80x24.txt')).toBeUndefined();
  });
});

describe('which dialog is live', () => {
  const demo = bundledPack('demo');
  const box = (question: string, options: readonly string[]): string[] => [
    '╭────────────────────────────────────────────╮',
    `│ ${question.padEnd(42)} │`,
    ...options.map((o, i) => `│ ${i === 0 ? '❯' : ' '} ${i + 1}. ${o.padEnd(38)} │`),
    '╰────────────────────────────────────────────╯',
    '  Esc to cancel',
  ];
  const inputOf = (rows: readonly string[]) => ({ screen: screenFromRows(rows, 0), title: undefined, progress: undefined });

  it('the lowest dialog on screen, not one quoted above it', () => {
    const rows = [...box('Do you want to run ls -la?', ['Yes', 'No']), '', ...box('Do you want to run rm -rf build/?', ['Yes', 'Maybe', 'No'])];

    const dialog = readDialog(demo, inputOf(rows), 'permission-dialog');

    expect(dialog?.question).toBe('Do you want to run rm -rf build/?');
    expect(dialog?.options).toEqual(['Yes', 'Maybe', 'No']);
  });

  it('the same question and options give the same digest wherever the pointer is; another dialog another one', () => {
    const first = readDialog(demo, inputOf(box('Do you want to run ls -la?', ['Yes', 'No'])), 'permission-dialog');
    const moved = readDialog(demo, inputOf(box('Do you want to run ls -la?', ['Yes', 'No']).map((r) => r.replace('❯ 1.', '  1.').replace('  2.', '❯ 2.'))), 'permission-dialog');
    const other = readDialog(demo, inputOf(box('Do you want to run rm -rf build/?', ['Yes', 'No'])), 'permission-dialog');

    expect(moved?.digest).toBe(first?.digest);
    expect(other?.digest).not.toBe(first?.digest);
  });

  it('a table limited to some rules is not read for another rule', () => {
    expect(readDialog(demo, inputOf(box('Do you want to run ls -la?', ['Yes', 'No'])), 'some-other-rule')).toBeUndefined();
  });

  it('escape sequences and controls in a label never reach the reader; long labels are bounded', () => {
    const rows = box('Do you want to run ls -la?', ['Yes \x1b]0;pwned\x07now', 'x'.repeat(40)]);

    const dialog = readDialog(demo, inputOf(rows), 'permission-dialog');

    expect(dialog?.options[0]).toBe('Yes now');
    expect(dialog?.options[1]).toBe('x'.repeat(40));
  });

  it('a label past its bound is cut at the bound, on a code point, never inside a surrogate pair', () => {
    const spec = { id: 'd', rules: [], region: { kind: 'screen' } as const, question: '^(.*\\?)$', option: '^(?P<key>[1-9])\\. (?P<label>.+)$', keys: '{key}', description: undefined, line: undefined };
    const label = `${'x'.repeat(199)}😀 and more`;

    const dialog = readDialog({ dialogs: [spec], promptCarets: [] }, inputOf(['Proceed?', `1. ${label}`, `2. ${'y'.repeat(250)}`]), null);

    expect(dialog?.options[0]).toBe('x'.repeat(199));
    expect(dialog?.options[1]).toBe('y'.repeat(200));
  });
});
