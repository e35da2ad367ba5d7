/**
 * `agentwrap report-metadata key=value… [--ttl-ms N] [--session ID]`: display-only values
 * (model, summary, tokens…) for the wrapping session's record and `agentwrap status`. They
 * expire after the TTL (default 5 minutes) and never change the detected state. `key=` (empty
 * value) removes a key.
 *
 * Like `report`, it never fails a hook on the session's account: no session or an unreachable
 * one exits 0 (AGENTWRAP_DEBUG=1 says why). Malformed arguments are the caller's bug and exit 2.
 */
import { COMMANDS } from '../command-table.js';
import { UsageError } from '../errors.js';
import { isHelpAsked, parseFlags } from '../flags.js';

export const REPORT_METADATA_USAGE = `usage: agentwrap report-metadata key=value… [--ttl-ms N] [--session ID]

Display-only values for the wrapping session's record and \`agentwrap status\` (never its
state). They expire after --ttl-ms (default 300000); key= removes a key.
`;

/** Same shape the session accepts (app/reporter METADATA_KEY); checked here to fail early and loudly. */
const KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

export interface ReportMetadataArgs {
  readonly values: Readonly<Record<string, string>>;
  readonly ttlMs: number | undefined;
  readonly session: string | undefined;
}

const OPTIONS = COMMANDS['report-metadata'].options;

export function parseReportMetadataArgs(args: readonly string[]): ReportMetadataArgs | 'help' {
  if (isHelpAsked(args)) return 'help';
  const { values: flags, positionals } = parseFlags('report-metadata', args, OPTIONS);
  const values: Record<string, string> = {};
  let ttlMs: number | undefined;
  const ttlText = flags['ttl-ms'];
  if (ttlText !== undefined) {
    const value = Number(ttlText);
    if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--ttl-ms needs a positive whole number of milliseconds, got ${ttlText}`);
    ttlMs = value;
  }
  const session = flags.session;
  if (session === '') throw new UsageError('--session needs a value');
  for (const arg of positionals) {
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg : arg.slice(0, eq);
    if (eq === -1 || !KEY.test(key)) throw new UsageError(`expected key=value (key: a letter, then letters, digits, . _ -; at most 32), got ${JSON.stringify(arg)}`);
    values[key] = arg.slice(eq + 1);
  }
  if (Object.keys(values).length === 0) throw new UsageError('report-metadata needs at least one key=value');
  return { values, ttlMs, session };
}

export async function main(args: readonly string[]): Promise<number> {
  const env = process.env;
  const debug = (message: string): void => {
    if (env['AGENTWRAP_DEBUG'] === '1') process.stderr.write(`agentwrap report-metadata: ${message}\n`);
  };
  const parsed = parseReportMetadataArgs(args);
  if (parsed === 'help') {
    process.stdout.write(REPORT_METADATA_USAGE);
    return 0;
  }
  const query = parsed.session ?? env['AGENTWRAP_SESSION'];
  if (query === undefined || query === '') {
    debug('not inside an agentwrap session (AGENTWRAP_SESSION is not set); nothing sent');
    return 0;
  }
  const { sendReport } = await import('../report-client.js');
  const result = await sendReport(
    env,
    { query, wrapperPid: parsed.session === undefined ? env['AGENTWRAP_PID'] : undefined },
    { event: 'metadata', metadata: parsed.values, ...(parsed.ttlMs === undefined ? {} : { ttlMs: parsed.ttlMs }) },
  );
  debug(result.sent ? `→ ${result.session}: ${JSON.stringify(result.reply)}` : `not sent: ${result.reason}`);
  return 0;
}
