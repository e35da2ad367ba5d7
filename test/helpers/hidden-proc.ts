/**
 * Runs a command with /proc hidden from it: a private mount namespace with an empty read-only
 * tmpfs over /proc (as root in CI; elsewhere through a user namespace, `--map-root-user`).
 * Nothing outside that command's process tree is affected.
 */
import { spawnSync } from 'node:child_process';

const USER_NS = process.getuid?.() === 0 ? [] : ['--map-root-user'];
const HIDE = 'mount -t tmpfs -o ro,size=4k agentwrap-no-proc /proc && exec "$@"';

/** [file, args] that run `command args…` with /proc hidden. */
export function withProcHidden(command: string, args: readonly string[]): [string, string[]] {
  return ['unshare', ['--mount', ...USER_NS, 'sh', '-c', HIDE, 'hidden-proc', command, ...args]];
}

/** Whether this machine lets us hide /proc (unshare present, namespaces allowed); checked once. */
export const canHideProc: boolean = (() => {
  const [file, args] = withProcHidden('sh', ['-c', 'test ! -e /proc/self/stat']);
  return spawnSync(file, args, { stdio: 'ignore', timeout: 10_000 }).status === 0;
})();
