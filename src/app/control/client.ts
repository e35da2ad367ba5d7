/**
 * The client side of a session's control socket (socket.ts has the protocol and the
 * server): one request and its reply, or a subscription to a session's state changes or screen.
 */
import { connect, type Socket } from 'node:net';
import {
  ControlError,
  DEFAULT_CONTROL_TIMEOUT_MS,
  isObject,
  lineReader,
  type ControlErrorCode,
  type ControlRequest,
  type ScreenPreview,
  type StateChangeEvent,
} from './protocol.js';
import { errnoCode } from '../sessions/reading.js';
import { ROLLUP_ORDER, type AgentState } from '../../core/types.js';
import { parseDialogField } from '../../core/records/dialog-field.js';

function connectError(path: string, error: unknown): ControlError {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') return new ControlError('denied', `not allowed to connect to ${path} (${code})`, { cause: error });
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK') {
    return new ControlError('unreachable', `no agentwrap session is listening at ${path}`, { cause: error });
  }
  return new ControlError('unreachable', `cannot connect to ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

interface Reply {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

function toReply(message: Readonly<Record<string, unknown>>): Reply {
  const error = isObject(message['error']) ? message['error'] : undefined;
  return { ok: message['ok'] === true, result: message['result'], ...(error === undefined ? {} : { error }) };
}

function replyError(reply: Reply): ControlError {
  const code = reply.error?.code;
  const known: readonly ControlErrorCode[] = ['bad-request', 'unknown-method', 'failed'];
  const message = typeof reply.error?.message === 'string' ? reply.error.message : 'the session refused the request';
  return new ControlError(known.includes(code as ControlErrorCode) ? (code as ControlErrorCode) : 'failed', message);
}

/**
 * Opens a connection, sends `request`, and calls `onMessage` for every line; resolves the
 * socket when `onMessage` first returns true. Rejects with ControlError on connect failure,
 * timeout or close before that.
 */
function converse(
  path: string,
  request: ControlRequest,
  timeoutMs: number,
  onMessage: (message: Readonly<Record<string, unknown>>, socket: Socket) => boolean,
): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(path);
    let settled = false;
    const settle = (error: ControlError | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error === undefined) {
        resolvePromise(socket);
      } else {
        socket.destroy();
        reject(error);
      }
    };
    const timer = setTimeout(() => settle(new ControlError('timeout', `no answer from ${path} within ${timeoutMs} ms`)), timeoutMs);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ id: 1, method: request.method, params: request.params ?? {} })}\n`);
    });
    socket.on('error', (error) => settle(connected ? new ControlError('closed', `connection to ${path} failed: ${error.message}`, { cause: error }) : connectError(path, error)));
    socket.on('close', () => settle(new ControlError('closed', `the session at ${path} closed the connection`)));
    socket.on(
      'data',
      lineReader(
        (line) => {
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch {
            settle(new ControlError('protocol', `the session at ${path} sent a line that is not JSON`));
            return;
          }
          // Keeps delivering after settling: a subscription's events follow its reply.
          if (isObject(message) && onMessage(message, socket)) settle(undefined);
        },
        () => settle(new ControlError('protocol', `the session at ${path} sent an overlong line`)),
      ),
    );
  });
}

/** One request, one reply: resolves the `result`, rejects with ControlError. */
export async function requestControl(path: string, request: ControlRequest, timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS): Promise<unknown> {
  if (request.method === 'subscribe') throw new ControlError('bad-request', 'use subscribeControl for subscribe');
  let reply: Reply | undefined;
  const socket = await converse(path, request, timeoutMs, (message) => {
    if (message['id'] !== 1 && message['id'] !== null) return false;
    reply = toReply(message);
    return true;
  });
  socket.destroy();
  if (reply === undefined) throw new ControlError('protocol', `no reply from ${path}`);
  if (!reply.ok) throw replyError(reply);
  return reply.result;
}

export interface ControlSubscription {
  /** Ends the subscription (disconnects). */
  close(): void;
  /** Resolves when the stream ends, by `close()` or because the session went away. */
  readonly closed: Promise<void>;
}

function isState(value: unknown): value is AgentState {
  return (ROLLUP_ORDER as readonly unknown[]).includes(value);
}

/**
 * A transition whose states are states: `to` is shown and acted on (the dashboard's row, `events`'
 * line), and a session is another process; an escape sequence there once drove the terminal.
 */
function isStateChangeEvent(value: unknown): value is StateChangeEvent {
  if (!isObject(value)) return false;
  const from = value['from'];
  return typeof value['t'] === 'number' && typeof value['session'] === 'string' && isState(value['to']) && (from === undefined || from === null || isState(from));
}

/**
 * One subscription over the control socket: asks `method`, passes each `event` line whose data
 * passes `isData` to `onData` until closed, and resolves once the session confirmed; rejects
 * with ControlError if it cannot be reached or refuses.
 */
async function subscribe<T>(
  path: string,
  method: 'subscribe' | 'screen',
  event: string,
  isData: (value: unknown) => value is T,
  onData: (data: T) => void,
  timeoutMs: number,
): Promise<ControlSubscription> {
  let reply: Reply | undefined;
  let isActive = true;
  const socket = await converse(path, { method }, timeoutMs, (message) => {
    if (message['event'] === event) {
      // The server subscribes before it replies, so an event may precede the reply line.
      if (isActive && isData(message['data'])) onData(message['data']);
      return false;
    }
    reply ??= toReply(message);
    return true;
  });
  if (reply === undefined || !reply.ok) {
    socket.destroy();
    throw reply === undefined ? new ControlError('protocol', `no reply from ${path}`) : replyError(reply);
  }
  const closed = new Promise<void>((resolvePromise) => {
    if (socket.destroyed) resolvePromise();
    socket.once('close', () => resolvePromise());
  });
  return {
    close: () => {
      isActive = false;
      socket.destroy();
    },
    closed,
  };
}

/** Subscribes to a session's state changes (`subscribe` method). */
export function subscribeControl(
  path: string,
  onEvent: (event: StateChangeEvent) => void,
  timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS,
): Promise<ControlSubscription> {
  // The dialog is screen text from another process: checked and bounded like a record's.
  const checked = (event: StateChangeEvent): void => {
    const { dialog: raw, ...rest } = event;
    const dialog = raw === undefined ? undefined : parseDialogField(raw);
    onEvent(dialog === undefined ? rest : { ...rest, dialog });
  };
  return subscribe(path, 'subscribe', 'state', isStateChangeEvent, checked, timeoutMs);
}

function isScreenPreview(value: unknown): value is ScreenPreview {
  if (!isObject(value)) return false;
  const { rows, cols, cursorRow, cursorCol } = value;
  return Array.isArray(rows) && rows.every((r) => typeof r === 'string') && typeof cols === 'number' && typeof cursorRow === 'number' && typeof cursorCol === 'number';
}

/** Streams a session's screen preview (`screen` method): the viewport at once and after every change. */
export function subscribeScreen(
  path: string,
  onScreen: (preview: ScreenPreview) => void,
  timeoutMs: number = DEFAULT_CONTROL_TIMEOUT_MS,
): Promise<ControlSubscription> {
  return subscribe(path, 'screen', 'screen', isScreenPreview, onScreen, timeoutMs);
}
