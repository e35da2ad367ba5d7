/**
 * `agentwrap answer <session> <option>` and `agentwrap send <session> <text…>`: type into a
 * wrapped agent from here, through its control socket (docs/answer.md). An answer names the
 * dialog it is for (the record's `dialog.digest`, or `--dialog`), and the session types the keys
 * only if that dialog still shows. `--host USER@BOX` runs the same command there over ssh.
 */
import { runSsh, isSafeHost } from '../../app/platform.js';
import { askerHere, requestAnswer, requestSend, resolveOption, type InputReply } from '../../app/control/answer-client.js';
import { ControlError } from '../../app/control/socket.js';
import { forTerminal } from '../../core/text/sanitize.js';
import { COMMANDS } from '../command-table.js';
import { CliError, UsageError } from '../errors.js';
import { parseCommand } from '../flags.js';
import { findLiveSession } from './ack.js';

/** ssh and the far side's agentwrap both start within this; the answer itself is one socket request. */
const REMOTE_INPUT_TIMEOUT_MS = 15_000;

const ANSWER_SPEC = {
  name: 'answer',
  options: COMMANDS.answer.options,
  usage: `usage: agentwrap answer [--host USER@BOX] [--dialog DIGEST] <session> <option>

Chooses an option of a blocked session's dialog, as "agentwrap status" shows it: <option> is its
number or the start of its text. The session types the option's keys only if the dialog it shows
is still the one offered (the record's dialog digest, or --dialog DIGEST); otherwise it refuses
and says what shows now.
  --host USER@BOX   the session runs on another machine (over ssh)
  --dialog DIGEST   the dialog this answer is for (the record's dialog.digest)
  --from WHO        who asks, noted in the session's history (--host sets it on the far side)
`,
};

const SEND_SPEC = {
  name: 'send',
  options: COMMANDS.send.options,
  usage: `usage: agentwrap send [--force] [--host USER@BOX] <session> <text…>

Types a prompt into an agent that waits for one (idle or done) and presses Enter. Refused while
it is working or blocked, unless --force.
  --force           send even while it works or waits on a dialog
  --host USER@BOX   the session runs on another machine (over ssh)
  --from WHO        who asks, noted in the session's history (--host sets it on the far side)
`,
};

/** `agentwrap <args>` on `host`; its output is the answer, its exit code the outcome. */
async function onHost(host: string, args: readonly string[]): Promise<number> {
  if (!isSafeHost(host)) throw new UsageError(`--host ${host}: not a host name`);
  const result = await runSsh({ host, env: process.env }, args, REMOTE_INPUT_TIMEOUT_MS);
  if (result.stdout !== '') process.stdout.write(forTerminal(result.stdout, { multiline: true }));
  if (result.code === 0) return 0;
  throw new CliError(`${host}: ${forTerminal(result.error ?? `agentwrap exited with ${result.code ?? 'a signal'}`)}`);
}

function reported(reply: InputReply, key: string, what: string): number {
  if (!reply.sent) throw new CliError(`${key}: ${reply.message}`);
  process.stdout.write(`${what}\n`);
  return 0;
}

function controlFailure(key: string, error: unknown): never {
  if (error instanceof ControlError) throw new CliError(`cannot reach ${key}: ${error.message}`, { cause: error });
  throw error;
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(ANSWER_SPEC, args);
  if (parsed === undefined) return 0;
  const [query, word, ...extra] = parsed.positionals;
  if (query === undefined || word === undefined) throw new UsageError('answer needs a session and an option', { hint: 'agentwrap status' });
  if (extra.length > 0) throw new UsageError(`answer: unexpected argument ${extra[0] ?? ''}`);
  const { host, dialog: pinned, from } = parsed.values;
  if (host !== undefined) return onHost(host, ['answer', query, word, ...(pinned === undefined ? [] : ['--dialog', pinned]), '--from', askerHere(process.env).user]);
  const session = findLiveSession(query);
  const dialog = session.record.dialog;
  if (dialog === undefined) {
    throw new CliError(`${session.key} shows no dialog to answer (it is ${session.record.state}${session.record.state === 'blocked' ? '; its pack cannot read this one: answer it in its pane' : ''})`);
  }
  const option = resolveOption(dialog, word);
  if (typeof option === 'string') throw new CliError(`${session.key}: ${option}`);
  const reply = await requestAnswer(session.record.control, option, pinned ?? dialog.digest, askerHere(process.env, 'socket', from ?? '')).catch((error: unknown) => controlFailure(session.key, error));
  return reported(reply, session.key, `answered ${session.key}: ${option}. ${reply.sent ? (reply.label ?? '') : ''}`);
}

export async function sendMain(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SEND_SPEC, args);
  if (parsed === undefined) return 0;
  const [query, ...words] = parsed.positionals;
  const text = words.join(' ');
  if (query === undefined || text.trim() === '') throw new UsageError('send needs a session and the text to type', { hint: 'agentwrap status' });
  const { host, force, from } = parsed.values;
  if (host !== undefined) return onHost(host, ['send', ...(force === true ? ['--force'] : []), '--from', askerHere(process.env).user, query, text]);
  const session = findLiveSession(query);
  const reply = await requestSend(session.record.control, text, force === true, askerHere(process.env, 'socket', from ?? '')).catch((error: unknown) => controlFailure(session.key, error));
  return reported(reply, session.key, `sent ${session.key} a prompt (${reply.sent ? (reply.characters ?? text.length) : 0} characters)`);
}
