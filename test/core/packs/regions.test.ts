import { describe, expect, it } from 'vitest';
import {
  analyzeScreen,
  extractRegion,
  isPromptMarkerLine,
  isRuleLine,
  parseRegion,
  progressText,
  type RegionSpec,
} from '../../../src/core/packs/regions.js';
import { inputOf } from '../../helpers/pack-toml.js';

function region(text: string, rows: readonly string[], extra: { title?: string; progress?: string; cursorRow?: number; carets?: string[] } = {}): readonly string[] {
  const parsed = parseRegion(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  const spec: RegionSpec = parsed.spec;
  return extractRegion(spec, inputOf(rows, extra), analyzeScreen(rows, extra.carets ?? ['❯', '>', '›']));
}

const RULE = '─'.repeat(40);

/** Claude Code's current layout: output, spinner, a rule, the input line, a rule, a footer. */
const CLAUDE_RULES = ['● Wrote 3 files', '', '✻ Thinking… (3s · esc to interrupt)', '', RULE, '> fix the tests', RULE, '  ? for shortcuts', ''];

/** The older box-drawn prompt. */
const BOXED = ['earlier output', '╭──────────────╮', '│ > hello      │', '│   world      │', '╰──────────────╯', '  ? for shortcuts'];

describe('parseRegion', () => {
  it.each([
    ['bottom:12', { kind: 'bottom', rows: 12 }],
    ['bottom_nonempty:3', { kind: 'bottom_nonempty', rows: 3 }],
    ['top:1', { kind: 'top', rows: 1 }],
    ['osc_title', { kind: 'osc_title' }],
  ])('%s parses', (text, spec) => {
    expect(parseRegion(text)).toEqual({ ok: true, spec });
  });

  it.each(['bottom:0', 'bottom:x', 'bottom:1001', 'left:3', 'screen:3', 'nowhere'])('%s is refused', (text) => {
    expect(parseRegion(text).ok).toBe(false);
  });
});

describe('counted regions', () => {
  const rows = ['a', '', 'b', 'c', '', ''];

  it('bottom:N is the last N rows, blanks included', () => {
    expect(region('bottom:3', rows)).toEqual(['c', '', '']);
  });

  it('bottom_nonempty:N is the last N non-blank rows, in screen order', () => {
    expect(region('bottom_nonempty:2', rows)).toEqual(['b', 'c']);
  });

  it('bottom_nonempty reaches as far up as it needs to', () => {
    expect(region('bottom_nonempty:2', ['x', 'y', ...Array.from({ length: 40 }, () => '   ')])).toEqual(['x', 'y']);
  });

  it('top:N is the first N rows and never more than the screen', () => {
    expect(region('top:2', rows)).toEqual(['a', '']);
    expect(region('top:50', rows)).toEqual(rows);
  });
});

describe('whole-screen and single-line regions', () => {
  it('screen is every row', () => {
    expect(region('screen', ['a', '', 'b'])).toEqual(['a', '', 'b']);
  });

  it('cursor_line is the cursor row, empty when the cursor is off the rows', () => {
    expect(region('cursor_line', ['a', 'b', 'c'], { cursorRow: 1 })).toEqual(['b']);
    expect(region('cursor_line', ['a'], { cursorRow: 5 })).toEqual([]);
  });

  it('last_nonempty_line is the last row with visible text', () => {
    expect(region('last_nonempty_line', ['a', 'b  x', '   ', ''])).toEqual(['b  x']);
    expect(region('last_nonempty_line', ['', ' '])).toEqual([]);
  });
});

describe('rule lines', () => {
  it.each([
    [RULE, true],
    ['  ' + '━'.repeat(12), true],
    ['-'.repeat(10), true],
    ['──── Plan ' + '─'.repeat(40), true],
    ['-'.repeat(9), false],
    ['--flag --other --third', false],
    ['╭' + '─'.repeat(30) + '╮', false],
    ['╰' + '─'.repeat(30) + '╯', false],
    ['a sentence with ─── a short rule in it', false],
  ])('%j is a rule: %s', (line, expected) => {
    expect(isRuleLine(line)).toBe(expected);
  });
});

describe('prompt box', () => {
  it('between two rules (Claude Code) the body is the rows between them', () => {
    expect(region('prompt_box_body', CLAUDE_RULES)).toEqual(['> fix the tests']);
    expect(region('above_prompt_box', CLAUDE_RULES)).toEqual(CLAUDE_RULES.slice(0, 4));
  });

  it('in a box the body loses its side borders', () => {
    expect(region('prompt_box_body', BOXED)).toEqual(['> hello', 'world']);
    expect(region('above_prompt_box', BOXED)).toEqual(['earlier output']);
  });

  it('the lower of a box and a rule pair is the live one', () => {
    const rows = [...BOXED, ...CLAUDE_RULES];

    expect(region('prompt_box_body', rows)).toEqual(['> fix the tests']);
  });

  it('two rules further apart than 20 rows do not make a box', () => {
    const rows = [RULE, ...Array.from({ length: 21 }, (_, i) => `line ${i}`), RULE];

    expect(region('prompt_box_body', rows)).toEqual([]);
  });

  it('without a prompt box, prompt_box_body is empty and above_prompt_box is the screen', () => {
    const rows = ['just text', 'more text'];

    expect(region('prompt_box_body', rows)).toEqual([]);
    expect(region('above_prompt_box', rows)).toEqual(rows);
  });
});

describe('after_last_rule', () => {
  it('is the rows below the last rule line', () => {
    expect(region('after_last_rule', CLAUDE_RULES)).toEqual(['  ? for shortcuts', '']);
  });

  it('ignores box borders and is the whole screen when there is no rule', () => {
    expect(region('after_last_rule', BOXED)).toEqual(BOXED);
  });
});

describe('prompt-caret family', () => {
  const rows = ['› earlier prompt', 'answer', '› ', 'Would you like to run it?', '  1. Yes'];

  it('recognises a caret alone or followed by a space, also inside a box side', () => {
    expect(isPromptMarkerLine('›', ['›'])).toBe(true);
    expect(isPromptMarkerLine('  › typed', ['›'])).toBe(true);
    expect(isPromptMarkerLine('│ > typed', ['>'])).toBe(true);
    expect(isPromptMarkerLine('>>> python', ['>'])).toBe(false);
    expect(isPromptMarkerLine('a › b', ['›'])).toBe(false);
  });

  it('last_prompt_marker is the last caret line', () => {
    expect(region('last_prompt_marker', rows)).toEqual(['› ']);
  });

  it('after_last_prompt_marker is below it; before_current_prompt_marker is above it', () => {
    expect(region('after_last_prompt_marker', rows)).toEqual(['Would you like to run it?', '  1. Yes']);
    expect(region('before_current_prompt_marker', rows)).toEqual(['› earlier prompt', 'answer']);
  });

  it('uses only the pack glyphs', () => {
    expect(region('last_prompt_marker', rows, { carets: ['❯'] })).toEqual([]);
  });

  it('without a caret line: last and after are empty, before is the whole screen', () => {
    const plain = ['no caret here'];

    expect(region('last_prompt_marker', plain)).toEqual([]);
    expect(region('after_last_prompt_marker', plain)).toEqual([]);
    expect(region('before_current_prompt_marker', plain)).toEqual(plain);
  });
});

describe('virtual regions', () => {
  it('osc_title and osc_progress are one line each, or empty when absent', () => {
    expect(region('osc_title', [], { title: '⠋ claude' })).toEqual(['⠋ claude']);
    expect(region('osc_title', [])).toEqual([]);
    expect(region('osc_progress', [], { progress: '1;50' })).toEqual(['1;50']);
    expect(region('osc_progress', [])).toEqual([]);
  });

  it.each([
    [{ state: 1, value: 50, atMs: 0 }, '1;50'],
    [{ state: 1, value: -1, atMs: 0 }, '1;-1'],
    [{ state: 1, value: undefined, atMs: 0 }, '1'],
    [{ state: 3, value: 0, atMs: 0 }, '3'],
    [{ state: 0, value: 0, atMs: 0 }, '0'],
    [{ state: 4, value: 10, atMs: 0 }, '4;10'],
    [undefined, undefined],
  ])('progress %j reads as %j', (progress, text) => {
    expect(progressText(progress)).toBe(text);
  });
});
