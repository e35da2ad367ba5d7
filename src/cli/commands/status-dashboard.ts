/**
 * `agentwrap status --watch` on a terminal: the live dashboard. The terminal I/O only; what is
 * shown (dashboard-layout.ts) and what keys do (dashboard-model.ts) are pure.
 *
 * Where changes come from, so nothing polls fast:
 * - state transitions: each local session's control socket (`subscribe`), drawn on arrival;
 * - new and ended sessions, titles: inotify on each `sessions/` directory (re-read at most once
 *   every 3 s for rewrites of listed sessions, at once for new ones), a session's stream
 *   closing, and a re-read every 5 s as a safety net; the "for how long" column is redrawn
 *   when one of its cells would read differently, without re-reading;
 * - the selected session's screen: its control socket (`screen`), sent when it changed;
 * - other machines: `agentwrap status --json` over ssh, every few seconds.
 *
 * The alternate screen and the cursor are restored on every way out: q, Ctrl-C, SIGINT,
 * SIGTERM, SIGHUP, a terminal that went away (EIO/EPIPE on write, end of input), and, as a last
 * resort, process exit.
 */
import { appendFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { jumpToPane, runSsh } from '../../app/platform.js';
import {
  ControlError,
  requestControl,
  subscribeScreen,
  type ControlSubscription,
  type ScreenPreview,
  type StateChangeEvent,
} from '../../app/control-socket.js';
import { pollRemoteStatus, REMOTE_POLL_MS, type HostedSession } from '../../app/remote-status.js';
import { watchSessions, type SessionsWatch } from '../../app/session-store.js';
import { sanitizeTitle, tmuxPaneFromEnv } from '../../core/session-record.js';
import { createTransitionFeeds } from '../dashboard-feeds.js';
import { decodeKeys } from '../dashboard-keys.js';
import { frameUpdate, msUntilAgesChange, renderFrame, type Frame } from '../dashboard-layout.js';
import {
  ackRefusal,
  applyKey,
  initialState,
  jumpRefusal,
  selectedRow,
  withRows,
  type DashboardAction,
  type DashboardRow,
  type DashboardState,
} from '../dashboard-model.js';
import { buildView, type StatusSources } from '../status-sources.js';

/** Re-read of the state directories when nothing else caused one (expired leases, no inotify). */
const SAFETY_REREAD_MS = 5_000;
/** A new session's record (a file name not listed yet) is read this long after it appears. */
const NEW_FILE_SETTLE_MS = 250;
/**
 * A listed session's record is rewritten every few seconds (its lease, its title): those
 * rewrites are read at most this often. Its transitions come over its socket at once, and its
 * end closes the socket (which re-reads at once), so only titles wait for this.
 */
const REWRITE_REREAD_INTERVAL_MS = 3_000;

const ESC = '\u001b';
const ENTER_ALT_SCREEN = `${ESC}[?1049h${ESC}[?25l${ESC}[2J`;
const LEAVE_ALT_SCREEN = `${ESC}[?25h${ESC}[?1049l`;

/**
 * A record older than the last transition its session sent is not news: the session emits the
 * event right after queueing the write, so a re-read in between would flip the row back.
 */
function withNewerEvent(session: HostedSession, event: StateChangeEvent | undefined): HostedSession {
  if (event === undefined || session.kind !== 'agentwrap' || session.host !== undefined || session.record.updated_at >= event.t) return session;
  return { ...session, record: { ...session.record, state: event.to, state_since: event.t, stuck: false } };
}

function toRow(session: HostedSession): DashboardRow {
  const host = session.host;
  const common = {
    id: host === undefined ? session.key : `${host}/${session.key}`,
    host,
    key: sanitizeTitle(session.key, 128),
    agent: sanitizeTitle(session.record.source_cli, 64),
    cwd: sanitizeTitle(session.record.cwd ?? '', 512),
  };
  if (session.kind !== 'agentwrap') return { ...common, state: undefined, stateSinceMs: undefined, stuck: false, title: '', control: undefined, tmux: undefined };
  const { record } = session;
  return {
    ...common,
    state: record.state,
    stateSinceMs: record.state_since,
    stuck: record.stuck,
    title: record.title ?? '',
    control: record.control === '' ? undefined : record.control,
    tmux: record.tmux,
  };
}

export function runDashboard(sources: StatusSources): Promise<number> {
  const out = process.stdout;
  const input = process.stdin;
  const traceFile = process.env['AGENTWRAP_DASHBOARD_TRACE'];
  let state: DashboardState = initialState();
  let preview: ScreenPreview | string = 'no session selected';
  let previewId: string | undefined;
  let previewSubscription: ControlSubscription | undefined;
  const watches: SessionsWatch[] = [];
  let previousFrame: Frame | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  let ageTimer: NodeJS.Timeout | undefined;
  let lastRereadMs = Number.NEGATIVE_INFINITY;
  const lastEvents = new Map<string, StateChangeEvent>();
  let isDone = false;

  return new Promise<number>((resolvePromise) => {
    const write = (text: string): void => {
      try {
        out.write(text);
      } catch {
        finish();
      }
    };

    /** Writes only the lines that changed since the last frame. */
    const draw = (): void => {
      if (isDone) return;
      const frame = renderFrame({ state, preview, width: out.columns ?? 80, height: out.rows ?? 24, nowMs: Date.now(), home: homedir() });
      const text = frameUpdate(previousFrame, frame);
      previousFrame = frame;
      if (text !== '') write(text);
      // The next redraw the clock alone causes: when an age on screen would read differently.
      if (ageTimer !== undefined) clearTimeout(ageTimer);
      const untilMs = msUntilAgesChange(state, Date.now());
      ageTimer = Number.isFinite(untilMs) ? setTimeout(draw, untilMs + 5) : undefined;
    };

    const updatePreview = (): void => {
      const row = selectedRow(state);
      if (row?.id === previewId) return;
      previewId = row?.id;
      previewSubscription?.close();
      previewSubscription = undefined;
      if (row === undefined) preview = 'no session selected';
      else if (row.host !== undefined) preview = `no preview: ${row.key} runs on ${row.host}`;
      else if (row.control === undefined) preview = row.state === undefined ? 'no preview: another tool’s session' : 'no preview: the session has no control socket';
      else {
        preview = 'connecting…';
        const id = row.id;
        subscribeScreen(row.control, (screen) => {
          if (previewId !== id) return;
          preview = screen;
          draw();
        }).then(
          (subscription) => {
            if (previewId !== id || isDone) subscription.close();
            else previewSubscription = subscription;
          },
          (error: unknown) => {
            if (previewId !== id) return;
            preview = `no preview: ${error instanceof Error ? error.message : String(error)}`;
            draw();
          },
        );
      }
    };

    const setState = (next: DashboardState): void => {
      state = next;
      updatePreview();
      draw();
    };

    const onTransition = (event: StateChangeEvent): void => {
      lastEvents.set(event.session, event);
      // Applied at once; the next re-read of the record agrees (or brings the title with it).
      const rows = state.rows.map((row) => (row.host === undefined && row.key === event.session ? { ...row, state: event.to, stateSinceMs: event.t, stuck: false } : row));
      setState(withRows(state, rows, state.hosts));
      if (traceFile !== undefined) {
        try {
          appendFileSync(traceFile, `${JSON.stringify({ session: event.session, to: event.to, published_at: event.t, drawn_at: Date.now() })}\n`);
        } catch {
          // Tracing is for measurements; failing it must not end the dashboard.
        }
      }
    };

    const reread = (): void => {
      if (isDone) return;
      lastRereadMs = performance.now();
      const view = buildView(sources, Date.now(), remote.reports());
      const rows = view.sessions.map((session) => toRow(withNewerEvent(session, lastEvents.get(session.key))));
      for (const key of lastEvents.keys()) if (!rows.some((row) => row.host === undefined && row.key === key)) lastEvents.delete(key);
      feeds.sync(new Map(rows.flatMap((row) => (row.host === undefined && row.control !== undefined ? [[row.key, row.control] as const] : []))));
      setState(withRows(state, rows, view.hosts ?? []));
    };
    let settleDueMs = Number.POSITIVE_INFINITY;
    const rereadAt = (dueMs: number): void => {
      if (isDone || dueMs >= settleDueMs) return;
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      settleDueMs = dueMs;
      settleTimer = setTimeout(() => {
        settleTimer = undefined;
        settleDueMs = Number.POSITIVE_INFINITY;
        reread();
      }, Math.max(0, dueMs - performance.now()));
    };
    /** Something changed that only a re-read tells (a session ended, a host answered). */
    const rereadSoon = (): void => rereadAt(performance.now() + NEW_FILE_SETTLE_MS);
    const onFileEvent = (_eventType?: string, filename?: string | null): void => {
      if (typeof filename === 'string' && filename.startsWith('.')) return; // a writer's temp file: its rename follows
      const key = typeof filename === 'string' && filename.endsWith('.json') ? filename.slice(0, -'.json'.length) : undefined;
      const isKnown = key !== undefined && state.rows.some((row) => row.host === undefined && row.key === key);
      rereadAt(isKnown ? Math.max(performance.now() + NEW_FILE_SETTLE_MS, lastRereadMs + REWRITE_REREAD_INTERVAL_MS) : performance.now() + NEW_FILE_SETTLE_MS);
    };
    const onPoll = (): void => {
      if (performance.now() - lastRereadMs >= SAFETY_REREAD_MS - 100) reread();
    };
    // A stream that closed: the session ended (or dropped it); a re-read tells which.
    const feeds = createTransitionFeeds(onTransition, () => rereadSoon());
    const remote = pollRemoteStatus(sources.hosts, process.env, REMOTE_POLL_MS, rereadSoon);

    const say = (message: string): void => setState({ ...state, message });

    const carryOut = (action: DashboardAction): void => {
      switch (action.kind) {
        case 'none':
          return;
        case 'quit':
          finish();
          return;
        case 'jump': {
          const refusal = jumpRefusal(action.row);
          const pane = action.row.tmux;
          if (refusal !== undefined || pane === undefined) {
            say(refusal ?? 'nothing to jump to');
            return;
          }
          // From another tmux server (or none) the pane is made current there, but this
          // terminal cannot show it: say where it is.
          const here = tmuxPaneFromEnv(process.env)?.socket;
          jumpToPane(pane).then(
            () => say(here === pane.socket ? `jumped to ${action.row.key} (tmux pane ${pane.pane})` : `selected ${action.row.key}: tmux pane ${pane.pane} of the server at ${pane.socket}`),
            (error: unknown) => say(`cannot jump to ${action.row.key}: ${error instanceof Error ? error.message : String(error)}`),
          );
          return;
        }
        case 'ack': {
          const refusal = ackRefusal(action.row);
          if (refusal !== undefined) {
            say(refusal);
            return;
          }
          void ack(action.row).then(say);
          return;
        }
      }
    };

    const onInput = (chunk: Buffer | string): void => {
      for (const key of decodeKeys(chunk.toString())) {
        const result = applyKey(state, key);
        setState(result.state);
        carryOut(result.action);
        if (isDone) return;
      }
    };

    const onResize = (): void => {
      previousFrame = undefined;
      write(`${ESC}[2J`);
      draw();
    };

    const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const restoreOnExit = (): void => {
      // Last resort (an exception elsewhere): the terminal must not stay in the alternate screen.
      try {
        if (input.isTTY) input.setRawMode(false);
        out.write(LEAVE_ALT_SCREEN);
      } catch {
        // The terminal is gone: nothing to restore.
      }
    };
    function finish(): void {
      if (isDone) return;
      isDone = true;
      for (const watch of watches) watch.close();
      remote.close();
      if (settleTimer !== undefined) clearTimeout(settleTimer);
      if (ageTimer !== undefined) clearTimeout(ageTimer);
      previewSubscription?.close();
      feeds.close();
      for (const signal of SIGNALS) process.off(signal, finish);
      input.off('data', onInput);
      input.off('end', finish);
      out.off('resize', onResize);
      process.off('exit', restoreOnExit);
      restoreOnExit();
      input.pause();
      resolvePromise(0);
    }

    for (const signal of SIGNALS) process.on(signal, finish);
    process.on('exit', restoreOnExit);
    out.on('error', finish);
    input.on('error', finish);
    input.on('end', finish);
    out.on('resize', onResize);
    input.setRawMode(true);
    input.on('data', onInput);
    input.resume();
    write(ENTER_ALT_SCREEN);
    sources.roots.forEach((root, i) => watches.push(watchSessions(root, onFileEvent, i === 0 ? onPoll : () => undefined, SAFETY_REREAD_MS)));
    reread();
  });
}

/** Marks a session seen; the answer is one line for the dashboard's message. */
async function ack(row: DashboardRow): Promise<string> {
  if (row.host !== undefined) {
    const result = await runSsh({ host: row.host, env: process.env }, ['ack', row.key], 10_000);
    return result.code === 0 ? `acknowledged ${row.key} on ${row.host}` : `cannot ack ${row.key} on ${row.host}: ${result.error ?? 'ssh failed'}`;
  }
  try {
    await requestControl(row.control ?? '', { method: 'ack' });
    return `acknowledged ${row.key}`;
  } catch (error) {
    return `cannot ack ${row.key}: ${error instanceof ControlError ? error.message : String(error)}`;
  }
}
