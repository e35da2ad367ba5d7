/**
 * Whether a process exists, for the convention's reader rule "kill(pid, 0); EPERM counts alive"
 * (§4.3). A zombie counts as alive until reaped; the record's lease covers that case.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    // EPERM: it exists but belongs to someone else. Anything but ESRCH is not proof of death.
    return code !== 'ESRCH';
  }
}
