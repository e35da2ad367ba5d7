/**
 * The record's `dialog`: a live blocked dialog's question, options and digest (docs/answer.md),
 * so `status --json`, `events` and the dashboards can offer its options and `agentwrap answer`
 * can say which dialog it answers. Screen text, so it is made safe and bounded when written and
 * again when read back (another writer, or a hand-edited file, may have put anything there).
 */
import { DIALOG_LABEL_MAX_UNITS, DIALOG_MAX_OPTIONS, DIALOG_QUESTION_MAX_UNITS } from '../input-bounds.js';
import type { LiveDialog } from '../dialog/digest.js';
import { sanitizeTitle } from './session-record.js';

export interface PublishedDialog {
  readonly question: string;
  /** Option n is `options[n - 1]`; `agentwrap answer <session> n` chooses it. */
  readonly options: readonly string[];
  /** core/dialog/digest.ts: what an answer carries to say which dialog it is for. */
  readonly digest: string;
}

export function publishedDialog(dialog: LiveDialog): PublishedDialog {
  return { question: dialog.question, options: dialog.options, digest: dialog.digest };
}

/** A `dialog` value read from elsewhere, or undefined when it is not one (dropped, not the record). */
export function parseDialogField(value: unknown): PublishedDialog | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { question, options, digest } = value as Readonly<Record<string, unknown>>;
  if (typeof question !== 'string' || typeof digest !== 'string' || !/^[0-9a-f]{16}$/.test(digest)) return undefined;
  if (!Array.isArray(options) || options.length === 0 || options.length > DIALOG_MAX_OPTIONS || !options.every((o) => typeof o === 'string')) return undefined;
  return {
    question: sanitizeTitle(question, DIALOG_QUESTION_MAX_UNITS),
    options: options.map((o: string) => sanitizeTitle(o, DIALOG_LABEL_MAX_UNITS)),
    digest,
  };
}
