/**
 * Desktop notifications through the freedesktop notification service, by running `notify-send`
 * (libnotify) when it is on PATH: beside the terminal's own OSC 9/777 notifications, for
 * desktops whose terminal shows none. Off by default; `--notify` turns it on (and config may,
 * through `LiveSessionOptions.desktopNotify`).
 *
 * Rate-limited per state: a session flapping between working and blocked sends one
 * notification per state per NOTIFY_MIN_INTERVAL_MS, not one per flap. A missing notify-send
 * means no desktop notification and no complaint: the terminal ones still go out.
 */
import { spawn } from 'node:child_process';
import { resolveOnPath } from '../../adapters/agent-version.js';
import type { Clock } from '../../adapters/clock.js';
import type { AgentState } from '../../core/types.js';
import { forMarkup, forTerminal } from '../../core/text/sanitize.js';

export const NOTIFY_SEND = 'notify-send';

export interface DesktopNotification {
  readonly agent: string;
  readonly state: AgentState;
  readonly cwd: string;
  /** The session key, for the notification body. */
  readonly session: string;
}

export interface DesktopNotifierOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly minIntervalMs: number;
  readonly warn: (message: string) => void;
  /** `~` for paths under it in the body; default $HOME from env. */
  readonly home?: string | undefined;
}

export interface DesktopNotifier {
  /** True when a notification was handed to notify-send; false when rate-limited or none is installed. */
  notify(notification: DesktopNotification): boolean;
}

/** The notify-send on `env.PATH`, or undefined (the same lookup a shell does, as for agents). */
export function findNotifySend(env: NodeJS.ProcessEnv): string | undefined {
  return resolveOnPath(NOTIFY_SEND, env['PATH']);
}

/** Bounded before sanitizing, so an entity is never cut in half. */
function bounded(text: string, max: number): string {
  return [...text].slice(0, max).join('');
}

/** notify-send's arguments: urgency by state, summary with the agent and state, body with the cwd. */
export function notifySendArgs(notification: DesktopNotification, home: string | undefined): string[] {
  const { agent, state, cwd, session } = notification;
  const where = home !== undefined && home !== '' && home !== '/' && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
  const summary = state === 'blocked' ? `${agent} is blocked: it needs you` : `${agent} is ${state}`;
  return [
    '--app-name=agentwrap',
    `--urgency=${state === 'blocked' ? 'critical' : 'normal'}`,
    '--',
    // The summary is plain text; the body is markup to the notification server (forMarkup).
    forTerminal(bounded(summary, 200)),
    `${forMarkup(bounded(where, 400))}\n${forMarkup(bounded(session, 160))}`,
  ];
}

export function createDesktopNotifier(options: DesktopNotifierOptions): DesktopNotifier {
  let program: string | undefined | null = null;
  const lastSentMs = new Map<AgentState, number>();
  return {
    notify(notification) {
      const nowMs = options.clock.nowMs();
      const last = lastSentMs.get(notification.state);
      if (last !== undefined && nowMs - last < options.minIntervalMs) return false;
      // Looked up on first use, not at start: most sessions never notify.
      if (program === null) program = findNotifySend(options.env);
      if (program === undefined) return false;
      lastSentMs.set(notification.state, nowMs);
      try {
        const child = spawn(program, notifySendArgs(notification, options.home ?? options.env['HOME']), { stdio: 'ignore', detached: true, env: options.env });
        child.on('error', (error) => options.warn(`desktop notification failed: ${error.message}`));
        child.unref();
        return true;
      } catch (error) {
        options.warn(`desktop notification failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    },
  };
}
