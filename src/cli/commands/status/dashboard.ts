/**
 * `agentwrap status --watch` on a terminal: the live dashboard. This file wires the parts
 * together and holds the rows; what is shown (cli/dashboard/layout.ts) and what keys do
 * (cli/dashboard/model.ts) are pure, and the I/O is in cli/dashboard/terminal.ts (the screen and keys),
 * cli/dashboard/preview.ts (the selected session's screen), cli/dashboard/rereads.ts (when the state
 * directories are read) and cli/dashboard/actions.ts (jump, ack).
 *
 * Where changes come from, so nothing polls fast:
 * - state transitions: each local session's control socket (`subscribe`), drawn on arrival;
 * - new and ended sessions, titles: inotify on each `sessions/` directory (re-read at most once
 *   every 3 s for rewrites of listed sessions, at once for new ones), a session's stream
 *   closing, and a re-read every 5 s as a safety net; the "for how long" column is redrawn
 *   when one of its cells would read differently, without re-reading;
 * - the selected session's screen: its control socket (`screen`), sent when it changed;
 * - other machines: `agentwrap status --json` over ssh, every few seconds.
 */
import { appendFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { StateChangeEvent } from '../../../app/control/socket.js';
import { pollRemoteStatus, REMOTE_POLL_MS, type HostedSession } from '../../../app/sessions/remote-status.js';
import { sanitizeTitle } from '../../../core/records/session-record.js';
import { carryOutAction } from '../../dashboard/actions.js';
import { createTransitionFeeds } from '../../dashboard/feeds.js';
import { decodeKeys } from '../../dashboard/keys.js';
import { frameUpdate, msUntilAgesChange, renderFrame, type Frame } from '../../dashboard/layout.js';
import { applyKey, applyPromptInput, initialState, selectedRow, withRows, type DashboardRow, type DashboardState } from '../../dashboard/model.js';
import { createSessionPreview } from '../../dashboard/preview.js';
import { scheduleRereads } from '../../dashboard/rereads.js';
import { DashboardTerminal } from '../../dashboard/terminal.js';
import { buildView, type StatusSources } from '../../status-sources.js';

/**
 * A record older than the last transition its session sent is not news: the session emits the
 * event right after queueing the write, so a re-read in between would flip the row back.
 */
function withNewerEvent(session: HostedSession, event: StateChangeEvent | undefined): HostedSession {
  if (event === undefined || session.kind !== 'agentwrap' || session.host !== undefined || session.record.updated_at >= event.t) return session;
  const { reason: _old, ...record } = session.record;
  // A change of cause alone (from = to) keeps the state's age.
  const since = event.from === event.to ? record.state_since : event.t;
  return { ...session, record: { ...record, state: event.to, state_since: since, stuck: false, ...(typeof event.reason === 'string' ? { reason: event.reason } : {}) } };
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
  if (session.kind !== 'agentwrap') return { ...common, state: undefined, stateSinceMs: undefined, stuck: false, reason: undefined, until: undefined, title: '', control: undefined, tmux: undefined };
  const { record } = session;
  return {
    ...common,
    state: record.state,
    stateSinceMs: record.state_since,
    stuck: record.stuck,
    reason: record.reason === undefined ? undefined : sanitizeTitle(record.reason, 64),
    until: record.until,
    title: record.title ?? '',
    control: record.control === '' ? undefined : record.control,
    tmux: record.tmux,
    dialog: record.dialog,
  };
}

/** `AGENTWRAP_DASHBOARD_TRACE`: one line per transition drawn, for measuring publish → frame. */
function traceTransition(traceFile: string | undefined, event: StateChangeEvent): void {
  if (traceFile === undefined) return;
  try {
    appendFileSync(traceFile, `${JSON.stringify({ session: event.session, to: event.to, published_at: event.t, drawn_at: Date.now() })}\n`);
  } catch {
    // Tracing is for measurements; failing it must not end the dashboard.
  }
}

/** Local sessions that have a control socket: key → socket, what the transition feeds follow. */
function controlSockets(rows: readonly DashboardRow[]): Map<string, string> {
  return new Map(rows.flatMap((row) => (row.host === undefined && row.control !== undefined ? [[row.key, row.control] as const] : [])));
}

export function runDashboard(sources: StatusSources): Promise<number> {
  const traceFile = process.env['AGENTWRAP_DASHBOARD_TRACE'];
  let state: DashboardState = initialState();
  let previousFrame: Frame | undefined;
  let ageTimer: NodeJS.Timeout | undefined;
  const lastEvents = new Map<string, StateChangeEvent>();
  let isDone = false;
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));

  /** Writes only the lines that changed since the last frame. */
  const draw = (): void => {
    if (isDone) return;
    const frame = renderFrame({ state, preview: preview.current(), width: terminal.width, height: terminal.height, nowMs: Date.now(), home: homedir() });
    const text = frameUpdate(previousFrame, frame);
    previousFrame = frame;
    if (text !== '') terminal.write(text);
    // The next redraw the clock alone causes: when an age on screen would read differently.
    if (ageTimer !== undefined) clearTimeout(ageTimer);
    const untilMs = msUntilAgesChange(state, Date.now());
    ageTimer = Number.isFinite(untilMs) ? setTimeout(draw, untilMs + 5) : undefined;
  };
  const setState = (next: DashboardState): void => {
    state = next;
    preview.follow(selectedRow(state));
    draw();
  };
  const onTransition = (event: StateChangeEvent): void => {
    lastEvents.set(event.session, event);
    // Applied at once; the next re-read of the record agrees (or brings the title with it).
    const reason = typeof event.reason === 'string' ? sanitizeTitle(event.reason, 64) : undefined;
    const moved = (row: DashboardRow): DashboardRow => ({ ...row, state: event.to, stateSinceMs: event.from === event.to ? row.stateSinceMs : event.t, stuck: false, reason, until: reason === undefined ? undefined : row.until, dialog: event.dialog });
    const rows = state.rows.map((row) => (row.host === undefined && row.key === event.session ? moved(row) : row));
    setState(withRows(state, rows, state.hosts));
    traceTransition(traceFile, event);
  };
  const reread = (): void => {
    const view = buildView(sources, Date.now(), remote.reports());
    const rows = view.sessions.map((session) => toRow(withNewerEvent(session, lastEvents.get(session.key))));
    for (const key of lastEvents.keys()) if (!rows.some((row) => row.host === undefined && row.key === key)) lastEvents.delete(key);
    feeds.sync(controlSockets(rows));
    setState(withRows(state, rows, view.hosts ?? []));
  };
  const onInput = (text: string): void => {
    // A prompt being typed takes the keys as text, until Enter sends it or Esc closes it.
    if (state.prompt !== undefined) {
      const result = applyPromptInput(state, text);
      setState(result.state);
      carryOutAction(result.action, { say: (message) => setState({ ...state, message }), quit: finish });
      return;
    }
    for (const key of decodeKeys(text)) {
      const result = applyKey(state, key);
      setState(result.state);
      carryOutAction(result.action, { say: (message) => setState({ ...state, message }), quit: finish });
      if (isDone) return;
    }
  };
  const finish = (): void => {
    if (isDone) return;
    isDone = true;
    rereads.close();
    remote.close();
    if (ageTimer !== undefined) clearTimeout(ageTimer);
    preview.close();
    feeds.close();
    terminal.close();
    resolveExit(0);
  };

  const preview = createSessionPreview(draw);
  const rereads = scheduleRereads(reread, (key) => state.rows.some((row) => row.host === undefined && row.key === key));
  // A stream that closed: the session ended (or dropped it); a re-read tells which.
  const feeds = createTransitionFeeds(onTransition, rereads.soon);
  const remote = pollRemoteStatus(sources.hosts, process.env, REMOTE_POLL_MS, rereads.soon);
  const terminal = new DashboardTerminal({
    onInput,
    onResize: () => {
      previousFrame = undefined;
      draw();
    },
    onGone: finish,
  });
  terminal.open();
  rereads.watch(sources.roots);
  rereads.now();
  return exited;
}
