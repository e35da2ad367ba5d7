/**
 * A bundled pack's `validated_versions` is a claim about the committed corpus: it must say exactly
 * the span of releases its agent's recordings verify (every recording's `.meta.json` names the
 * release that drew it; older releases live under recordings/<agent>/releases/<version>/). A
 * recorded release outside the range would warn its users for nothing; a range reaching past the
 * newest or below the oldest recorded release would promise what nobody checked.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parseVersionRange, versionStatus } from '../../src/core/packs/versions.js';
import { ROOT } from '../helpers/cli.js';

const RECORDINGS = join(ROOT, 'recordings');
const AGENTS = readdirSync(RECORDINGS).filter((name) => statSync(join(RECORDINGS, name)).isDirectory());

function recordedVersions(dir: string): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) for (const v of recordedVersions(path)) found.add(v);
    else if (name.endsWith('.meta.json')) {
      const version = (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version;
      if (typeof version !== 'string') throw new Error(`${path}: no version`);
      found.add(version);
    }
  }
  return [...found].sort(semver.compare);
}

describe('validated_versions of the bundled packs', () => {
  it.each(AGENTS)('%s: the range is exactly the span of the recorded releases', (agent) => {
    const versions = recordedVersions(join(RECORDINGS, agent));
    const pack = parse(readFileSync(join(ROOT, 'packs', `${agent}.toml`), 'utf8')) as { validated_versions: string };
    const range = parseVersionRange(pack.validated_versions);
    if (!range.ok) throw new Error(range.reason);
    const oldest = versions[0];
    const newest = versions.at(-1);
    if (oldest === undefined || newest === undefined) throw new Error(`recordings/${agent}: no recording names its release`);

    for (const v of versions) expect(versionStatus(v, pack.validated_versions), `${agent} ${v} is recorded`).toBe('inside');
    expect(semver.minVersion(range.range)?.version, `${agent}: the range starts at the oldest recorded release`).toBe(oldest);
    expect(versionStatus(semver.inc(newest, 'patch') ?? '', pack.validated_versions), `${agent}: nothing newer than ${newest} is claimed`).toBe('newer');
  });
});
