/**
 * Carries out what a key asked for (model.ts decides which): jump to the session's
 * tmux pane, ack it, answer its dialog or type it a prompt (locally over its control socket,
 * remotely over ssh), or quit. Each answer
 * is one line for the dashboard's message.
 */
import { jumpToPane, runSsh } from '../../app/platform.js';
import { ControlError, requestControl } from '../../app/control/socket.js';
import { askerHere, requestAnswer, requestSend } from '../../app/control/answer-client.js';
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
    case 'answer':
    case 'send':
      void typeInto(action, env).then(effects.say);
      return;
  }
}

/** An answer or a prompt: over the control socket here, or `agentwrap answer` / `send` over ssh there. */
async function typeInto(action: Extract<DashboardAction, { kind: 'answer' | 'send' }>, env: NodeJS.ProcessEnv): Promise<string> {
  const { row } = action;
  const asker = askerHere(env, 'watch');
  if (row.host !== undefined) {
    const args =
      action.kind === 'answer'
        ? ['answer', row.key, String(action.option), '--dialog', action.digest, '--from', asker.user]
        : ['send', row.key, action.text, '--from', asker.user];
    const result = await runSsh({ host: row.host, env }, args, 15_000);
    return result.code === 0 ? `${action.kind === 'answer' ? 'answered' : 'sent a prompt to'} ${row.key} on ${row.host}` : `${row.key} on ${row.host}: ${result.error ?? 'ssh failed'}`;
  }
  try {
    const reply =
      action.kind === 'answer'
        ? await requestAnswer(row.control ?? '', action.option, action.digest, asker)
        : await requestSend(row.control ?? '', action.text, false, asker);
    if (!reply.sent) return `${row.key}: ${reply.message}`;
    return action.kind === 'answer' ? `answered ${row.key}: ${action.option}. ${reply.label ?? ''}` : `sent ${row.key} a prompt`;
  } catch (error) {
    return `cannot reach ${row.key}: ${error instanceof ControlError ? error.message : String(error)}`;
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
