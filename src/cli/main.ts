#!/usr/bin/env node
/**
 * The process entry of `agentwrap` (src/cli/bin/agentwrap runs this file): runs the command line
 * through dispatch.ts and exits with its code. Nothing else calls process.exit.
 */
import { exitCodeForError, runCli } from './dispatch.js';

// process.exit rather than exitCode: a command may leave stdin or a socket referenced, and the
// exit code must not wait on them. Writes to TTYs, files and pipes are synchronous on POSIX.
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(exitCodeForError(error)),
);
