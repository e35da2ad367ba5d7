/**
 * Where `status` (list, watch, dashboard) reads sessions from: this machine's state root, or
 * the directories `--state-dir` names (containers' bind-mounted roots), plus other machines
 * (`--host`, over ssh).
 */
import { isPidAlive, isSafeHost, resolveStateRoot, stateLayout } from '../app/sessions/state-access.js';
import { loadSkipCache, readCachedSessionsReport } from '../app/sessions/store.js';
import type { SkipCache } from '../app/sessions/skip-cache.js';
import type { HostedSession, HostReport } from '../app/sessions/remote-status.js';
import { UsageError } from './errors.js';
import { basename, join, resolve } from 'node:path';
import type { StatusView } from './render/status.js';

export interface StatusSources {
  /** State roots to read, the default one first when no --state-dir was given. */
  readonly roots: readonly string[];
  /**
   * Records from --state-dir directories are checked by their lease alone: a container's
   * wrapper pid names a process in another pid namespace, and kill(pid, 0) here would be wrong.
   */
  readonly isLeaseOnly: boolean;
  readonly hosts: readonly string[];
  /** Per root: settled verdicts on dead records (skip-cache.ts), kept across a watch's passes. */
  readonly caches: ReadonlyMap<string, SkipCache>;
}

export function statusSources(stateDirs: readonly string[] | undefined, hosts: readonly string[] | undefined, env: NodeJS.ProcessEnv): StatusSources {
  for (const host of hosts ?? []) if (!isSafeHost(host)) throw new UsageError(`--host: "${host}" is not a host name`);
  const dirs = (stateDirs ?? []).filter((dir) => dir !== '');
  const roots = dirs.length === 0 ? [resolveStateRoot(env)] : [...new Set(dirs.map((dir) => resolve(dir)))];
  return {
    roots,
    isLeaseOnly: dirs.length > 0,
    hosts: [...new Set(hosts ?? [])],
    caches: new Map(roots.map((root) => [root, loadSkipCache(root)])),
  };
}

/** This machine's sessions from every root; a refused root is a warning naming it. */
export function readLocalSessions(sources: StatusSources, nowMs: number): { sessions: HostedSession[]; warnings: string[] } {
  const sessions: HostedSession[] = [];
  const warnings: string[] = [];
  const alive = sources.isLeaseOnly ? () => true : isPidAlive;
  for (const root of sources.roots) {
    const report = readCachedSessionsReport(root, nowMs, alive, sources.caches.get(root));
    sessions.push(...(sources.isLeaseOnly ? report.sessions.map((session) => withSocketUnder(root, session)) : report.sessions));
    if (report.warning !== undefined) warnings.push(report.warning);
  }
  return { sessions, warnings };
}

/**
 * A record written in a container names its socket by the container's path; the bind mount
 * puts the same file under the directory read here.
 */
function withSocketUnder(root: string, session: HostedSession): HostedSession {
  if (session.kind !== 'agentwrap' || session.record.control === '') return session;
  return { ...session, record: { ...session.record, control: join(stateLayout(root).socketsDir, basename(session.record.control)) } };
}

/** One view: local sessions now, and the latest report of each host. */
export function buildView(sources: StatusSources, nowMs: number, remote: readonly HostReport[]): StatusView {
  const local = readLocalSessions(sources, nowMs);
  return {
    nowMs,
    root: sources.roots[0] ?? '',
    sessions: [...local.sessions, ...remote.flatMap((report) => report.sessions)],
    warnings: [...local.warnings, ...remote.flatMap((report) => report.warnings)],
    ...(sources.isLeaseOnly ? { roots: sources.roots } : {}),
    ...(sources.hosts.length === 0 ? {} : { hosts: remote.map(({ host, reachable, error }) => ({ host, reachable, error })) }),
  };
}
