/**
 * `--notify` and `--on-state CMD`: what the live session does when the published state becomes
 * blocked or done (the terminal's OSC 9/777, the desktop's notify-send, the user's command). Each failure is a warning; the agent never notices.
 */
import { spawn } from 'node:child_process';
import type { Clock } from '../../adapters/clock.js';
import type { TickLogEntry } from '../../core/detector/tick-log.js';
import type { AgentState } from '../../core/types.js';
import { createDesktopNotifier } from './desktop-notifier.js';
import { describeError } from '../session.js';

/** Minimum time between two notifications of the same state, so a flapping agent cannot spam. */
export const NOTIFY_MIN_INTERVAL_MS = 10_000;

export interface NotifierOptions {
  readonly notify: boolean;
  readonly onStateCommand: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly key: string;
  readonly sourceCli: string;
  readonly clock: Clock;
  readonly warn: (message: string) => void;
  /** Writes to the user's terminal; default process.stdout. */
  readonly writeTerminal?: (data: string) => void;
  /** Desktop notifications (notify-send) on blocked and done, rate-limited on their own; default: as `notify`. */
  readonly desktopNotify?: boolean | undefined;
  /** The session's working directory, for the desktop notification's body. */
  readonly cwd?: string;
}

/** `(state, entry) => void`, called for every published blocked or done. */
export function createNotifier(options: NotifierOptions): (state: AgentState, entry: TickLogEntry) => void {
  const lastNotifiedMs = new Map<AgentState, number>();
  const { warn, sourceCli } = options;
  const desktop = (options.desktopNotify ?? options.notify) ? createDesktopNotifier({ env: options.env, clock: options.clock, minIntervalMs: NOTIFY_MIN_INTERVAL_MS, warn }) : undefined;
  return (state, entry) => {
    desktop?.notify({ agent: sourceCli, state, cwd: options.cwd ?? '', session: options.key });
    if (!options.notify && options.onStateCommand === undefined) return;
    const nowMs = options.clock.nowMs();
    const last = lastNotifiedMs.get(state);
    if (last !== undefined && nowMs - last < NOTIFY_MIN_INTERVAL_MS) return;
    lastNotifiedMs.set(state, nowMs);
    const message = state === 'blocked' ? `${sourceCli} needs you` : `${sourceCli} is done`;
    if (options.notify) {
      try {
        (options.writeTerminal ?? ((data: string) => process.stdout.write(data)))(terminalNotification(message, options.env));
      } catch (error) {
        warn(`notification failed: ${describeError(error)}`);
      }
    }
    if (options.onStateCommand !== undefined) {
      try {
        const child = spawn('/bin/sh', ['-c', options.onStateCommand], {
          stdio: 'ignore',
          detached: true,
          env: { ...options.env, AGENTWRAP_STATE: state, AGENTWRAP_SESSION: options.key, AGENTWRAP_AGENT: sourceCli, AGENTWRAP_RULE: entry.decision.ruleId ?? '' },
        });
        child.on('error', (error) => warn(`--on-state command failed: ${describeError(error)}`));
        child.unref();
      } catch (error) {
        warn(`--on-state command failed: ${describeError(error)}`);
      }
    }
  };
}

/**
 * A desktop notification through the user's own terminal: OSC 9 (iTerm2, WezTerm, kitty…) and
 * OSC 777 (urxvt, foot, VTE), wrapped for tmux passthrough when inside tmux.
 */
export function terminalNotification(message: string, env: NodeJS.ProcessEnv): string {
  const clean = message.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 200);
  const sequences = [`\x1b]9;${clean}\x07`, `\x1b]777;notify;agentwrap;${clean}\x07`];
  if (env['TMUX'] === undefined) return sequences.join('');
  return sequences.map((s) => `\x1bPtmux;${s.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`).join('');
}
