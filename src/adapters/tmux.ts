/**
 * tmux, one command line at a time: bringing a pane to the front, for the dashboard's jump key
 * (the pane's window becomes current, the pane becomes active, and an attached client switches
 * to the pane's session), and `runTmux` for a live session's pane options (app/live/signals-out.ts).
 */
import { execFile } from 'node:child_process';
import type { TmuxPane } from '../core/records/session-record.js';

const TMUX_TIMEOUT_MS = 3_000;

/** Runs `tmux -S socket args…`; rejects with tmux's message, or when it took longer than timeoutMs (it is killed). */
export function runTmux(socket: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = TMUX_TIMEOUT_MS): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile('tmux', ['-S', socket, ...args], { timeout: timeoutMs, env }, (error, _stdout, stderr) => {
      if (error === null) resolvePromise();
      else reject(new Error(stderr.trim() === '' ? error.message : stderr.trim()));
    });
  });
}

const tmux = runTmux;

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
