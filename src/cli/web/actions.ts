/**
 * The dashboard's two actions, `POST /api/answer` and `POST /api/send` (docs/answer.md): a
 * button that chooses an option of a blocked session's dialog, and a box that types a prompt
 * into a waiting one. Typing into an agent is more than reading a page, so beyond the token and
 * Host checks every request has (server.ts), an action must be a POST of JSON from the
 * dashboard's own page: its Origin names this server, and a browser's Sec-Fetch-Site, when
 * sent, says same-origin. A form on another site cannot send JSON without a preflight this
 * server never grants, and its Origin gives it away. Each refusal says what was wrong.
 */
import type { IncomingMessage } from 'node:http';
import { askerHere, requestAnswer, requestSend, type InputReply } from '../../app/control/answer-client.js';
import type { ListedSession } from '../../app/sessions/store.js';
import { REMOTE_PROMPT_MAX_CHARS } from '../../core/input-bounds.js';

/** A JSON body past this is refused unread: a prompt at its longest, 4 bytes a character, and room for the rest. */
export const ACTION_BODY_MAX_BYTES = REMOTE_PROMPT_MAX_CHARS * 4 + 1024;

export type OwnSession = ListedSession & { readonly kind: 'agentwrap' };

export interface ActionResult {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

const refused = (status: number, error: string): ActionResult => ({ status, body: { error } });

/** Why this request may not act, or undefined when it may: a POST of JSON from this server's own page. */
export function actionRefusal(req: IncomingMessage, port: number): ActionResult | undefined {
  if (req.method !== 'POST') return refused(405, 'actions are POST requests');
  const origin = req.headers.origin;
  if (origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
    return refused(403, `actions are accepted only from the dashboard's own page (Origin ${origin === undefined ? 'missing' : `"${origin}"`})`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return refused(403, `actions are accepted only from the dashboard's own page (Sec-Fetch-Site "${String(site)}")`);
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return refused(415, 'an action is a JSON body (Content-Type: application/json)');
  return undefined;
}

/** The body as JSON, read up to ACTION_BODY_MAX_BYTES; a string is why it could not be. */
function readJsonBody(req: IncomingMessage): Promise<Readonly<Record<string, unknown>> | string> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let isDone = false;
    const finish = (value: Readonly<Record<string, unknown>> | string): void => {
      if (isDone) return;
      isDone = true;
      resolvePromise(value);
    };
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > ACTION_BODY_MAX_BYTES) {
        finish(`the body is longer than ${ACTION_BODY_MAX_BYTES} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        finish(typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'the body is not a JSON object');
      } catch {
        finish('the body is not JSON');
      }
    });
    req.on('error', () => finish('the request broke off'));
  });
}

function replied(reply: InputReply): ActionResult {
  return reply.sent ? { status: 200, body: { ...reply } } : { status: 409, body: { error: reply.message, code: reply.code } };
}

/** `/api/answer` `{key, option, digest}` and `/api/send` `{key, text, force}`, for a request `actionRefusal` let through. */
export async function runAction(path: '/api/answer' | '/api/send', req: IncomingMessage, port: number, find: (key: string | null) => OwnSession | undefined): Promise<ActionResult> {
  const body = await readJsonBody(req);
  if (typeof body === 'string') return refused(400, body);
  const session = find(typeof body['key'] === 'string' ? body['key'] : null);
  if (session === undefined) return refused(404, 'no such live agentwrap session');
  const asker = askerHere(process.env, 'web', `dashboard http://127.0.0.1:${port}`);
  if (path === '/api/answer') {
    const { option, digest } = body;
    if (typeof option !== 'number' || !Number.isInteger(option) || typeof digest !== 'string') return refused(400, 'an answer is {key, option (a number), digest (the dialog it answers)}');
    return replied(await requestAnswer(session.record.control, option, digest, asker));
  }
  const { text, force } = body;
  if (typeof text !== 'string' || text.trim() === '') return refused(400, 'a prompt is {key, text, force?}');
  return replied(await requestSend(session.record.control, text, force === true, asker));
}
