/**
 * The `disagreement` field of a session record: the agent's own report (OSC 7501) and the pack's
 * screen rules have read different states for longer than any debounce hold
 * (core/detector/program-status.ts). `doctor` and `packs list` read it from live sessions to
 * mark the pack as possibly stale for the running release. Additive and optional: a malformed
 * one is dropped, never the record.
 */
const STATES: readonly string[] = ['working', 'blocked', 'idle'];
const RULE_ID_MAX_CHARS = 64;

export interface DisagreementNote {
  /** What the agent said, mapped to agentwrap's states (done and error are idle). */
  readonly reported: 'working' | 'blocked' | 'idle';
  /** What the pack's strong rules read. */
  readonly screen: 'working' | 'blocked' | 'idle';
  /** The rule that read `screen`, when one did. */
  readonly rule_id: string | null;
  /** Unix ms the two began to disagree. */
  readonly since: number;
}

/** The note as written, or undefined for anything that is not one. */
export function parseDisagreementNote(value: unknown): DisagreementNote | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { reported, screen, rule_id, since } = value as Record<string, unknown>;
  if (typeof reported !== 'string' || !STATES.includes(reported)) return undefined;
  if (typeof screen !== 'string' || !STATES.includes(screen) || screen === reported) return undefined;
  if (rule_id !== null && (typeof rule_id !== 'string' || !/^[A-Za-z0-9._:-]{1,64}$/.test(rule_id))) return undefined;
  if (typeof since !== 'number' || !Number.isFinite(since) || since < 0) return undefined;
  return { reported: reported as DisagreementNote['reported'], screen: screen as DisagreementNote['screen'], rule_id: rule_id?.slice(0, RULE_ID_MAX_CHARS) ?? null, since };
}
