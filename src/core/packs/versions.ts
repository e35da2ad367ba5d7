/** A pack's `validated_versions`: the semver range it was checked against, and where a version sits. */
import semver from 'semver';

/**
 * The `validated_versions` range parsed with semver, or why it is refused. Commas between
 * comparators (Cargo style, as in `">=2.1.0, <2.3.0"`) mean AND, like spaces. Every `||`
 * alternative needs an upper bound (`<`, `<=`, an exact version, `^`, `~`, `2.x`), so a pack
 * never claims to be validated for versions nobody has seen.
 */
export function parseVersionRange(text: string): { ok: true; range: semver.Range } | { ok: false; reason: string } {
  const normalized = text.replace(/\s*,\s*/g, ' ').trim();
  if (normalized === '') return { ok: false, reason: 'validated_versions is empty' };
  let range: semver.Range;
  try {
    range = new semver.Range(normalized);
  } catch (error) {
    return { ok: false, reason: `validated_versions "${text}" is not a semver range: ${error instanceof Error ? error.message : String(error)}` };
  }
  for (const alternative of range.set) {
    const bounded = alternative.some(
      (c) => c.operator === '<' || c.operator === '<=' || (c.operator === '' && c.value !== ''),
    );
    if (!bounded) {
      return {
        ok: false,
        reason: `validated_versions "${text}" has no upper bound (write e.g. ">=2.1.0, <2.3.0")`,
      };
    }
  }
  return { ok: true, range };
}

/** Where a detected agent version sits relative to the pack's `validated_versions`. */
export function versionStatus(version: string, validatedVersions: string): 'inside' | 'outside' | 'unparsable' {
  const parsed = parseVersionRange(validatedVersions);
  const clean = semver.valid(semver.coerce(version, { includePrerelease: true }));
  if (!parsed.ok || clean === null) return 'unparsable';
  return semver.satisfies(clean, parsed.range, { includePrerelease: true }) ? 'inside' : 'outside';
}
