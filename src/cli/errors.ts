import { forTerminal } from '../core/text/sanitize.js';

/**
 * A mistake in how agentwrap was called: printed without a stack as one line, the message and
 * one hint (`agentwrap: ack needs a session (see agentwrap status)`), exit code 2. Without a
 * hint of its own, dispatch.ts gives it the command's `--help`.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** Where to look next, e.g. `agentwrap status --help`. */
  hint: string | undefined;

  constructor(message: string, options: { hint?: string } = {}) {
    super(message);
    this.hint = options.hint;
  }
}

/**
 * A failure the user can act on (a missing file, a bad pack, an unreachable session): printed
 * as one line without a stack. `exitCode` defaults to 1.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? 1;
  }
}

/**
 * A message for the user on stderr, prefixed `agentwrap: ` (its line breaks kept). Messages quote strings from elsewhere
 * (a recording's bytes in a parse error, a remote's warnings, a session's reply): forTerminal
 * keeps whatever escape sequence they carry off the user's terminal.
 */
export function printDiagnostic(message: string, stream: { write(text: string): unknown } = process.stderr): void {
  stream.write(`agentwrap: ${forTerminal(message, { multiline: true })}\n`);
}
