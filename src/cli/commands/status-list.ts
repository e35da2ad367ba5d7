/**
 * `agentwrap status [--json | --watch | --format text|json|tmux]`: every live session record
 * from every writer of the Agent Status Providers convention, rolled up. Corrupt, expired,
 * foreign or dead-pid files are skipped, never fatal (convention §5).
 */
import { homedir } from 'node:os';
import { isPidAlive } from '../../app/platform.js';
import { resolveStateRoot } from '../../app/platform.js';
import { loadSkipCache, readCachedSessionsReport, watchSessions, type SessionsWatch } from '../../app/session-store.js';
import type { SkipCache } from '../../app/skip-cache.js';
import { UsageError } from '../errors.js';
import { parseCommand } from '../flags.js';
import { renderStatusText, renderTmux, statusJson, type StatusView } from '../render-status.js';

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

const SPEC = {
  name: 'status',
  usage: `usage: agentwrap status [--json | --watch | --format text|json|tmux]
       agentwrap status explain --help | status capture --help

  (no option)     one line per live session, then the rolled-up state
  --json          the same as JSON (shape: docs/publishing.md)
  --watch         redraw in place when anything changes; Ctrl-C to quit
  --format tmux   compact counts for tmux status-right, e.g.
                  set -g status-right '#(agentwrap status --format tmux)'
`,
  options: {
    json: { type: 'boolean' },
    watch: { type: 'boolean', short: 'w' },
    format: { type: 'string' },
  },
} as const;

interface Options {
  readonly format: Format;
  readonly watch: boolean;
}

function parseStatusArgs(args: readonly string[]): Options | undefined {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return undefined;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`status: unexpected argument ${positionals[0] ?? ''}`);
  const asked = values.format;
  if (asked !== undefined && asked !== 'text' && asked !== 'json' && asked !== 'tmux') throw new UsageError(`--format takes text, json or tmux, not ${asked}`);
  if (values.json === true && asked !== undefined && asked !== 'json') throw new UsageError('choose one output format');
  const format: Format | undefined = values.json === true ? 'json' : asked;
  const watch = values.watch === true;
  if (watch && format !== undefined && format !== 'text') throw new UsageError('--watch draws text; it does not combine with --json or --format');
  return { format: format ?? 'text', watch };
}

/** `cache`: settled verdicts on dead records, kept across a watch's redraws (skip-cache.ts). */
function readView(root: string, cache: SkipCache): StatusView {
  const nowMs = Date.now();
  const report = readCachedSessionsReport(root, nowMs, isPidAlive, cache);
  return { nowMs, root, sessions: report.sessions, warnings: report.warning === undefined ? [] : [report.warning] };
}

export async function main(args: readonly string[]): Promise<number> {
  const options = parseStatusArgs(args);
  if (options === undefined) return 0;
  const root = resolveStateRoot(process.env);
  if (options.watch) return watchStatus(root);
  const view = readView(root, loadSkipCache(root));
  switch (options.format) {
    case 'json':
      process.stdout.write(`${JSON.stringify(statusJson(view), null, 2)}\n`);
      return 0;
    case 'tmux':
      // tmux shows the first line of a #() command; an empty line hides the segment.
      process.stdout.write(`${renderTmux(view)}\n`);
      return 0;
    case 'text':
      for (const warning of view.warnings) process.stderr.write(`agentwrap: warning: ${warning}\n`);
      process.stdout.write(`${renderStatusText(view, { home: homedir() }).join('\n')}\n`);
      return 0;
  }
}

/**
 * Redraws in place: cursor home, each line followed by clear-to-end-of-line, then clear below.
 * The screen is never cleared between frames, so nothing flickers; a frame is only written
 * when its text changed. Ctrl-C restores the cursor and exits 0.
 */
function watchStatus(root: string): Promise<number> {
  const out = process.stdout;
  return new Promise<number>((resolvePromise) => {
    let previous = '';
    let settleTimer: NodeJS.Timeout | undefined;
    let sessionsWatch: SessionsWatch | undefined;
    let isDone = false;
    const cache = loadSkipCache(root);

    const draw = (): void => {
      if (isDone) return;
      const view = readView(root, cache);
      const rows = out.rows ?? 24;
      let lines = [...view.warnings.map((w) => `warning: ${w}`), ...renderStatusText(view, { home: homedir(), width: out.columns ?? 80 })];
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
    const finish = (): void => {
      if (isDone) return;
      isDone = true;
      sessionsWatch?.close();
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
    sessionsWatch = watchSessions(root, drawSoon, draw, WATCH_POLL_MS);
    draw();
  });
}
