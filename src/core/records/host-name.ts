/**
 * What `--host` accepts: anything ssh would read as a host, never as an option. Pure, so the
 * readers can check their arguments without loading the ssh adapter (and child_process).
 */

/** A host that would be read by ssh as an option is refused (`--host -oProxyCommand=…`). */
export function isSafeHost(host: string): boolean {
  return host !== '' && !host.startsWith('-') && !/[\s\u0000-\u001f]/.test(host);
}
