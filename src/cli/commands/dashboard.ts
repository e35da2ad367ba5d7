/**
 * `agentwrap dashboard [--port N]`: serves the local web dashboard (cli/web/server.ts)
 * on 127.0.0.1 and prints its URL, token included, until Ctrl-C.
 */
import { resolveStateRoot } from '../../app/platform.js';
import { startDashboard } from '../web/server.js';
import { COMMANDS } from '../command-table.js';
import { UsageError } from '../errors.js';
import { numberFlag, parseCommand } from '../flags.js';

const HELP = `usage: agentwrap dashboard [--port N]

Serves a live web dashboard of every agent session on http://127.0.0.1 (this machine only)
and prints its address. The address carries a random token: anyone with it can read the
sessions' working directories, titles and screens, so keep it to yourself. Ctrl-C stops it.

  --port N   listen on port N (default: a free port)
`;

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand({ name: 'dashboard', usage: HELP, options: COMMANDS.dashboard.options }, args);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`dashboard: unexpected argument ${positionals[0] ?? ''}`);
  const port = numberFlag('dashboard', 'port', values.port) ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`dashboard: --port wants 0–65535, got ${values.port ?? ''}`);
  const dashboard = await startDashboard({ root: resolveStateRoot(process.env), port });
  // The handlers first, then the URL: a Ctrl-C the moment the URL shows must end it cleanly.
  const closed = new Promise<number>((resolvePromise) => {
    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const finish = (): void => {
      for (const signal of SIGNALS) process.off(signal, finish);
      void dashboard.close().then(() => resolvePromise(0));
    };
    for (const signal of SIGNALS) process.on(signal, finish);
  });
  process.stdout.write(`agentwrap dashboard: ${dashboard.url}\n`);
  return closed;
}
