/**
 * A dialog's identity: a digest of its question and options as shown. An answer carries the
 * digest of the dialog it was meant for, and the session types the keys only while the dialog
 * on screen has the same one (answer.ts). Not a secret and not a defence against anyone who can
 * already reach the socket: it tells one dialog from the next, so two 32-bit FNV-1a hashes with
 * different offsets (64 bits) make an accidental match between two real dialogs negligible.
 */

export interface LiveDialog {
  /** The `[[dialog]]` table that read it. */
  readonly id: string;
  readonly question: string;
  /** Option labels in screen order; option n is `options[n - 1]`. */
  readonly options: readonly string[];
  /** The keys that choose each option, in the same order (never published: the session owns them). */
  readonly keys: readonly string[];
  readonly digest: string;
}

function fnv1a32(text: string, offset: number): number {
  let hash = offset >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** 16 hex digits over the question and the labels (never the keys or the pointer glyph: moving the selection is the same dialog). */
export function dialogDigest(question: string, options: readonly string[]): string {
  const text = [question, ...options].join('\n');
  const a = fnv1a32(text, 0x811c9dc5);
  const b = fnv1a32(text, 0x050c5d1f);
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}
