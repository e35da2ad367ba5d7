/**
 * TOML syntax errors in a pack or the config file name the real cause: a string not closed before
 * the end of its line was reported by smol-toml as "control characters are not allowed in
 * strings", pointing past the line's end.
 */
import { parse, TomlError } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { describeTomlSyntaxError } from '../../../src/core/packs/toml-syntax.js';

function problemOf(text: string): ReturnType<typeof describeTomlSyntaxError> {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof TomlError) return describeTomlSyntaxError(error, text);
    throw error;
  }
  throw new Error('expected a syntax error');
}

const UNTERMINATED_LINE = 'unterminated string (no closing quote before the end of the line)';

describe('describeTomlSyntaxError', () => {
  it.each([
    ['a basic string', 'a = 1\nagent = "claude\nb = 2\n', 2, 9],
    ['a literal string', "a = 1\nagent = 'claude\nb = 2\n", 2, 9],
    ['a string in an array', 'commands = ["a", "b\n]\n', 1, 18],
    ['a string with an escaped quote', 'x = "say \\"hi\\"\n', 1, 5],
    ['a CRLF file', 'a = 1\r\nagent = "claude\r\nb = 2\r\n', 2, 9],
  ])('names %s left open at the end of its line, at its opening quote', (_what, text, line, column) => {
    expect(problemOf(text)).toEqual({ line, message: `TOML syntax error at column ${column}: ${UNTERMINATED_LINE}` });
  });

  it('names a string left open at the end of the file', () => {
    expect(problemOf('a = 1\nagent = "claude')).toEqual({
      line: 2,
      message: 'TOML syntax error at column 9: unterminated string (no closing quote before the end of the file)',
    });
  });

  it('keeps smol-toml\'s words for a real control character and for other errors', () => {
    expect(problemOf('a = "x\u0001y"\n')).toEqual({ line: 1, message: 'TOML syntax error at column 7: control characters are not allowed in strings' });
    expect(problemOf('commands = ["x" "y"]\n').message).toMatch(/^TOML syntax error at column \d+: expected comma or end of structure$/);
  });
});
