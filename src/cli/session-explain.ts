/**
 * `status explain <session>`: asks the live session over its control socket for its explain
 * payload (the tick ring buffer, every rule against the current screen, pack and version notes)
 * and renders it. The session computed everything; this only formats it.
 */
import { ControlError, DEFAULT_CONTROL_TIMEOUT_MS, requestControl } from '../app/control/socket.js';
import type { Passthrough } from '../app/platform.js';
import type { RuleEvaluation } from '../core/packs/evaluate.js';
import type { SessionState } from '../core/detector/session-state.js';
import type { TickLogEntry } from '../core/detector/tick-log.js';
import { forTerminal, toJson } from '../core/text/sanitize.js';
import { findLiveSession } from './commands/ack.js';
import { CliError } from './errors.js';
import { explainToJson, renderExplainText, type ExplainReport } from './render/explain.js';
import { renderTickEntry, renderTickHistory, tickEntryToJson } from './render/ticks.js';
import type { VersionStatus } from '../core/packs/versions.js';
import { parseDialogField } from '../core/records/dialog-field.js';
import type { RemoteInputNote } from '../app/live/remote-input.js';

/** What live-session.ts answers to `explain` (JSON over the socket). */
export interface ExplainPayload {
  readonly key: string;
  readonly agent: string;
  readonly clock_start_ms: number;
  readonly now_ms: number;
  readonly pack: { agent: string; source: 'bundled' | 'user'; path: string; validated_versions: string; unverified: boolean } | null;
  readonly agent_version: { version: string; source: string; status?: VersionStatus | null } | null;
  readonly version_note: string | null;
  /** `note` for a release newer than the pack (normal), `warning` otherwise; absent from older sessions. */
  readonly version_level?: 'note' | 'warning' | null;
  /** Why the session has no reporter (absent from sessions of an agentwrap before it had one). */
  readonly reporter_note?: string | null;
  readonly pack_notes: readonly string[];
  readonly state: SessionState;
  readonly screen: { rows: number; title: string | null; progress: string | null };
  readonly rules: readonly RuleEvaluation[];
  readonly ticks: readonly TickLogEntry[];
  /** Absent from sessions started by an agentwrap before it had one. */
  readonly mirror?: MirrorReport;
  /** Where the agent's process evidence comes from; null before the agent's pid was known, absent from older sessions. */
  readonly process_evidence?: ProcessEvidenceReport | null;
  /** The blocked dialog as the pack reads it now (docs/answer.md); absent from older sessions. */
  readonly dialog?: unknown;
  /** Answers and prompts typed in from elsewhere, oldest first (app/live/remote-input.ts). */
  readonly remote_input?: unknown;
}

/** What live/control-handlers.ts says of the session's process evidence source. */
export interface ProcessEvidenceReport {
  readonly source: 'procfs' | 'ps' | 'none';
  readonly missing: readonly string[];
  /** What is missing and what that costs; null when nothing is. */
  readonly note: string | null;
}

const SOURCE_NAMES: Readonly<Record<ProcessEvidenceReport['source'], string>> = { procfs: '/proc', ps: 'ps', none: 'none' };

function renderProcessEvidence(report: ProcessEvidenceReport): string {
  return `process evidence: ${report.note ?? `${SOURCE_NAMES[report.source]}, complete (CPU, children, stop, foreground)`}`;
}

/** The answers and prompts a session noted, as far as they are well formed (the payload is another process's). */
function remoteInputNotes(value: unknown): RemoteInputNote[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (n): n is RemoteInputNote =>
      typeof n === 'object' && n !== null && typeof n.t === 'number' && (n.kind === 'answer' || n.kind === 'prompt') && typeof n.user === 'string' && typeof n.via === 'string' && typeof n.from === 'string' && typeof n.sent === 'boolean' && typeof n.detail === 'string',
  );
}

function renderRemoteInput(note: RemoteInputNote): string {
  const who = `${note.user === '' ? '?' : note.user}${note.uid === null ? '' : ` (uid ${note.uid})`} via ${note.via}${note.from === '' ? '' : ` from ${note.from}`}`;
  return `  ${new Date(note.t).toISOString()} ${note.kind} ${note.sent ? 'sent' : 'refused'} — ${who}: ${note.detail}`;
}

/** How output reached the terminal and what the screen mirror made of it (live-session.ts). */
export interface MirrorReport {
  readonly passthrough: Passthrough;
  readonly passthrough_note: string | null;
  readonly relay_skipped_bytes: number;
  readonly parsedBytes: number;
  readonly skippedBytes: number;
  readonly queuedBytes: number;
  readonly cuts: number;
}

const MB = 1024 * 1024;

function renderMirror(mirror: MirrorReport): string {
  const how = mirror.passthrough === 'native' ? 'relay thread' : `event loop${mirror.passthrough_note === null ? '' : ` (${mirror.passthrough_note})`}`;
  const skipped = mirror.relay_skipped_bytes + mirror.skippedBytes;
  const floods = skipped === 0 ? 'nothing skipped' : `${(skipped / MB).toFixed(1)} MB of floods skipped (titles, progress and screen switches in them salvaged)`;
  return `passthrough: ${how}; mirror parsed ${(mirror.parsedBytes / MB).toFixed(1)} MB, ${floods}`;
}

export async function requestFromSession(query: string, method: 'explain' | 'capture'): Promise<{ key: string; payload: unknown }> {
  const session = findLiveSession(query);
  if (session.record.control === '') throw new CliError(`${session.key} has no control socket (it could not create one; see its warnings)`);
  try {
    return { key: session.key, payload: await requestControl(session.record.control, { method }, DEFAULT_CONTROL_TIMEOUT_MS) };
  } catch (error) {
    if (error instanceof ControlError) throw new CliError(`cannot reach ${session.key}: ${error.message}`, { cause: error });
    throw error;
  }
}

function packReport(payload: ExplainPayload): ExplainReport | undefined {
  if (payload.pack === null) return undefined;
  const version = payload.agent_version;
  return {
    agent: payload.pack.agent,
    pack: { source: payload.pack.source, path: payload.pack.path, validatedVersions: payload.pack.validated_versions, unverified: payload.pack.unverified },
    agentVersion:
      version === null ? undefined : { version: version.version, source: version.source, status: version.status ?? (payload.version_note === null ? 'inside' : 'unparsable') },
    notes: payload.version_note !== null && payload.version_level === 'note' ? [payload.version_note] : [],
    warnings: payload.version_note !== null && payload.version_level !== 'note' ? [payload.version_note] : [],
    input: { file: `the live screen of ${payload.key}`, rows: payload.screen.rows, title: payload.screen.title ?? undefined, progress: payload.screen.progress ?? undefined },
    rules: payload.rules,
  };
}

export function renderSessionExplain(payload: ExplainPayload, ticks: number, asJson: boolean): string {
  const recent = payload.ticks.slice(-ticks);
  const current = payload.ticks[payload.ticks.length - 1];
  const report = packReport(payload);
  if (asJson) {
    return `${toJson(
      {
        session: payload.key,
        agent: payload.agent,
        state: payload.state.state,
        stuck: payload.state.stuck,
        winner: payload.state.winner,
        rule_id: payload.state.ruleId ?? null,
        reason: payload.state.reason ?? null,
        state_since_s: (payload.now_ms - payload.state.stateSinceMs) / 1000,
        version_note: payload.version_note,
        version_level: payload.version_level ?? null,
        reporter_note: payload.reporter_note ?? null,
        pack_notes: payload.pack_notes,
        current_tick: current === undefined ? null : tickEntryToJson(current, payload.clock_start_ms),
        ticks: recent.map((e) => tickEntryToJson(e, payload.clock_start_ms)),
        pack: report === undefined ? null : explainToJson(report),
        mirror: payload.mirror ?? null,
        process_evidence: payload.process_evidence ?? null,
        dialog: parseDialogField(payload.dialog) ?? null,
        remote_input: remoteInputNotes(payload.remote_input),
      },
      2,
    )}\n`;
  }
  const s = payload.state;
  const lines = [
    `session ${payload.key} (${payload.agent}): ${s.state}${s.stuck ? ' (stuck)' : ''} for ${((payload.now_ms - s.stateSinceMs) / 1000).toFixed(1)}s — winner ${s.winner}${s.ruleId === undefined ? '' : `, rule ${s.ruleId}`}${s.reason === undefined ? '' : `, reason ${s.reason}`}`,
  ];
  if (payload.version_note !== null) lines.push(`${payload.version_level === 'note' ? 'note' : 'warning'}: ${payload.version_note}`);
  for (const note of payload.pack_notes) lines.push(`pack note: ${note}`);
  if (payload.reporter_note !== undefined && payload.reporter_note !== null) lines.push(`reporter: ${payload.reporter_note}`);
  if (payload.mirror !== undefined) lines.push(renderMirror(payload.mirror));
  if (payload.process_evidence !== undefined && payload.process_evidence !== null) lines.push(renderProcessEvidence(payload.process_evidence));
  const dialog = parseDialogField(payload.dialog);
  if (dialog !== undefined) lines.push(`dialog ${dialog.digest}: ${dialog.question} ${dialog.options.map((o, i) => `${i + 1}. ${o}`).join('  ')}`);
  const notes = remoteInputNotes(payload.remote_input);
  if (notes.length > 0) lines.push('answers and prompts from elsewhere:', ...notes.map(renderRemoteInput));
  lines.push('');
  lines.push(current === undefined ? 'no tick evaluated yet' : renderTickEntry(current, `last evaluated tick (${((payload.now_ms - current.nowMs) / 1000).toFixed(1)}s ago)`, payload.clock_start_ms));
  lines.push('', `last ${recent.length} evaluated ticks (unchanged ticks are skipped):`, renderTickHistory(recent, payload.clock_start_ms), '');
  lines.push(report === undefined ? 'no pack: screen rules do not apply to this session' : `every rule against the screen now:\n${renderExplainText(report)}`);
  // The payload is a session's answer, quoting its screen and title: text for the terminal only.
  return forTerminal(`${lines.join('\n')}\n`, { multiline: true });
}
