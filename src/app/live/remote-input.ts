/**
 * Answers and prompts from elsewhere (`agentwrap answer` / `send`, `status --watch`, the web
 * dashboard), typed into the agent through the session's control socket. The session re-reads
 * the dialog on its own screen at the moment of answering and types the keys only if it is the
 * dialog the answerer saw (core/dialog/answer.ts); every answer and prompt, sent or refused, is
 * noted with who sent it, from where and when, for `status explain`.
 */
import { decideAnswer, decidePrompt } from '../../core/dialog/answer.js';
import type { LiveDialog } from '../../core/dialog/digest.js';
import { readDialog } from '../../core/dialog/read.js';
import { REMOTE_INPUT_NOTES_MAX, REMOTE_PROMPT_MAX_CHARS } from '../../core/input-bounds.js';
import { packInputFromSnapshot } from '../../core/packs/evaluate.js';
import { sanitizeTitle } from '../../core/records/session-record.js';
import { forTerminal } from '../../core/text/sanitize.js';
import type { ControlParams } from '../control/protocol.js';
import type { DetectorSession } from '../session.js';

/**
 * Between a prompt's text and the Enter that submits it: agents that take a burst of input as a
 * paste (Claude Code) read an Enter inside it as a new line, not as "send".
 */
export const PROMPT_SUBMIT_DELAY_MS = 120;

/** Where an answer or a prompt came from, as the client says (the socket admits only this user). */
export type RemoteVia = 'socket' | 'host' | 'web' | 'watch';
const VIAS: readonly RemoteVia[] = ['socket', 'host', 'web', 'watch'];

export interface RemoteInputNote {
  /** Wall time, Unix ms. */
  readonly t: number;
  readonly kind: 'answer' | 'prompt';
  /** The uid the session runs as: only it can reach the socket. */
  readonly uid: number | null;
  readonly user: string;
  readonly via: RemoteVia;
  /** The far side: `user@host` for --host, the dashboard's address for web; '' for a local socket. */
  readonly from: string;
  readonly sent: boolean;
  /** What was chosen or typed, or why it was refused. */
  readonly detail: string;
}

export interface RemoteInputParts {
  readonly detector: Pick<DetectorSession, 'state' | 'currentPack' | 'snapshot'>;
  /** Types into the agent, as if from the keyboard (the input taps see it too). */
  readonly writeAgent: (data: string) => void;
  readonly wallMs: () => number;
  /** After typing: evaluate soon, so the new state is published within the tick. */
  readonly onTyped: () => void;
  readonly uid: number | null;
}

export interface RemoteInput {
  /** The blocked dialog on screen now, read with the pack's `[[dialog]]` tables (undefined when not blocked). */
  liveDialog(): LiveDialog | undefined;
  answer(params: ControlParams): unknown;
  send(params: ControlParams): unknown;
  notes(): readonly RemoteInputNote[];
}

function word(value: unknown, max: number): string {
  return typeof value === 'string' ? sanitizeTitle(value, max) : '';
}

export function createRemoteInput(parts: RemoteInputParts): RemoteInput {
  const notes: RemoteInputNote[] = [];
  const note = (kind: RemoteInputNote['kind'], params: ControlParams, sent: boolean, detail: string): void => {
    const via = VIAS.find((v) => v === params['via']) ?? 'socket';
    notes.push({ t: parts.wallMs(), kind, uid: parts.uid, user: word(params['user'], 64), via, from: word(params['from'], 128), sent, detail: sanitizeTitle(detail, 300) });
    if (notes.length > REMOTE_INPUT_NOTES_MAX) notes.splice(0, notes.length - REMOTE_INPUT_NOTES_MAX);
  };
  const liveDialog = (): LiveDialog | undefined => {
    const session = parts.detector.state.session;
    const pack = parts.detector.currentPack;
    if (session.state !== 'blocked' || pack === undefined) return undefined;
    return readDialog(pack.compiled.pack, packInputFromSnapshot(parts.detector.snapshot()), session.ruleId ?? null);
  };
  return {
    liveDialog,
    answer(params) {
      const option = params['option'];
      const digest = params['digest'];
      if (typeof option !== 'number' || typeof digest !== 'string') throw new Error('answer needs "option" (a number) and "digest" (the dialog it answers)');
      const decision = decideAnswer(parts.detector.state.session.state, liveDialog(), option, digest);
      if (!decision.ok) {
        note('answer', params, false, `option ${option} refused: ${decision.message}`);
        return { sent: false, code: decision.code, message: decision.message };
      }
      parts.writeAgent(decision.keys);
      parts.onTyped();
      note('answer', params, true, `option ${option} "${decision.label}"`);
      return { sent: true, option, label: decision.label };
    },
    send(params) {
      const raw = params['text'];
      if (typeof raw !== 'string' || raw.trim() === '') throw new Error('send needs "text" (the prompt to type)');
      if (raw.length > REMOTE_PROMPT_MAX_CHARS) throw new Error(`a prompt is at most ${REMOTE_PROMPT_MAX_CHARS} characters; this one is ${raw.length}`);
      // One line, nothing a terminal would act on: the prompt is text, never keys.
      const text = forTerminal(raw).trim();
      const state = parts.detector.state.session.state;
      const decision = decidePrompt(state, params['force'] === true);
      if (!decision.ok) {
        note('prompt', params, false, `refused: ${decision.message}`);
        return { sent: false, code: 'busy', message: decision.message };
      }
      parts.writeAgent(text);
      setTimeout(() => {
        parts.writeAgent('\r');
        parts.onTyped();
      }, PROMPT_SUBMIT_DELAY_MS).unref();
      note('prompt', params, true, `${text.length} characters${state === 'idle' || state === 'done' || state === 'unknown' ? '' : ` while ${state} (forced)`}`);
      return { sent: true, characters: text.length };
    },
    notes: () => notes.slice(),
  };
}
