/**
 * `agentwrap doctor [--json]`: what agentwrap sees here (app/doctor.ts), one line per check,
 * each ok / warn / fail with what to do; then the effective defaults and where each came
 * from. Exit status 1 when a check fails, 0 otherwise (warnings included).
 */
import { runDoctor, type DoctorReport } from '../../app/doctor.js';
import { forTerminal, toJson } from '../../core/text/sanitize.js';
import { COMMANDS } from '../command-table.js';
import { parseCommand } from '../flags.js';
import { UsageError } from '../errors.js';
import { loadUserConfig } from '../user-config.js';

const HELP = `usage: agentwrap doctor [--json]

Checks the relay, native modules, terminal, tmux, state directory, config file, rule packs
and the agent CLIs on PATH. Each line is ok, warn or fail, with what to do. Exit status 1
when something fails.
`;

export function renderDoctor(report: DoctorReport): string {
  const lines = report.checks.map((c) => `${c.status.padEnd(4)}  ${c.topic}: ${c.message}${c.fix === undefined ? '' : ` — ${c.fix}`}`);
  const width = Math.max(...Object.keys(report.settings).map((k) => k.length));
  const settings = Object.entries(report.settings).map(([key, { value, source }]) => `  ${key.padEnd(width)}  ${value === null ? '-' : String(value)}  (${source})`);
  return `agentwrap ${report.version}, node ${report.node}, ${report.relay === 'native' ? 'native relay' : 'event-loop relay'}\n${lines.join('\n')}\neffective defaults (a flag overrides each):\n${settings.join('\n')}\n`;
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand({ name: 'doctor', usage: HELP, options: COMMANDS.doctor.options }, args);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`doctor: unexpected argument ${positionals[0] ?? ''}`);
  const report = runDoctor({
    env: process.env,
    config: await loadUserConfig(process.env),
    isStdinTerminal: process.stdin.isTTY === true,
    isStdoutTerminal: process.stdout.isTTY === true,
    // A terminal that reports no size (0x0, as script(1) gives) says nothing about the size.
    terminalSize: process.stdout.isTTY === true && process.stdout.columns > 0 ? { cols: process.stdout.columns, rows: process.stdout.rows } : undefined,
    nodeVersion: process.version,
  });
  const failed = report.checks.some((c) => c.status === 'fail');
  process.stdout.write(values.json === true ? `${toJson({ ...report, ok: !failed }, 2)}\n` : forTerminal(renderDoctor(report), { multiline: true }));
  return failed ? 1 : 0;
}
