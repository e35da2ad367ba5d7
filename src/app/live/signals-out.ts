/**
 * Signals out: each change of the published state told, the moment it is published and without
 * anyone polling, where people look besides the record:
 * - the user's terminal, with OSC 7501 program status, only where the terminal answered a 7501
 *   probe (the agent's, or agentwrap's own, sent before the spawn: launch/program-status.ts) and the
 *   agent does not already send its own there; and OSC 9;4 progress on terminals known to show
 *   it, unless the agent sends its own;
 * - the tmux pane the agent runs in ($TMUX, $TMUX_PANE): pane options @agent_state,
 *   @agent_name, @agent_since, @agent_reason (unset when there is none), which a status line
 *   reads with format loops (docs/publishing.md);
 *   tmux redraws every attached client's status line when an option is set. One tmux process
 *   per change, never two at once (the newest change waits, older ones are skipped), each
 *   bounded; unset when the session ends.
 * With neither, nothing is written. A failure is one warning; the agent never notices.
 */
import { runTmux } from '../../adapters/tmux.js';
import { STATUS_AGENT_SPOKE, STATUS_OUTER_UNDERSTANDS } from '../../adapters/terminal/program-status.js';
import { programStatusSequence, progressSequence, tmuxSetArgs, tmuxUnsetArgs } from '../../core/records/outward-signals.js';
import type { TmuxPane } from '../../core/records/session-record.js';
import type { AgentState } from '../../core/types.js';
import type { LaunchedSession } from '../launch/launch.js';
import type { StateChangeEvent } from '../control/protocol.js';

/** A tmux call that takes longer is killed: a wedged server must not pile up processes. */
export const TMUX_SIGNAL_TIMEOUT_MS = 2_000;

/**
 * What tmux says when the server or the pane is gone (`tmux kill-server`, a closed window): the
 * session ends with it, and there is nothing left to show a state in, so nothing to warn about.
 */
const TMUX_GONE = /no server running|can't find pane|server exited|lost server|error connecting/i;

export interface SignalsOutOptions {
  readonly launched: Pick<LaunchedSession, 'programStatus' | 'onProgramStatus' | 'writeTerminal'>;
  readonly subscribe: (emit: (event: StateChangeEvent) => void) => () => void;
  readonly sourceCli: string;
  readonly env: NodeJS.ProcessEnv;
  readonly tmux: TmuxPane | undefined;
  /** The agent sent OSC 9;4 progress itself (the mirror's evidence). */
  readonly agentSendsProgress: () => boolean;
  readonly warn: (message: string) => void;
}

export interface SignalsOut {
  /** The session ended: clear what was said, unset the pane options (bounded). */
  close(): Promise<void>;
}

/**
 * Terminals that draw OSC 9;4 as a progress bar (the others ignore it, but a terminal that
 * does not know it gains nothing from it): Windows Terminal, ConEmu, Ghostty.
 */
export function showsProgress(env: NodeJS.ProcessEnv): boolean {
  return env['WT_SESSION'] !== undefined || env['ConEmuANSI'] === 'ON' || env['TERM_PROGRAM'] === 'ghostty';
}

export function startSignalsOut(options: SignalsOutOptions): SignalsOut {
  const { launched } = options;
  const pane = options.tmux === undefined ? undefined : new PaneOptions(options.tmux, options.env, options.warn);
  const isProgressShown = showsProgress(options.env);
  let current: { state: AgentState; sinceMs: number } | undefined;
  let saidStatus: Exclude<AgentState, 'unknown'> | 'clear' | undefined;
  let saidProgress: string | undefined;

  const write = (data: string): void => {
    try {
      launched.writeTerminal(data);
    } catch (error) {
      options.warn(`status to the terminal failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const tellTerminal = (state: AgentState | 'clear'): void => {
    const bits = launched.programStatus();
    // No reliable evidence says nothing: the terminal's status is cleared.
    const status = state === 'unknown' ? 'clear' : state;
    if ((bits & STATUS_OUTER_UNDERSTANDS) !== 0 && (bits & STATUS_AGENT_SPOKE) === 0 && status !== saidStatus) {
      saidStatus = status;
      write(programStatusSequence(status, options.sourceCli));
    }
    if (isProgressShown && !options.agentSendsProgress()) {
      const progress = progressSequence(state);
      // Nothing to remove that was never set.
      if (progress !== saidProgress && !(saidProgress === undefined && state !== 'working' && state !== 'blocked')) {
        saidProgress = progress;
        write(progress);
      }
    }
  };

  const unsubscribe = options.subscribe((event) => {
    // A change of cause alone (from = to) changes only @agent_reason: the state and its age stay,
    // and the terminal hears nothing (OSC 7501 and 9;4 carry no cause).
    if (event.from === event.to) {
      if (current !== undefined) pane?.set(current.state, options.sourceCli, current.sinceMs, event.reason ?? undefined);
      return;
    }
    current = { state: event.to, sinceMs: event.t };
    pane?.set(event.to, options.sourceCli, event.t, event.reason ?? undefined);
    tellTerminal(event.to);
  });
  // The terminal's answer to a probe arrives after the first state: say it now.
  const stopWatching = launched.onProgramStatus(() => {
    if (current !== undefined) tellTerminal(current.state);
  });

  return {
    async close() {
      unsubscribe();
      stopWatching();
      if (saidStatus !== undefined && saidStatus !== 'clear') write(programStatusSequence('clear', options.sourceCli));
      if (saidProgress !== undefined && saidProgress !== progressSequence('clear')) write(progressSequence('clear'));
      await pane?.unset();
    },
  };
}

/** The pane's options, one tmux call at a time; the newest change wins. */
class PaneOptions {
  private pending: string[] | undefined;
  private running: Promise<void> | undefined;
  private hasWarned = false;
  private isEnding = false;

  constructor(
    private readonly target: TmuxPane,
    private readonly env: NodeJS.ProcessEnv,
    private readonly warn: (message: string) => void,
  ) {}

  set(state: AgentState, name: string, sinceMs: number, reason: string | undefined): void {
    this.enqueue(tmuxSetArgs(this.target.pane, { state, name, sinceMs, reason }));
  }

  /** At the end; a failure then is not worth a warning (the pane is usually going too). */
  async unset(): Promise<void> {
    this.isEnding = true;
    this.enqueue(tmuxUnsetArgs(this.target.pane));
    while (this.running !== undefined) await this.running;
  }

  private enqueue(args: string[]): void {
    this.pending = args;
    if (this.running === undefined) this.running = this.runPending();
  }

  private async runPending(): Promise<void> {
    for (let args = this.pending; args !== undefined; args = this.pending) {
      this.pending = undefined;
      try {
        await runTmux(this.target.socket, args, this.env, TMUX_SIGNAL_TIMEOUT_MS);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!this.hasWarned && !this.isEnding && !TMUX_GONE.test(message)) this.warn(`tmux pane options: ${message}`);
        this.hasWarned = true;
      }
    }
    this.running = undefined;
  }
}
