/**
 * OSC 7501 program status, as agents write it: `7501;key=value:key=value…` (docs/signals.md).
 * Keys: state (working|blocked|done|idle|error, or `clear`), kind, progress (0–100), id, app,
 * msg (base64). Output is the agent's, so every value is hostile until bounded: lengths are
 * capped, control characters dropped, progress clamped, unknown keys and states ignored.
 */
import { Buffer } from 'node:buffer';
import type { ProgramStatus, ProgramStatusState } from '../../core/types.js';
import {
  PROGRAM_STATUS_MAX_INPUT_CHARS,
  PROGRAM_STATUS_MAX_MSG_CHARS,
  PROGRAM_STATUS_MAX_VALUE_CHARS,
} from './constants.js';

/** What one sequence says: a report, `clear` (no report any more), or nothing we can use. */
export type ProgramStatusParse =
  | { readonly kind: 'report'; readonly status: ProgramStatus }
  | { readonly kind: 'clear' }
  | { readonly kind: 'ignored' };

const STATES: ReadonlySet<string> = new Set<ProgramStatusState>(['working', 'blocked', 'done', 'idle', 'error']);
const IGNORED: ProgramStatusParse = Object.freeze({ kind: 'ignored' });
const CLEAR: ProgramStatusParse = Object.freeze({ kind: 'clear' });

/**
 * Parses the data after `7501;`. A probe (`?`, Claude Code's question to its terminal) and a
 * sequence without a known state are ignored: the previous report stands.
 */
export function parseProgramStatus(data: string, atMs: number): ProgramStatusParse {
  if (data.startsWith('?')) return IGNORED;
  // Only the head is read: a megabyte payload costs no more than a normal one.
  const fields = new Map<string, string>();
  for (const pair of data.slice(0, PROGRAM_STATUS_MAX_INPUT_CHARS).split(':')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq);
    if (!fields.has(key)) fields.set(key, pair.slice(eq + 1));
  }
  const state = fields.get('state');
  if (state === 'clear') return CLEAR;
  if (state === undefined || !STATES.has(state)) return IGNORED;
  return {
    kind: 'report',
    status: Object.freeze({
      state: state as ProgramStatusState,
      kind: cleanValue(fields.get('kind'), PROGRAM_STATUS_MAX_VALUE_CHARS),
      progress: parsePercent(fields.get('progress')),
      id: cleanValue(fields.get('id'), PROGRAM_STATUS_MAX_VALUE_CHARS),
      app: cleanValue(fields.get('app'), PROGRAM_STATUS_MAX_VALUE_CHARS),
      msg: decodeMessage(fields.get('msg')),
      atMs,
    }),
  };
}

/** 0–100, clamped; undefined when absent or not a number. */
function parsePercent(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(-?\d{1,9})(?:\.\d*)?\s*$/.exec(text);
  if (match?.[1] === undefined) return undefined;
  return Math.min(Math.max(Number(match[1]), 0), 100);
}

/** Base64 (standard or URL alphabet) → text without control characters, bounded. */
function decodeMessage(encoded: string | undefined): string | undefined {
  if (encoded === undefined) return undefined;
  // 4 base64 characters carry 3 bytes; decode only what the bound can use (UTF-8: at most 4 bytes a character).
  const head = encoded.slice(0, Math.ceil((PROGRAM_STATUS_MAX_MSG_CHARS * 4) / 3) * 4);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(head)) return undefined;
  return cleanValue(Buffer.from(head, 'base64').toString('utf8'), PROGRAM_STATUS_MAX_MSG_CHARS);
}

/** Control characters (C0, DEL, C1) become spaces, runs of space collapse; empty → undefined. */
function cleanValue(text: string | undefined, maxChars: number): string | undefined {
  if (text === undefined) return undefined;
  const clean = text
    .slice(0, maxChars * 2)
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return undefined;
  const chars = [...clean];
  // A fresh string, not a slice: a slice would keep the whole payload alive.
  return chars.length <= maxChars ? Buffer.from(clean, 'utf8').toString('utf8') : chars.slice(0, maxChars).join('');
}
