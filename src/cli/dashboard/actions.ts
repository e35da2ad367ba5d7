/**
 * Carries out what a key asked for (model.ts decides which): jump to the session's
 * tmux pane, ack it (locally over its control socket, remotely over ssh), or quit. Each answer
 * is one line for the dashboard's message.
 */
import { jumpToPane, runSsh } from '../../app/platform.js';
import { ControlError, requestControl } from '../../app/control/socket.js';
import { tmuxPaneFromEnv } from '../../core/records/session-record.js';
import { ackRefusal, jumpRefusal, type DashboardAction, type DashboardRow } from './model.js';

export interface ActionEffects {
  say(message: string): void;
  quit(): void;
}

export function carryOutAction(action: DashboardAction, effects: ActionEffects, env: NodeJS.ProcessEnv = process.env): void {
  switch (action.kind) {
    case 'none':
      return;
    case 'quit':
      effects.quit();
      return;
    case 'jump':
      jump(action.row, effects.say, env);
      return;
    case 'ack': {
      const refusal = ackRefusal(action.row);
      if (refusal !== undefined) effects.say(refusal);
      else void ack(action.row, env).then(effects.say);
      return;
    }
  }
}

function jump(row: DashboardRow, say: (message: string) => void, env: NodeJS.ProcessEnv): void {
  const refusal = jumpRefusal(row);
  const pane = row.tmux;
  if (refusal !== undefined || pane === undefined) {
    say(refusal ?? 'nothing to jump to');
    return;
  }
  // From another tmux server (or none) the pane is made current there, but this terminal
  // cannot show it: say where it is.
  const here = tmuxPaneFromEnv(env)?.socket;
  jumpToPane(pane).then(
    () => say(here === pane.socket ? `jumped to ${row.key} (tmux pane ${pane.pane})` : `selected ${row.key}: tmux pane ${pane.pane} of the server at ${pane.socket}`),
    (error: unknown) => say(`cannot jump to ${row.key}: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/** Marks a session seen. */
async function ack(row: DashboardRow, env: NodeJS.ProcessEnv): Promise<string> {
  if (row.host !== undefined) {
    const result = await runSsh({ host: row.host, env }, ['ack', row.key], 10_000);
    return result.code === 0 ? `acknowledged ${row.key} on ${row.host}` : `cannot ack ${row.key} on ${row.host}: ${result.error ?? 'ssh failed'}`;
  }
  try {
    await requestControl(row.control ?? '', { method: 'ack' });
    return `acknowledged ${row.key}`;
  } catch (error) {
    return `cannot ack ${row.key}: ${error instanceof ControlError ? error.message : String(error)}`;
  }
}
