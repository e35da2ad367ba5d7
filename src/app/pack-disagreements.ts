/**
 * Packs that may be stale for the running release: live sessions whose record carries a
 * `disagreement` (the agent's own OSC 7501 report and the pack's screen rules read different
 * states for longer than any hold; core/detector/program-status.ts). `doctor` and `packs list`
 * show them. Reading is best effort: an unreadable state directory means none is known.
 */
import { isPidAlive } from '../adapters/process/alive.js';
import type { DisagreementNote } from '../core/records/disagreement-note.js';
import { readSessions } from './sessions/reading.js';

export interface PackDisagreement {
  /** The session's agent (its record's `source_cli`), which names its pack. */
  readonly agent: string;
  readonly session: string;
  readonly agentVersion: string | undefined;
  readonly note: DisagreementNote;
}

export function livePackDisagreements(root: string, nowWallMs: number): PackDisagreement[] {
  let sessions: ReturnType<typeof readSessions>;
  try {
    sessions = readSessions(root, nowWallMs, isPidAlive);
  } catch {
    return [];
  }
  const out: PackDisagreement[] = [];
  for (const listed of sessions) {
    if (listed.kind !== 'agentwrap') continue;
    const { record } = listed;
    if (record.disagreement === undefined) continue;
    out.push({ agent: record.source_cli, session: listed.key, agentVersion: record.agent_version, note: record.disagreement });
  }
  return out;
}

/** `codex 0.171.0 says idle, its screen reads working (rule composer-busy) for 42s in session s-1`. */
export function describePackDisagreement(d: PackDisagreement, nowWallMs: number): string {
  const who = d.agentVersion === undefined ? d.agent : `${d.agent} ${d.agentVersion}`;
  const rule = d.note.rule_id === null ? '' : ` (rule ${d.note.rule_id})`;
  const forS = Math.max(0, Math.round((nowWallMs - d.note.since) / 1000));
  return `${who} says ${d.note.reported}, its screen reads ${d.note.screen}${rule}, for ${forS}s in session ${d.session}`;
}
