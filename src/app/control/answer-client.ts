/**
 * The asking side of `answer` and `send` (the CLI, `status --watch`, the web dashboard): which
 * option a word names, who is asking and from where, and the request through the session's
 * control socket. The session decides (app/live/remote-input.ts); this only asks and reports.
 */
import { userInfo } from 'node:os';
import type { PublishedDialog } from '../../core/records/dialog-field.js';
import { DEFAULT_CONTROL_TIMEOUT_MS, isObject } from './protocol.js';
import { requestControl } from './client.js';

/** Who asks, as noted in the session's explain history. */
export interface Asker {
  readonly user: string;
  /** socket: this machine's CLI; host: a CLI that came in over ssh (`--host`); watch / web: the dashboards. */
  readonly via: 'socket' | 'host' | 'web' | 'watch';
  /** The far side, when there is one: the ssh client's address, the dashboard's origin. */
  readonly from: string;
}

/** The user running this process, and whether it came in over ssh (`SSH_CONNECTION` names the client). */
export function askerHere(env: NodeJS.ProcessEnv, via: 'socket' | 'watch' | 'web' = 'socket', from = ''): Asker {
  let user = env['USER'] ?? '';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the environment's USER, or nobody named.
  }
  const ssh = env['SSH_CONNECTION']?.split(' ')[0];
  // `--host`: the asking CLI names itself (`from`); the address is what ssh saw.
  if (via === 'socket' && ssh !== undefined && ssh !== '') return { user, via: 'host', from: from === '' ? ssh : `${from} (${ssh})` };
  return { user, via, from };
}

/**
 * The option a word names: its number (1-based), else the one label it matches exactly or
 * begins (case-insensitive). A string is the reason it names none.
 */
export function resolveOption(dialog: PublishedDialog, word: string): number | string {
  const listed = dialog.options.map((label, i) => `${i + 1}. ${label}`).join(', ');
  if (/^[0-9]+$/.test(word)) {
    const n = Number(word);
    return n >= 1 && n <= dialog.options.length ? n : `no option ${word}: the dialog shows ${listed}`;
  }
  const lower = word.trim().toLowerCase();
  const exact = dialog.options.findIndex((label) => label.toLowerCase() === lower);
  if (exact >= 0) return exact + 1;
  const prefixed = dialog.options.flatMap((label, i) => (lower !== '' && label.toLowerCase().startsWith(lower) ? [i + 1] : []));
  if (prefixed.length === 1 && prefixed[0] !== undefined) return prefixed[0];
  return prefixed.length > 1 ? `"${word}" begins more than one option: ${listed}` : `no option "${word}": the dialog shows ${listed}`;
}

export type InputReply =
  | { readonly sent: true; readonly label?: string; readonly option?: number; readonly characters?: number }
  | { readonly sent: false; readonly code: string; readonly message: string };

function toInputReply(result: unknown): InputReply {
  if (!isObject(result)) return { sent: false, code: 'protocol', message: 'the session sent an answer that is not an object' };
  if (result['sent'] === true) {
    return {
      sent: true,
      ...(typeof result['label'] === 'string' ? { label: result['label'] } : {}),
      ...(typeof result['option'] === 'number' ? { option: result['option'] } : {}),
      ...(typeof result['characters'] === 'number' ? { characters: result['characters'] } : {}),
    };
  }
  return { sent: false, code: typeof result['code'] === 'string' ? result['code'] : 'refused', message: typeof result['message'] === 'string' ? result['message'] : 'the session refused' };
}

/** Chooses `option` of the dialog whose digest is `digest`; the session refuses if that dialog no longer shows. */
export async function requestAnswer(controlPath: string, option: number, digest: string, asker: Asker, timeoutMs = DEFAULT_CONTROL_TIMEOUT_MS): Promise<InputReply> {
  return toInputReply(await requestControl(controlPath, { method: 'answer', params: { option, digest, ...asker } }, timeoutMs));
}

/** Types `text` and Enter; refused while the agent works or is blocked unless `force`. */
export async function requestSend(controlPath: string, text: string, force: boolean, asker: Asker, timeoutMs = DEFAULT_CONTROL_TIMEOUT_MS): Promise<InputReply> {
  return toInputReply(await requestControl(controlPath, { method: 'send', params: { text, force, ...asker } }, timeoutMs));
}
