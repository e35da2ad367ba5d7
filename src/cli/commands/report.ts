/**
 * `agentwrap report <event> [--session ID] [--json PAYLOAD|-] [--agent A] [--source S] [--seq N]`:
 * what an agent hook or plugin runs to tell its wrapping session that something happened. The
 * session gates the event (core/detector/gating.ts); this command only delivers it.
 *
 * A hook must never be slowed or failed by it: no session, an unreachable one, a bad argument —
 * all exit 0 silently (AGENTWRAP_DEBUG=1 says why on stderr). Never exit 2: Claude Code reads a
 * hook's exit 2 as "block this action". Nothing is ever printed on stdout, where Claude Code
 * looks for hook decisions and adds a SessionStart/UserPromptSubmit hook's output to the context.
 *
 * The fast path (no session around) imports nothing but the argument parser: the session lookup is loaded only when
 * AGENTWRAP_SESSION or --session names one.
 */
import { COMMANDS } from '../command-table.js';
import { isHelpAsked, parseFlags, type ParsedCommand } from '../flags.js';

export const REPORT_USAGE = `usage: agentwrap report <event> [--session ID] [--json PAYLOAD|-] [--agent A] [--source S] [--seq N]

Sends an agent hook or plugin event to the wrapping agentwrap session (found from
AGENTWRAP_SESSION, or --session: a record key, pid or session id). Always exits 0;
set AGENTWRAP_DEBUG=1 to see what happened. --json - reads the payload from stdin.
`;

export interface ReportArgs {
  readonly event: string;
  readonly session: string | undefined;
  /** The payload text, or '-' for stdin. */
  readonly json: string | undefined;
  readonly agent: string | undefined;
  readonly source: string | undefined;
  readonly seq: number | undefined;
}

const OPTIONS = COMMANDS.report.options;

/** Parses the arguments; returns 'help' or a message saying what is wrong. */
export function parseReportArgs(args: readonly string[]): ReportArgs | 'help' | { readonly error: string } {
  if (isHelpAsked(args)) return 'help';
  let parsed: ParsedCommand<typeof OPTIONS>;
  try {
    parsed = parseFlags('report', args, OPTIONS);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  const [event, ...extra] = positionals;
  if (event === undefined) return { error: 'an event name is required' };
  if (extra.length > 0) return { error: `unexpected argument ${extra[0] ?? ''}` };
  const seqText = values.seq;
  const seq = seqText === undefined ? undefined : Number(seqText);
  if (seq !== undefined && !Number.isFinite(seq)) return { error: `--seq needs a number, got ${seqText ?? ''}` };
  return { event, session: values.session, json: values.json, agent: values.agent, source: values.source, seq };
}

export async function main(args: readonly string[]): Promise<number> {
  // When this process started: the default sequence number (hooks started in order arrive in
  // any order; the session drops the ones that lost the race) and the delivery-time origin.
  const startedAtMs = performance.timeOrigin;
  const env = process.env;
  const debug = (message: string): void => {
    if (env['AGENTWRAP_DEBUG'] === '1') process.stderr.write(`agentwrap report: ${message}\n`);
  };
  const parsed = parseReportArgs(args);
  if (parsed === 'help') {
    process.stdout.write(REPORT_USAGE);
    return 0;
  }
  if ('error' in parsed) {
    debug(`${parsed.error} (ignored: a hook is never failed)`);
    return 0;
  }
  const query = parsed.session ?? env['AGENTWRAP_SESSION'];
  if (query === undefined || query === '') {
    debug('not inside an agentwrap session (AGENTWRAP_SESSION is not set); nothing sent');
    return 0;
  }
  const { readStdinJson, sendReport } = await import('../report-client.js');
  const { parsePayload, slimPayload } = await import('../../core/detector/gating.js');
  const payload = slimPayload(parsed.json === '-' ? await readStdinJson() : parsePayload(parsed.json));
  const result = await sendReport(
    env,
    { query, wrapperPid: parsed.session === undefined ? env['AGENTWRAP_PID'] : undefined },
    {
      event: parsed.event,
      ...(parsed.agent === undefined ? {} : { agent: parsed.agent }),
      ...(parsed.source === undefined ? {} : { source: parsed.source }),
      seq: parsed.seq ?? startedAtMs,
      sentAtMs: startedAtMs,
      ...(payload === undefined ? {} : { payload }),
    },
  );
  debug(result.sent ? `${parsed.event} → ${result.session}: ${JSON.stringify(result.reply)}` : `${parsed.event} not sent: ${result.reason}`);
  return 0;
}
