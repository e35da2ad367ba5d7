/**
 * Sessions on other machines, read over ssh by running `agentwrap status --json` there. The
 * remote side checks liveness (its pids mean nothing here); this side validates every record
 * again, as it would a file, and moves state times onto the local clock by their age, so a
 * remote clock that is off does not make ages wrong.
 */
import { parsePublishedRecord } from '../../core/records/session-record.js';
import { runSsh, isSafeHost, type SshTarget } from '../../adapters/ssh.js';
import type { ListedSession } from './store.js';

/** A session read from somewhere: this machine (`host` undefined) or a remote one. */
export type HostedSession = ListedSession & { readonly host?: string | undefined };

export interface HostHealth {
  readonly host: string;
  readonly reachable: boolean;
  /** Why it is unreachable (ssh's or the remote agentwrap's last error line). */
  readonly error: string | undefined;
}

export interface HostReport extends HostHealth {
  readonly sessions: readonly HostedSession[];
  readonly warnings: readonly string[];
}

/** How long after a host answered the dashboard (and the piped --watch) asks it again. */
export const REMOTE_POLL_MS = 3_000;

/** Connect timeout plus the remote status itself: past this the host counts as not answering. */
export const REMOTE_STATUS_TIMEOUT_MS = 10_000;

const KEY_PATTERN = /^[A-Za-z0-9._-]{1,160}$/;

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The sessions of a remote `status --json` document (shape version 1), or an error saying why
 * the document is not one. Records that do not validate are left out.
 */
export function parseRemoteStatus(text: string, host: string, localNowMs: number): { sessions: HostedSession[]; warnings: string[] } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: 'the remote agentwrap did not print JSON (is agentwrap installed there?)' };
  }
  if (!isObject(json) || json['version'] !== 1 || !Array.isArray(json['sessions'])) return { error: 'the remote agentwrap printed an unknown status shape' };
  const sessions: HostedSession[] = [];
  for (const entry of json['sessions']) {
    if (!isObject(entry) || typeof entry['key'] !== 'string' || !KEY_PATTERN.test(entry['key'])) continue;
    const published = parsePublishedRecord(entry['record']);
    if (published === undefined) continue;
    const age = entry['state_age_ms'];
    const key = entry['key'];
    if (published.kind === 'agentwrap') {
      const stateSince = typeof age === 'number' && Number.isFinite(age) && age >= 0 ? localNowMs - age : localNowMs;
      // The remote socket and pane are the remote machine's: nothing here can reach them.
      const { tmux: _tmux, ...record } = published.record;
      sessions.push({ kind: 'agentwrap', record: { ...record, state_since: stateSince, control: '' }, key, path: '', host });
    } else {
      sessions.push({ ...published, key, path: '', host });
    }
  }
  const warnings = Array.isArray(json['warnings']) ? json['warnings'].filter((w): w is string => typeof w === 'string').map((w) => `${host}: ${w}`) : [];
  return { sessions, warnings };
}

/** `agentwrap status --json` on `host`; an unreachable host is a report saying so, never an empty list. */
export async function readRemoteStatus(target: SshTarget, timeoutMs: number = REMOTE_STATUS_TIMEOUT_MS): Promise<HostReport> {
  const { host } = target;
  const unreachable = (error: string): HostReport => ({ host, reachable: false, error, sessions: [], warnings: [] });
  if (!isSafeHost(host)) return unreachable('not a host name');
  const result = await runSsh(target, ['status', '--json'], timeoutMs);
  if (result.code !== 0) return unreachable(result.error ?? `ssh exited with ${result.code ?? 'a signal'}`);
  const parsed = parseRemoteStatus(result.stdout, host, Date.now());
  if ('error' in parsed) return unreachable(parsed.error);
  return { host, reachable: true, error: undefined, sessions: parsed.sessions, warnings: parsed.warnings };
}

export interface RemotePoller {
  /** The latest report of every host (unreachable until its first answer). */
  reports(): readonly HostReport[];
  close(): void;
}

/**
 * Asks every host again `pollMs` after its previous answer (one ssh at a time per host, so a
 * slow host never piles up connections) and calls `onChange` after each answer.
 */
export function pollRemoteStatus(hosts: readonly string[], env: NodeJS.ProcessEnv, pollMs: number, onChange: () => void): RemotePoller {
  const latest = new Map<string, HostReport>(hosts.map((host) => [host, { host, reachable: false, error: 'asking…', sessions: [], warnings: [] }]));
  const timers = new Set<NodeJS.Timeout>();
  let isClosed = false;
  const ask = (host: string): void => {
    void readRemoteStatus({ host, env }).then((report) => {
      if (isClosed) return;
      latest.set(host, report);
      onChange();
      const timer = setTimeout(() => {
        timers.delete(timer);
        ask(host);
      }, pollMs);
      timers.add(timer);
    });
  };
  for (const host of hosts) ask(host);
  return {
    reports: () => [...latest.values()],
    close() {
      isClosed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
