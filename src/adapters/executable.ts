/** Finding the executable to run, as a shell would, before anything is spawned. */
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type ResolvedExecutable =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: 'not-found' | 'not-executable'; readonly path: string };

/** Finds `name` the way a shell does: a name with a slash is a path, otherwise search PATH. */
export function resolveExecutable(name: string, env: NodeJS.ProcessEnv, cwd: string): ResolvedExecutable {
  const candidates = name.includes('/')
    ? [name.startsWith('/') ? name : join(cwd, name)]
    : (env['PATH'] ?? '').split(delimiter).map((dir) => join(dir === '' ? '.' : dir.startsWith('/') ? dir : join(cwd, dir), name));
  let sawNonExecutable: string | undefined;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
    } catch {
      // Absent in this PATH entry: try the next one, as execvp does.
      continue;
    }
    try {
      accessSync(candidate, fsConstants.X_OK);
      return { ok: true, path: candidate };
    } catch {
      // Present but not executable: a later PATH entry may still have a runnable one.
      sawNonExecutable ??= candidate;
    }
  }
  return sawNonExecutable === undefined
    ? { ok: false, reason: 'not-found', path: name }
    : { ok: false, reason: 'not-executable', path: sawNonExecutable };
}
