import { describe, expect, it } from 'vitest';
import { cellWidth, padToCells, truncateToCells } from '../../../src/core/text/cells.js';

describe('cellWidth', () => {
  it('counts ASCII one cell each', () => {
    expect(cellWidth('hello world')).toBe(11);
  });

  it('counts East Asian wide and fullwidth characters two cells', () => {
    expect(cellWidth('漢字テスト')).toBe(10);
    expect(cellWidth('한국어')).toBe(6);
    expect(cellWidth('ＡＢ')).toBe(4);
    expect(cellWidth('🚀')).toBe(2);
    expect(cellWidth('𠀀')).toBe(2); // CJK Extension B, outside the BMP
  });

  it('counts combining marks and zero-width characters as nothing', () => {
    expect(cellWidth('e\u0301')).toBe(1);
    expect(cellWidth('a\u200bb')).toBe(2);
    expect(cellWidth('👍\u{1f3fd}')).toBe(4); // the modifier is its own wide code point, as terminals draw it
    expect(cellWidth('a\u200db')).toBe(2);
  });

  it('counts narrow non-ASCII one cell', () => {
    expect(cellWidth('café ─ λ')).toBe(8);
  });
});

describe('truncateToCells', () => {
  it('leaves text that fits alone', () => {
    expect(truncateToCells('漢字', 4)).toBe('漢字');
    expect(truncateToCells('abc', 3)).toBe('abc');
  });

  it('cuts to the width with an ellipsis, never straddling a wide character', () => {
    const cut = truncateToCells('漢字テスト', 6);
    expect(cut).toBe('漢字…');
    expect(cellWidth(cut)).toBe(5);
    expect(truncateToCells('abcdef', 4)).toBe('abc…');
  });

  it('keeps a combining mark with its base', () => {
    expect(truncateToCells('e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301e\u0301');
    expect(truncateToCells('e\u0301e\u0301e\u0301x', 3)).toBe('e\u0301e\u0301…');
  });

  it('gives nothing for no room', () => {
    expect(truncateToCells('abc', 0)).toBe('');
  });
});

describe('padToCells', () => {
  it('pads to exactly the width in cells', () => {
    expect(padToCells('漢', 4)).toBe('漢  ');
    expect(cellWidth(padToCells('漢字テスト', 6))).toBe(6);
    expect(padToCells('ab', 4)).toBe('ab  ');
  });
});
