#!/usr/bin/env node
/**
 * The process entry of `agentwrap` (src/cli/bin/agentwrap runs this file): runs the command line
 * through dispatch.ts and exits with its code. Nothing else calls process.exit.
 */
import { exitCodeForError, runCli } from './dispatch.js';

/** Where the shell front keeps the user's NODE_EXTRA_CA_CERTS while this Node starts without it. */
const HELD_CA_CERTS = 'AGENTWRAP_HELD_NODE_EXTRA_CA_CERTS';

// Before anything is started: the agent, hooks and on_state commands get the variable back as
// the user set it, and never see the holding one.
const heldCaCerts = process.env[HELD_CA_CERTS];
if (heldCaCerts !== undefined) {
  process.env['NODE_EXTRA_CA_CERTS'] = heldCaCerts;
  delete process.env[HELD_CA_CERTS];
}

// process.exit rather than exitCode: a command may leave stdin or a socket referenced, and the
// exit code must not wait on them. Writes to TTYs, files and pipes are synchronous on POSIX.
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(exitCodeForError(error)),
);
