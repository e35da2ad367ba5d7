/**
 * `agentwrap status [--json | --watch | --format text|json|tmux] [--host H]… [--state-dir D]…`:
 * every live session record from every writer of the Agent Status Providers convention, rolled
 * up. Corrupt, expired, foreign or dead-pid files are skipped, never fatal (convention §5).
 * `--watch` on a terminal is the live dashboard (dashboard.ts); into a pipe it redraws
 * the list in place.
 */
import { homedir } from 'node:os';
import type { HostReport, RemotePoller } from '../../../app/sessions/remote-status.js';
import { watchSessions, type SessionsWatch } from '../../../app/sessions/store.js';
import { truncateToCells } from '../../../core/text/cells.js';
import { forTerminal, toJson } from '../../../core/text/sanitize.js';
import { COMMANDS } from '../../command-table.js';
import { printDiagnostic, UsageError } from '../../errors.js';
import { closest, parseCommand } from '../../flags.js';
import { renderStatusText, renderTmux, statusJson } from '../../render/status.js';
import { buildView, statusSources, type StatusSources } from '../../status-sources.js';

type Format = 'text' | 'json' | 'tmux';

/** How often `--watch` re-reads the directory when no file event arrives (ages tick every second). */
const WATCH_POLL_MS = 1_000;
/** Coalesces a burst of file events (temp file + rename) into one redraw. */
const WATCH_SETTLE_MS = 30;

const ESC = '\u001b';
const CURSOR_HOME = `${ESC}[H`;
const CLEAR_SCREEN = `${ESC}[2J`;
const CLEAR_TO_LINE_END = `${ESC}[K`;
const CLEAR_BELOW = `${ESC}[J`;
const HIDE_CURSOR = `${ESC}[?25l`;
const SHOW_CURSOR = `${ESC}[?25h`;

const HELP = `usage: agentwrap status [--json | --watch | --format text|json|tmux] [--host H]… [--state-dir DIR]…

  (no option)       one line per live session, then the rolled-up state
  --json            the same as JSON (shape: docs/publishing.md)
  --watch           on a terminal: the live dashboard (sessions by urgency, the selected one's
                    screen, Enter to jump to its tmux pane, a to ack, f to filter, ? for keys);
                    into a pipe: the list, redrawn in place when anything changes
  --format tmux     compact counts for tmux status-right, e.g.
                    set -g status-right '#(agentwrap status --format tmux)'
  --host USER@BOX   also list the sessions on another machine, over ssh (repeatable)
  --state-dir DIR   read this state directory instead of the default, e.g. a container's
                    bind-mounted one (repeatable; records are checked by lease, not pid)
`;

const FLAGS = COMMANDS.status.options;

interface Options {
  readonly format: Format;
  readonly watch: boolean;
  readonly sources: StatusSources;
}

function parseOptions(args: readonly string[]): Options | 'help' {
  const parsed = parseCommand({ name: 'status', usage: HELP, options: FLAGS }, args);
  if (parsed === undefined) return 'help';
  const { values, positionals } = parsed;
  const [extra] = positionals;
  if (extra !== undefined) {
    const near = closest(extra, Object.keys(COMMANDS.status.subcommands));
    throw new UsageError(`status: unexpected argument ${extra}${near === undefined ? '' : `; did you mean status ${near}?`}`);
  }
  let format: Format | undefined;
  const setFormat = (value: string | undefined): void => {
    if (value !== 'text' && value !== 'json' && value !== 'tmux') throw new UsageError(`--format takes text, json or tmux, not ${value ?? 'nothing'}`);
    if (format !== undefined && format !== value) throw new UsageError('choose one output format');
    format = value;
  };
  if (values.json === true) setFormat('json');
  for (const value of values.format ?? []) setFormat(value);
  const watch = values.watch === true;
  if (watch && format !== undefined && format !== 'text') throw new UsageError('--watch draws text; it does not combine with --json or --format');
  return { format: format ?? 'text', watch, sources: statusSources(values['state-dir'], values.host, process.env) };
}

export async function main(args: readonly string[]): Promise<number> {
  const options = parseOptions(args);
  // parseCommand has printed the usage.
  if (options === 'help') return 0;
  const { sources } = options;
  if (options.watch) {
    if (process.stdout.isTTY === true && process.stdin.isTTY === true) return (await import('./dashboard.js')).runDashboard(sources);
    return watchStatus(sources, await remotePoller(sources));
  }
  // The ssh adapter (and child_process) is loaded only when a --host asks for it: `status`
  // alone is run once a second by status bars, and its start-up is most of its cost.
  const remote = sources.hosts.length === 0 ? [] : await readRemoteReports(sources.hosts);
  const view = buildView(sources, Date.now(), remote);
  switch (options.format) {
    case 'json':
      process.stdout.write(`${toJson(statusJson(view), 2)}\n`);
      return 0;
    case 'tmux':
      // tmux shows the first line of a #() command; an empty line hides the segment.
      process.stdout.write(`${renderTmux(view)}\n`);
      return 0;
    case 'text':
      for (const warning of view.warnings) printDiagnostic(`warning: ${warning}`);
      process.stdout.write(`${renderStatusText(view, { home: homedir() }).join('\n')}\n`);
      return 0;
  }
}

async function readRemoteReports(hosts: readonly string[]): Promise<HostReport[]> {
  const { readRemoteStatus } = await import('../../../app/sessions/remote-status.js');
  return Promise.all(hosts.map((host) => readRemoteStatus({ host, env: process.env })));
}

/** Asks every --host again and again; without hosts, nothing is loaded and nothing asked. */
async function remotePoller(sources: StatusSources): Promise<(onChange: () => void) => RemotePoller> {
  if (sources.hosts.length === 0) return () => ({ reports: () => [], close: () => undefined });
  const { pollRemoteStatus, REMOTE_POLL_MS } = await import('../../../app/sessions/remote-status.js');
  return (onChange) => pollRemoteStatus(sources.hosts, process.env, REMOTE_POLL_MS, onChange);
}

/**
 * Redraws in place: cursor home, each line followed by clear-to-end-of-line, then clear below.
 * The screen is never cleared between frames, so nothing flickers; a frame is only written
 * when its text changed. Ctrl-C restores the cursor and exits 0.
 */
function watchStatus(sources: StatusSources, startRemote: (onChange: () => void) => RemotePoller): Promise<number> {
  const out = process.stdout;
  return new Promise<number>((resolvePromise) => {
    let previous = '';
    let settleTimer: NodeJS.Timeout | undefined;
    const sessionsWatches: SessionsWatch[] = [];
    let isDone = false;

    const draw = (): void => {
      if (isDone) return;
      const view = buildView(sources, Date.now(), remote.reports());
      const rows = out.rows ?? 24;
      const width = out.columns ?? 80;
      // Warnings quote other machines and files: made safe and cut to the width like the rows.
      const warnings = view.warnings.map((w) => truncateToCells(forTerminal(`warning: ${w}`), width));
      let lines = [...warnings, ...renderStatusText(view, { home: homedir(), width })];
      if (lines.length > rows - 1) lines = [...lines.slice(0, rows - 2), `… ${lines.length - rows + 2} more lines`];
      const frame = `${CURSOR_HOME}${lines.map((line) => `${line}${CLEAR_TO_LINE_END}\n`).join('')}${CLEAR_BELOW}`;
      if (frame === previous) return;
      previous = frame;
      out.write(frame);
    };
    const drawSoon = (): void => {
      if (settleTimer !== undefined) return;
      settleTimer = setTimeout(() => {
        settleTimer = undefined;
        draw();
      }, WATCH_SETTLE_MS);
    };
    const remote = startRemote(drawSoon);
    const finish = (): void => {
      if (isDone) return;
      isDone = true;
      for (const watch of sessionsWatches) watch.close();
      remote.close();
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      out.off('resize', onResize);
      for (const signal of SIGNALS) process.off(signal, finish);
      out.write(SHOW_CURSOR);
      resolvePromise(0);
    };
    const onResize = (): void => {
      previous = '';
      out.write(`${CURSOR_HOME}${CLEAR_SCREEN}`);
      draw();
    };
    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const signal of SIGNALS) process.on(signal, finish);
    out.on('resize', onResize);
    // A closed pipe (`status --watch | head`) ends the watch like Ctrl-C does.
    out.on('error', finish);

    out.write(`${HIDE_CURSOR}${CURSOR_HOME}${CLEAR_SCREEN}`);
    // One poll timer for all roots (the first watch's); the others only add file events.
    sources.roots.forEach((root, i) => sessionsWatches.push(watchSessions(root, drawSoon, i === 0 ? draw : () => undefined, WATCH_POLL_MS)));
    draw();
  });
}
