/**
 * A TOML syntax error as a person would put it, for packs and the config file. smol-toml says
 * "control characters are not allowed in strings" when a string is not closed before the end of
 * its line (the newline is the control character), which sends people looking for a tab or an
 * escape that is not there; the real cause is the missing quote, at the string's opening column.
 */
import type { TomlError } from 'smol-toml';

export interface TomlSyntaxProblem {
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

export function describeTomlSyntaxError(error: TomlError, text: string): TomlSyntaxProblem {
  const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? error.message;
  const lineText = text.split('\n')[error.line - 1] ?? '';
  if (reason === 'control characters are not allowed in strings' && isLineEnd(lineText, error.column)) {
    const opened = openStringColumn(lineText);
    const at = opened === undefined ? '' : ` at column ${opened}`;
    return { line: error.line, message: `TOML syntax error${at}: unterminated string (no closing quote before the end of the line)` };
  }
  if (reason === 'unfinished string') {
    return { line: error.line, message: `TOML syntax error at column ${error.column}: unterminated string (no closing quote before the end of the file)` };
  }
  return { line: error.line, message: `TOML syntax error at column ${error.column}: ${reason}` };
}

/** Whether 1-based `column` is the end of the line (its newline, or a CR before it). */
function isLineEnd(lineText: string, column: number): boolean {
  const rest = lineText.slice(column - 1);
  return rest === '' || rest === '\r';
}

/** The 1-based column of the quote that opens the string still open at the end of the line. */
function openStringColumn(lineText: string): number | undefined {
  let quote: string | undefined;
  let openedAt = 0;
  for (let i = 0; i < lineText.length; i++) {
    const char = lineText[i];
    if (quote === undefined) {
      if (char === '#') return undefined;
      if (char === '"' || char === "'") {
        quote = char;
        openedAt = i;
      }
    } else if (quote === '"' && char === '\\') {
      i += 1;
    } else if (char === quote) {
      quote = undefined;
    }
  }
  return quote === undefined ? undefined : openedAt + 1;
}
