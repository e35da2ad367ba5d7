/**
 * Bringing a tmux pane to the front, for the dashboard's jump key: the pane's window becomes
 * current, the pane becomes active, and an attached client (the one the dashboard runs in, when
 * it runs in tmux) switches to the pane's session.
 */
import { execFile } from 'node:child_process';
import type { TmuxPane } from '../core/records/session-record.js';

const TMUX_TIMEOUT_MS = 3_000;

function tmux(socket: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile('tmux', ['-S', socket, ...args], { timeout: TMUX_TIMEOUT_MS, env }, (error, _stdout, stderr) => {
      if (error === null) resolvePromise();
      else reject(new Error(stderr.trim() === '' ? error.message : stderr.trim()));
    });
  });
}

/**
 * Selects the pane and its window, then switches the current client to it. The switch fails
 * when no client is attached to that server (a detached session, or a dashboard outside that
 * server): the pane is still the active one there, so only the first two must work.
 */
export async function jumpToPane(target: TmuxPane, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await tmux(target.socket, ['select-window', '-t', target.pane], env);
  await tmux(target.socket, ['select-pane', '-t', target.pane], env);
  try {
    await tmux(target.socket, ['switch-client', '-t', target.pane], env);
  } catch {
    // No attached client to switch: the window and pane are selected for the next attach.
  }
}
