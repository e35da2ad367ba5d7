/**
 * Where a session's control socket lives (socket.ts serves it). Apart from the server so
 * that the launch, which fixes the path before the agent starts (it goes into the agent's
 * environment), loads only this and the state directory's checks, not the protocol, the client
 * and their modules: ~25-50 ms of module loading on a loaded 2-core machine that the agent's
 * first byte waited for.
 */
import { dirname, join } from 'node:path';
import { fnv1a32 } from '../../core/records/session-record.js';
import { ensurePrivateDir, ensureStateDirs, stateLayout, StateDirError, type StateEnv } from '../../adapters/state-dir.js';
import { UNIX_SOCKET_PATH_MAX_BYTES } from './protocol.js';

export interface SocketPathInput {
  readonly root: string;
  readonly key: string;
  readonly env: StateEnv;
  readonly uid: number | undefined;
}

function fits(path: string): boolean {
  return Buffer.byteLength(path, 'utf8') <= UNIX_SOCKET_PATH_MAX_BYTES;
}

/**
 * Candidate socket paths, best first: `<root>/sockets/<key>.sock`, then a short hashed name
 * there, then `$XDG_RUNTIME_DIR/agentwrap/<hash>.sock`, then `/tmp/agentwrap-<uid>/<hash>.sock`.
 * Only paths that fit sun_path are returned. Pure.
 */
export function controlSocketCandidates(input: SocketPathInput): string[] {
  const hashed = `${fnv1a32(`${input.root}\0${input.key}`)}.sock`;
  const sockets = stateLayout(input.root).socketsDir;
  const candidates = [join(sockets, `${input.key}.sock`), join(sockets, hashed)];
  const runtime = input.env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime.startsWith('/')) candidates.push(join(runtime, 'agentwrap', hashed));
  candidates.push(join('/tmp', `agentwrap-${input.uid ?? 'user'}`, hashed));
  return candidates.filter(fits);
}

/**
 * Picks the socket path and prepares its directory (0700, ours, strict). Under the state root
 * the root is verified too (ensureStateDirs). Throws StateDirError when no candidate is safe.
 */
export function prepareControlSocketPath(input: SocketPathInput): string {
  const socketsDir = stateLayout(input.root).socketsDir;
  let lastError: unknown = new StateDirError(input.root, `no control socket path fits the ${UNIX_SOCKET_PATH_MAX_BYTES}-byte Unix socket limit`);
  for (const path of controlSocketCandidates(input)) {
    const dir = dirname(path);
    if (dir === socketsDir) {
      // Under the state root a refusal is final: falling back elsewhere would hide tampering.
      ensureStateDirs(input.root, input.uid);
      ensurePrivateDir(dir, { uid: input.uid, strict: true });
      return path;
    }
    try {
      ensurePrivateDir(dir, { uid: input.uid, strict: true });
      return path;
    } catch (error) {
      // A fallback directory that is unusable (another user's /tmp/agentwrap-<uid>): try the next.
      lastError = error;
    }
  }
  throw lastError;
}
