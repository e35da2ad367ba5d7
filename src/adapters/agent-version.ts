/**
 * The installed agent's version, found without running the agent (running `claude --version`
 * at launch would cost time and could have side effects): resolve the executable on PATH,
 * follow symlinks, and read the version of the npm package behind it (the nearest
 * package.json with a name and a version above the real file), or a version-named path
 * segment (`…/versions/2.1.3`, as native installers lay binaries out).
 */
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';

export interface AgentVersion {
  readonly version: string;
  /** The package.json or path the version was read from. */
  readonly source: string;
  /** The executable after following symlinks. */
  readonly executable: string;
}

/** How far above the executable to look for its package.json (bin/ → package root is 1–3). */
const MAX_PACKAGE_JSON_LEVELS = 6;
const VERSION_SEGMENT = /^v?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$/;

/** The first executable file named `command` on PATH (or `command` itself when it has a slash). */
export function resolveOnPath(command: string, pathValue: string | undefined): string | undefined {
  const candidates = command.includes('/')
    ? [command]
    : (pathValue ?? '').split(delimiter).filter((dir) => isAbsolute(dir)).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here or not executable: PATH lookup moves on to the next directory, as a shell would.
    }
  }
  return undefined;
}

function readPackageVersion(path: string): { name: string; version: string } | undefined {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof json.name === 'string' && typeof json.version === 'string') return { name: json.name, version: json.version };
  } catch {
    // No package.json at this level, or not JSON: keep walking up.
  }
  return undefined;
}

/** The version behind an executable path; undefined when nothing says. */
export function versionOfExecutable(executable: string): AgentVersion | undefined {
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    // A dangling symlink or a vanished file: no version, which only costs a warning in explain.
    return undefined;
  }
  let dir = dirname(real);
  for (let level = 0; level < MAX_PACKAGE_JSON_LEVELS; level++) {
    const found = readPackageVersion(join(dir, 'package.json'));
    if (found !== undefined) return { version: found.version, source: join(dir, 'package.json'), executable: real };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const segment of [basename(real), basename(dirname(real))]) {
    const match = VERSION_SEGMENT.exec(segment);
    if (match?.[1] !== undefined) return { version: match[1], source: real, executable: real };
  }
  return undefined;
}

/** Resolves `command` on `env.PATH` and reads its version. */
export function detectAgentVersion(command: string, env: NodeJS.ProcessEnv): AgentVersion | undefined {
  const executable = resolveOnPath(command, env['PATH']);
  return executable === undefined ? undefined : versionOfExecutable(executable);
}
