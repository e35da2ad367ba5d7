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

/**
 * Where a detected agent version sits relative to the pack's `validated_versions`: inside it,
 * newer than every version it allows (the usual case: the agent shipped a release since the
 * pack was recorded), older than all of them, or in a gap between its alternatives.
 */
export type VersionStatus = 'inside' | 'newer' | 'older' | 'between' | 'unparsable';

export function versionStatus(version: string, validatedVersions: string): VersionStatus {
  const parsed = parseVersionRange(validatedVersions);
  const clean = semver.valid(semver.coerce(version, { includePrerelease: true }));
  if (!parsed.ok || clean === null) return 'unparsable';
  const options = { includePrerelease: true };
  if (semver.satisfies(clean, parsed.range, options)) return 'inside';
  if (semver.gtr(clean, parsed.range, options)) return 'newer';
  if (semver.ltr(clean, parsed.range, options)) return 'older';
  return 'between';
}

/** What to tell a person about a version outside the pack's span: how loud, what, what to do. */
export interface VersionAdvice {
  /** `note`: normal, said once per release. `warning`: worth saying every time. */
  readonly level: 'note' | 'warning';
  readonly text: string;
  readonly todo: string;
}

/**
 * A release newer than the pack is what every user meets between two recordings of the agent:
 * its screens usually still match, so it is a note, said once per release. An older release, one
 * in a gap of the span, or a version that cannot be compared is a warning.
 */
export function versionAdvice(agent: string, version: string, validatedVersions: string, status: VersionStatus): VersionAdvice | undefined {
  const span = `"${validatedVersions}"`;
  switch (status) {
    case 'inside':
      return undefined;
    case 'newer':
      return {
        level: 'note',
        text: `${agent} ${version} is newer than the releases its pack was checked on (${span}); newer releases usually still match`,
        // The drift run is what takes a release into the pack's span: named here so whoever
        // maintains the pack sees the command where the release is first met.
        todo: `if a state looks wrong, \`agentwrap status explain <session>\` shows which rules match, and \`agentwrap status capture <session>\` saves the screen to send; in agentwrap's own checkout, \`npm run drift -- --agent ${agent} --version ${version}\` records this release and widens the pack when it passes (docs/capture.md)`,
      };
    case 'older':
      return {
        level: 'warning',
        text: `${agent} ${version} is older than every release its pack was checked on (${span}); its screens may differ`,
        todo: `update ${agent}, or write a user pack for this release (docs/packs.md)`,
      };
    case 'between':
      return {
        level: 'warning',
        text: `${agent} ${version} falls in a gap of its pack's checked releases (${span}); its screens may differ`,
        todo: `use a release the pack was checked on, or write a user pack (docs/packs.md)`,
      };
    case 'unparsable':
      return {
        level: 'warning',
        text: `${agent} ${version} cannot be compared with its pack's checked releases (${span})`,
        todo: '`agentwrap status explain <session>` shows whether the rules match its screens',
      };
  }
}
