/**
 * `agentwrap ack <session>`: marks a session seen (done → idle) through its control socket.
 * The session is named by its key, a unique key prefix, its session id, or a pid (the agent's
 * or the wrapper's), as `agentwrap status` lists them.
 */
import { isPidAlive } from '../../app/sessions/state-access.js';
import { resolveStateRoot } from '../../app/sessions/state-access.js';
import { ControlError, DEFAULT_CONTROL_TIMEOUT_MS, requestControl } from '../../app/control/socket.js';
import { readCachedSessionsReport, resolveSession, type ListedSession } from '../../app/sessions/store.js';
import { COMMANDS } from '../command-table.js';
import { CliError, UsageError } from '../errors.js';
import { parseCommand } from '../flags.js';

const SPEC = { name: 'ack', options: COMMANDS.ack.options, usage: `usage: agentwrap ack <session>

Marks a session as seen, so "done" becomes "idle". <session> is a key, a unique key prefix,
a session id or a pid, as \`agentwrap status\` shows them.
` };

/** Finds one live agentwrap session for what the user typed, or throws a CliError that lists the choices. */
export function findLiveSession(query: string): ListedSession & { readonly kind: 'agentwrap' } {
  const root = resolveStateRoot(process.env);
  const report = readCachedSessionsReport(root, Date.now(), isPidAlive);
  if (report.warning !== undefined) throw new CliError(report.warning);
  const match = resolveSession(report.sessions, query);
  if (match.ok) return match.session;
  const list = match.candidates.length === 0 ? 'no agentwrap session is running' : `live sessions: ${match.candidates.join(', ')}`;
  if (match.reason === 'ambiguous') throw new CliError(`"${query}" matches more than one session: ${match.candidates.join(', ')}`);
  throw new CliError(`no live agentwrap session matches "${query}" (${list})`);
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  const [query, ...extra] = parsed.positionals;
  if (query === undefined) throw new UsageError('ack needs a session', { hint: 'agentwrap status' });
  if (extra.length > 0) throw new UsageError(`ack: unexpected argument ${extra[0] ?? ''}`);
  const session = findLiveSession(query);
  try {
    await requestControl(session.record.control, { method: 'ack' }, DEFAULT_CONTROL_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof ControlError) throw new CliError(`cannot ack ${session.key}: ${error.message}`, { cause: error });
    throw error;
  }
  process.stdout.write(`acknowledged ${session.key}\n`);
  return 0;
}
