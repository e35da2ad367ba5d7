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

/**
 * Every pattern compiled once per process, for parsePack's check and compilePack alike: the check
 * used to compile each one and throw the result away, then compilePack compiled it again, and
 * every re-read of a pack (hot reload, `packs check`) did both once more (the checks were over
 * half of parsePack's time). Sharing is safe: pack regexes have no `g`/`y` flag, so `test` keeps
 * no state on the object. Cleared when full, so edits to a pack cannot grow it without bound.
 */
const compiled = new Map<string, RE2 | Error>();
const COMPILED_MAX = 4096;

/** The pattern compiled with PACK_REGEX_FLAGS, or why RE2 rejects it. */
export function packRegex(pattern: string): RE2 | Error {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = new RE2(pattern, PACK_REGEX_FLAGS);
    } catch (error) {
      entry = error instanceof Error ? error : new Error(String(error));
    }
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(pattern, entry);
  }
  return entry;
}

/** The reason when RE2 rejects the pattern (compiled once: packRegex). */
export function checkRegex(pattern: string): string | undefined {
  const entry = packRegex(pattern);
  return entry instanceof Error ? explainRegexError(pattern, entry) : undefined;
}
