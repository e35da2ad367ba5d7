/** Pack regexes: RE2 (linear time, no look-around), compiled with the pack's flags; why a pattern is refused. */
import RE2 from 're2';

/** RE2 flags every pack regex is compiled with: case-insensitive, Unicode. */
export const PACK_REGEX_FLAGS = 'iu';

/**
 * Why RE2 rejects a pattern, naming the construct when it is one RE2 never supports
 * (RE2 guarantees linear time, so it has no look-around and no backreferences).
 */
export function explainRegexError(pattern: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  const constructs: readonly [RegExp, string][] = [
    [/\(\?<[=!]/, 'look-behind'],
    [/\(\?[=!]/, 'look-ahead'],
    [/\\[1-9]|\\k</, 'a backreference'],
    [/\(\?>/, 'an atomic group'],
    [/[*+?}][+]/, 'a possessive quantifier'],
  ];
  for (const [probe, name] of constructs) {
    const found = probe.exec(pattern);
    if (found !== null) {
      return `regex '${pattern}' uses ${name} \`${found[0]}\`, which RE2 does not support (${detail})`;
    }
  }
  return `regex '${pattern}' is not valid RE2: ${detail}`;
}

/** Compiles once to check; returns the reason when RE2 rejects the pattern. */
export function checkRegex(pattern: string): string | undefined {
  try {
    new RE2(pattern, PACK_REGEX_FLAGS);
    return undefined;
  } catch (error) {
    return explainRegexError(pattern, error);
  }
}
