#!/usr/bin/env node
// The pane's program in test/robustness/terminal-hangup.test.ts, standing in for the user's
// interactive shell: it runs agentwrap in the foreground with stderr going to a file, passes a
// SIGHUP on to it the way bash passes one to its jobs when the terminal hangs up, and writes
// agentwrap's exit to a file (the terminal is gone by then).
// usage: [HANGUP_PARENT_KEEPS_SIGHUP=1] hangup-parent.mjs RESULT_FILE STDERR_FILE COMMAND ARGS…
// (RESULT_FILE.pid: agentwrap's pid)
import { spawn } from 'node:child_process';
import { openSync, writeFileSync } from 'node:fs';

const [resultFile, stderrFile, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['inherit', 'inherit', openSync(stderrFile, 'w')] });
writeFileSync(`${resultFile}.pid`, String(child.pid));
// The kernel sends the session leader SIGHUP and SIGCONT when the terminal goes away. With
// HANGUP_PARENT_KEEPS_SIGHUP=1 it passes nothing on, as a shell that catches the hangup for
// itself would: agentwrap then learns of the hangup from its terminal alone.
const keepsHangup = process.env['HANGUP_PARENT_KEEPS_SIGHUP'] === '1';
process.on('SIGHUP', () => {
  if (!keepsHangup) child.kill('SIGHUP');
});
child.on('exit', (code, signal) => {
  writeFileSync(resultFile, JSON.stringify({ code, signal, pid: child.pid }));
  process.exit(0);
});
