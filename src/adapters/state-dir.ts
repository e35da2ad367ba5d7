/**
 * The Agent Status Providers root (convention §1) and the safety checks of shared/seeds/001:
 * a directory agentwrap writes into must be a real directory (not a symlink), owned by the
 * current user and not writable by group or others. Directories above the root are trusted,
 * as in the seed ("directories above the config home are trusted and may be symlinks").
 *
 * Race-awareness: every check opens the path with O_NOFOLLOW|O_DIRECTORY and inspects the open
 * descriptor (fstat), so a symlink swapped in between a check and its use of the same name is
 * refused by the kernel rather than followed. Once the root is known to be ours and closed to
 * others, only this user (or root) can replace anything inside it.
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export class StateDirError extends Error {
  override readonly name = 'StateDirError';
  readonly path: string;
  readonly reason: string;

  /**
   * `isRefusal: false` for a directory that is fine but cannot be used (no permission, a
   * read-only or full disk): the message then says what failed rather than "refusing".
   */
  constructor(path: string, reason: string, options: { cause?: unknown; isRefusal?: boolean } = {}) {
    super(`${options.isRefusal === false ? '' : 'refusing '}${path}: ${reason}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.path = path;
    this.reason = reason;
  }
}

/** The root plus the two convention subdirectories and agentwrap's socket directory. */
export interface StateLayout {
  readonly root: string;
  readonly sessionsDir: string;
  readonly providersDir: string;
  readonly socketsDir: string;
}

export type StateEnv = Readonly<Record<string, string | undefined>>;

/** Convention §1: `$AGENT_STATUS_DIR`, else `$XDG_RUNTIME_DIR/agent-status`, else `~/.local/state/agent-status`. */
export function resolveStateRoot(env: StateEnv, homeDir: string = homedir()): string {
  const explicit = env['AGENT_STATUS_DIR'];
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const runtime = env['XDG_RUNTIME_DIR'];
  // The XDG spec requires an absolute path; a relative one is ignored as invalid.
  if (runtime !== undefined && runtime !== '' && isAbsolute(runtime)) return join(runtime, 'agent-status');
  return join(homeDir, '.local', 'state', 'agent-status');
}

export function stateLayout(root: string): StateLayout {
  return {
    root,
    sessionsDir: join(root, 'sessions'),
    providersDir: join(root, 'providers'),
    socketsDir: join(root, 'sockets'),
  };
}

/** The user whose directories these must be; undefined where the platform has no uids. */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

export interface DirCheckOptions {
  /** Expected owner; undefined skips the owner check (no uids on this platform). */
  readonly uid: number | undefined;
  /**
   * Refuse any group/other permission bit, not only write. Used for directories agentwrap
   * alone creates (sockets); the shared root may be readable by others when another tool made it.
   */
  readonly strict?: boolean;
}

const DIR_OPEN_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The cause of a failed system call in words, with its code: `permission denied (EACCES)`. */
export function describeErrno(error: unknown): string {
  const code = errnoCode(error);
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    ENOENT: 'a parent directory does not exist',
    ENOTDIR: 'a parent is not a directory',
    ELOOP: 'too many symbolic links',
    EMFILE: 'too many open files',
  };
  if (code === undefined) return error instanceof Error ? error.message : String(error);
  const text = words[code];
  return text === undefined ? code : `${text} (${code})`;
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

function refuseReason(stats: Stats, options: DirCheckOptions): string | undefined {
  if (!stats.isDirectory()) return 'not a directory';
  if (options.uid !== undefined && stats.uid !== options.uid) {
    return `owned by another user (uid ${stats.uid}, expected ${options.uid})`;
  }
  if ((stats.mode & 0o022) !== 0) return `writable by group or others (mode ${octal(stats.mode)})`;
  if (options.strict === true && (stats.mode & 0o077) !== 0) return `accessible by group or others (mode ${octal(stats.mode)})`;
  return undefined;
}

/**
 * Verifies an existing directory without following a symlink at `path`; throws StateDirError
 * naming the path and the reason, or rethrows ENOENT so callers can create it.
 */
export function checkPrivateDir(path: string, options: DirCheckOptions): void {
  let fd: number;
  try {
    fd = openSync(path, DIR_OPEN_FLAGS);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') throw error;
    if (code === 'ELOOP') throw new StateDirError(path, 'it is a symbolic link', { cause: error });
    if (code === 'ENOTDIR') {
      // ENOTDIR also comes back for a symlink to a non-directory; tell them apart for the message.
      const isLink = safeLstat(path)?.isSymbolicLink() === true;
      throw new StateDirError(path, isLink ? 'it is a symbolic link' : 'not a directory', { cause: error });
    }
    throw new StateDirError(path, `cannot open it: ${describeErrno(error)}`, { cause: error, isRefusal: false });
  }
  try {
    const reason = refuseReason(fstatSync(fd), options);
    if (reason !== undefined) throw new StateDirError(path, reason);
  } finally {
    closeSync(fd);
  }
}

function safeLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    // Only used to word a message; the caller already has the real error.
    return undefined;
  }
}

/**
 * Makes sure `path` is a private directory: creates it 0700 when missing (parents too when
 * `createParents`, also 0700), then verifies it. Throws StateDirError when it is unsafe.
 */
export function ensurePrivateDir(path: string, options: DirCheckOptions & { readonly createParents?: boolean }): void {
  try {
    checkPrivateDir(path, options);
    return;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  let created = false;
  try {
    if (options.createParents === true) mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    mkdirSync(path, { mode: 0o700 });
    created = true;
  } catch (error) {
    // EEXIST: another process (another agentwrap) created it after our check; verify theirs.
    if (errnoCode(error) !== 'EEXIST') {
      throw new StateDirError(path, `cannot create it: ${describeErrno(error)}`, { cause: error, isRefusal: false });
    }
  }
  if (created) setModeExactly(path, options.uid);
  checkPrivateDir(path, options);
}

/** mkdir's mode passes through the umask; set 0700 exactly, through a descriptor opened without following links. */
function setModeExactly(path: string, uid: number | undefined): void {
  const fd = openSync(path, DIR_OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory() && (uid === undefined || stats.uid === uid)) fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/** Creates and verifies root, sessions/ and providers/ (not sockets/: the control socket does that). */
export function ensureStateDirs(root: string, uid: number | undefined = currentUid()): StateLayout {
  const layout = stateLayout(root);
  ensurePrivateDir(layout.root, { uid, createParents: true });
  ensurePrivateDir(layout.sessionsDir, { uid });
  ensurePrivateDir(layout.providersDir, { uid });
  return layout;
}

/**
 * Verifies the root for reading: undefined when it is absent or safe, else the refusal. A
 * reader never creates anything.
 */
export function checkStateRootForReading(root: string, uid: number | undefined = currentUid()): StateDirError | undefined {
  try {
    checkPrivateDir(root, { uid });
    return undefined;
  } catch (error) {
    if (error instanceof StateDirError) return error;
    if (errnoCode(error) === 'ENOENT') return undefined;
    return new StateDirError(root, `cannot open it: ${describeErrno(error)}`, { cause: error, isRefusal: false });
  }
}

/**
 * A record path must not be a symlink (or anything but a regular file) when it exists. The
 * rename that publishes would replace a symlink rather than follow it, but a planted link is a
 * sign of tampering, so it is refused as the seed asks.
 */
export function checkRecordPath(path: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw new StateDirError(path, `cannot inspect it: ${describeErrno(error)}`, { cause: error, isRefusal: false });
  }
  if (stats.isSymbolicLink()) throw new StateDirError(path, 'it is a symbolic link');
  if (!stats.isFile()) throw new StateDirError(path, 'not a regular file');
}
