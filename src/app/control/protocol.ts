/**
 * The control socket's protocol, shared by its server (socket.ts) and its clients
 * (client.ts): methods, messages, limits, errors, and the line framing.
 */
import type { AgentState } from '../../core/types.js';
import type { PublishedDialog } from '../../core/records/dialog-field.js';

export const CONTROL_PROTOCOL_VERSION = 1;

/** sun_path is 108 bytes on Linux including the terminating NUL (104 on macOS: we stay under both with fallbacks). */
export const UNIX_SOCKET_PATH_MAX_BYTES = 103;

/** A request line longer than this closes the connection (agent hook reports are small). */
export const CONTROL_LINE_MAX_BYTES = 1024 * 1024;

export const DEFAULT_CONTROL_TIMEOUT_MS = 3_000;

export type ControlMethod = 'ping' | 'explain' | 'capture' | 'ack' | 'subscribe' | 'report' | 'history' | 'screen' | 'answer' | 'send';

export const METHODS: readonly ControlMethod[] = ['ping', 'explain', 'capture', 'ack', 'subscribe', 'report', 'history', 'screen', 'answer', 'send'];

export type ControlParams = Readonly<Record<string, unknown>>;

export interface ControlRequest {
  readonly method: ControlMethod;
  readonly params?: ControlParams;
}

/** One transition as `events` prints it; `from` is null for the first line of a session. */
export interface StateChangeEvent {
  /** Unix ms. */
  readonly t: number;
  /** The session's record key. */
  readonly session: string;
  readonly agent: string;
  readonly from: AgentState | null;
  readonly to: AgentState;
  readonly winner: string | null;
  readonly rule_id: string | null;
  /**
   * The record's `reason` at the change: the cause it names (`usage-limit`, `rate-limited`,
   * `overloaded`, `auth`, `network`, `api-error`…), a rule's reason or a blocked report's kind;
   * absent or null when none. A change of cause alone is an event too, with `from` equal to `to`.
   */
  readonly reason?: string | null;
  /** A `to: blocked` whose dialog the pack reads: its question, options and digest (docs/answer.md). */
  readonly dialog?: PublishedDialog;
}

/**
 * What the live session answers. Results must be JSON-serializable; a handler that throws
 * answers `{ok: false, error: {code: "failed"}}` and the connection stays open.
 */
export interface ControlHandlers {
  explain(params: ControlParams): unknown;
  capture(params: ControlParams): unknown;
  /** done → idle (marks the session seen). */
  ack(params: ControlParams): unknown;
  /** Agent hook events (`agentwrap report`). */
  report(params: ControlParams): unknown;
  /** Calls `emit` on every published state change until the returned function is called. */
  subscribe(emit: (event: StateChangeEvent) => void): () => void;
  /** Extra fields for `ping` (e.g. the session key). */
  info?(): ControlParams;
  /** The published transitions of the last hour (core/state-history), for `agentwrap dashboard`. */
  history?(params: ControlParams): unknown;
  /**
   * The screen preview stream (`status --watch`): calls `emit` with the viewport now and after
   * each change until the returned function is called. Absent: the method is refused.
   */
  screen?(emit: (preview: ScreenPreview) => void): () => void;
  /**
   * `{option, digest, user, via, from}`: chooses option `option` of the blocked dialog whose digest
   * is `digest`, only if that dialog still shows (app/live/remote-input.ts). Absent: refused.
   */
  answer?(params: ControlParams): unknown;
  /** `{text, force, user, via, from}`: types a prompt into an agent that waits for one. Absent: refused. */
  send?(params: ControlParams): unknown;
}

/** The viewport as the dashboard previews it: text rows, no attributes. */
export interface ScreenPreview {
  readonly rows: readonly string[];
  readonly cols: number;
  readonly cursorRow: number;
  readonly cursorCol: number;
}

export type ControlErrorCode = 'unreachable' | 'denied' | 'timeout' | 'closed' | 'protocol' | 'bad-request' | 'unknown-method' | 'failed';

export class ControlError extends Error {
  override readonly name = 'ControlError';
  readonly code: ControlErrorCode;

  constructor(code: ControlErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Splits a byte stream into lines; calls `onOverflow` when a line exceeds the limit. */
export function lineReader(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') onLine(line);
      newline = pending.indexOf('\n');
    }
    if (pending.length > CONTROL_LINE_MAX_BYTES) {
      pending = '';
      onOverflow();
    }
  };
}
