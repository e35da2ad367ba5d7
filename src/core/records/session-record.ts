/**
 * Session records and provider heartbeats of the Agent Status Providers convention, schema 1
 * (shared/seeds/000), plus agentwrap's additive fields (docs/publishing.md, "The record"). Pure: parsing,
 * validation, key derivation, title sanitizing and the lease rule. Reading and writing files
 * lives in adapters/ and app/.
 *
 * Privacy (shared/seeds/001): a record carries no prompt, tool output or screen text; the only
 * free text is the terminal title, which is sanitized and bounded here.
 */
import { parseDisagreementNote, type DisagreementNote } from './disagreement-note.js';
import type { AgentState } from '../types.js';
import { forTerminal } from '../text/sanitize.js';
import { parseDialogField, type PublishedDialog } from './dialog-field.js';

/** Schema major version this module reads and writes; schema-2 files are ignored (convention §6). */
export const RECORD_SCHEMA = 1;

/** `written_by` and the heartbeat `tool` id of agentwrap's own files. */
export const AGENTWRAP_WRITER = 'agentwrap';

/** Placeholder while no source tells the model (the convention makes `model` required). */
export const MODEL_UNKNOWN = 'unknown';

/**
 * Lease of a session record and of the heartbeat. Long enough that a stalled event loop (a
 * suspended laptop, a busy machine) does not make a live session vanish, and that its refresh
 * (every third of it: 30 s) rides on the tick of a session left at its prompt, whose floor
 * grows to LONG_SETTLED_TICK_MS: with a 30 s lease an idle session woke every 10 s for the
 * refresh alone, most of its CPU. Every agentwrap record names its wrapper and agent (`pid`,
 * `wrapper_pid`), so readers with pid checks (agentwrap's own, and the convention allows it
 * for records that carry a pid) drop a crashed wrapper's record at once; a reader on the lease
 * alone sees it for up to 90 s.
 */
export const DEFAULT_RECORD_TTL_MS = 90_000;

/** Refresh cadence: a third of the lease, inside the convention's "at least every ttl_ms/2". */
export function refreshIntervalMs(ttlMs: number): number {
  return Math.max(1, Math.floor(ttlMs / 3));
}

/** Titles are bounded to this many UTF-16 code units, cut on a grapheme boundary. */
export const TITLE_MAX_UNITS = 256;

/** Longest record key; file names stay well inside NAME_MAX (255 bytes) with `.json` and temp suffixes. */
export const KEY_MAX_CHARS = 120;

/** Capabilities agentwrap announces in its heartbeat. */
export const AGENTWRAP_CAPABILITIES: readonly string[] = ['sessions', 'state', 'control', 'explain', 'capture', 'ack', 'events'];

/** Where `model` came from: nowhere yet, the agent's argv (`--model`), its environment, or an agent hook report. */
export type ModelSource = 'unknown' | 'argv' | 'env' | 'report';

const MODEL_SOURCES: readonly ModelSource[] = ['unknown', 'argv', 'env', 'report'];
const AGENT_STATES: readonly AgentState[] = ['working', 'blocked', 'done', 'idle', 'unknown'];

/** A schema-1 session record from any writer, as far as the convention defines it. */
export interface ConventionRecord {
  readonly schema: 1;
  readonly source_cli: string;
  readonly session_id: string;
  /** Required* by the convention (only for long-TTL launch records); absent means "no pid check". */
  readonly pid?: number;
  readonly cwd?: string;
  readonly model: string;
  readonly effort?: string;
  readonly preset?: string;
  readonly written_by: string;
  readonly started_at?: number;
  /** Required by the convention; a reader falls back to `ts` / `started_at` when a writer omitted it. */
  readonly updated_at?: number;
  readonly ts?: number;
  readonly ttl_ms: number;
}

/**
 * agentwrap's own record: every convention field (with the optional ones agentwrap always
 * knows made required) plus the additive fields of docs/publishing.md ("The record"). Times are Unix ms.
 */
export interface SessionRecord extends ConventionRecord {
  readonly written_by: typeof AGENTWRAP_WRITER;
  /** The agent's pid (the wrapped child), as the convention means it. */
  readonly pid: number;
  readonly cwd: string;
  readonly started_at: number;
  readonly updated_at: number;
  readonly model_source: ModelSource;
  readonly state: AgentState;
  /** When the published state last changed. */
  readonly state_since: number;
  readonly seen: boolean;
  /** Overlay on `working`: progress expected, nothing moved for a while. */
  readonly stuck: boolean;
  /** Which evidence decided (e.g. `pack`, `osc_title`, `watchdog`); null when nothing did. */
  readonly winner: string | null;
  /** The pack rule that won, when a rule did. */
  readonly rule_id: string | null;
  /** Why the state is what it is, when the winning rule says (its `reason`, e.g. "api-error"); absent otherwise. */
  readonly reason?: string;
  /** Unix ms when the cause lifts (a usage limit's reset), where the agent showed it (docs/errors.md). */
  readonly until?: number;
  /** The terminal title, sanitized and bounded; absent when the agent set none. */
  readonly title?: string;
  readonly agent_version?: string;
  /** The agent's own session id when a hook reported it (Claude `session_id`, Codex `thread-id`…); `session_id` stays agentwrap's. */
  readonly agent_session_id?: string;
  /** Display-only values from `agentwrap report-metadata` (model, summary, tokens…); never state. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** The agentwrap process that writes this record and owns its lease. */
  readonly wrapper_pid: number;
  /** Path of the session's control socket. */
  readonly control: string;
  /** The tmux pane the agent runs in, when it runs in tmux (the dashboard jumps to it). */
  readonly tmux?: TmuxPane;
  /** The agent's own report and the screen rules disagree, lastingly (core/records/disagreement-note.ts). */
  readonly disagreement?: DisagreementNote;
  /** A blocked session's dialog as the pack reads it (core/records/dialog-field.ts); absent otherwise. */
  readonly dialog?: PublishedDialog;
}

/** Where a session runs in tmux: the server's socket path (from `$TMUX`) and the pane id (`$TMUX_PANE`, e.g. `%3`). */
export interface TmuxPane {
  readonly socket: string;
  readonly pane: string;
}

/** `providers/<tool>.json`. */
export interface ProviderHeartbeat {
  readonly schema: 1;
  readonly tool: string;
  readonly pid: number;
  readonly ts: number;
  readonly ttl_ms: number;
  readonly capabilities?: readonly string[];
}

/** A parsed file from `sessions/`: agentwrap's own (fully validated) or another writer's. */
export type PublishedRecord =
  | { readonly kind: 'agentwrap'; readonly record: SessionRecord }
  | { readonly kind: 'other'; readonly record: ConventionRecord };

/** What the session loop knows; `createSessionRecord` adds the constant fields and sanitizes. */
export interface SessionRecordInput {
  readonly sourceCli: string;
  readonly sessionId: string;
  readonly pid: number;
  readonly wrapperPid: number;
  readonly cwd: string;
  readonly model?: string;
  readonly modelSource?: ModelSource;
  readonly startedAtMs: number;
  readonly updatedAtMs: number;
  readonly ttlMs?: number;
  readonly state: AgentState;
  readonly stateSinceMs: number;
  readonly seen: boolean;
  readonly stuck: boolean;
  readonly winner: string | null;
  readonly ruleId: string | null;
  readonly reason?: string;
  readonly untilMs?: number | undefined;
  /** Raw title as the agent set it; sanitized here. */
  readonly title?: string;
  readonly agentVersion?: string;
  readonly agentSessionId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly control: string;
  readonly tmux?: TmuxPane;
  readonly disagreement?: DisagreementNote;
  readonly dialog?: PublishedDialog;
}

/** Metadata values are display text: sanitized like a title and bounded. */
export const METADATA_VALUE_MAX_UNITS = 200;

function sanitizeMetadata(metadata: Readonly<Record<string, unknown>> | undefined): Record<string, string> | undefined {
  if (metadata === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') continue;
    const clean = sanitizeTitle(value, METADATA_VALUE_MAX_UNITS);
    if (clean !== '') out[sanitizeTitle(key, 32)] = clean;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

export function createSessionRecord(input: SessionRecordInput): SessionRecord {
  const title = input.title === undefined ? '' : sanitizeTitle(input.title);
  const model = input.model === undefined ? '' : sanitizeTitle(input.model, 128);
  const version = input.agentVersion === undefined ? '' : sanitizeTitle(input.agentVersion, 64);
  const agentSessionId = input.agentSessionId === undefined ? '' : sanitizeTitle(input.agentSessionId, 128);
  const metadata = sanitizeMetadata(input.metadata);
  return {
    schema: RECORD_SCHEMA,
    source_cli: input.sourceCli,
    session_id: input.sessionId,
    pid: input.pid,
    cwd: input.cwd,
    model: model === '' ? MODEL_UNKNOWN : model,
    model_source: model === '' ? 'unknown' : (input.modelSource ?? 'unknown'),
    written_by: AGENTWRAP_WRITER,
    started_at: input.startedAtMs,
    updated_at: input.updatedAtMs,
    ttl_ms: input.ttlMs ?? DEFAULT_RECORD_TTL_MS,
    state: input.state,
    state_since: input.stateSinceMs,
    seen: input.seen,
    stuck: input.stuck,
    winner: input.winner,
    rule_id: input.ruleId,
    ...(input.reason === undefined || input.reason === '' ? {} : { reason: sanitizeTitle(input.reason, 64) }),
    ...(input.untilMs === undefined || !Number.isSafeInteger(input.untilMs) ? {} : { until: input.untilMs }),
    ...(title === '' ? {} : { title }),
    ...(version === '' ? {} : { agent_version: version }),
    ...(agentSessionId === '' ? {} : { agent_session_id: agentSessionId }),
    ...(metadata === undefined ? {} : { metadata }),
    wrapper_pid: input.wrapperPid,
    control: input.control,
    ...(input.tmux === undefined ? {} : { tmux: input.tmux }),
    ...withDisagreement(input.disagreement),
    ...withDialog(parseDialogField(input.dialog)),
  };
}

/** The note as it may be written: validated like one read back, so a record never carries a bad one. */
function withDisagreement(note: DisagreementNote | undefined): { disagreement?: DisagreementNote } {
  const valid = note === undefined ? undefined : parseDisagreementNote(note);
  return valid === undefined ? {} : { disagreement: valid };
}

function withDialog(dialog: PublishedDialog | undefined): { dialog?: PublishedDialog } {
  return dialog === undefined ? {} : { dialog };
}

/**
 * The tmux pane a process runs in, from its environment: `$TMUX` is `<socket>,<server pid>,<session>`
 * and `$TMUX_PANE` the pane id. Undefined outside tmux or when either looks wrong.
 */
export function tmuxPaneFromEnv(env: Readonly<Record<string, string | undefined>>): TmuxPane | undefined {
  const tmux = env['TMUX'];
  const pane = env['TMUX_PANE'];
  if (tmux === undefined || pane === undefined) return undefined;
  const socket = tmux.split(',')[0] ?? '';
  return parseTmuxPane({ socket, pane });
}

function parseTmuxPane(value: unknown): TmuxPane | undefined {
  if (!isObject(value)) return undefined;
  const { socket, pane } = value;
  if (typeof socket !== 'string' || !socket.startsWith('/') || socket.length > 4096) return undefined;
  if (typeof pane !== 'string' || !/^%\d{1,9}$/.test(pane)) return undefined;
  return { socket, pane };
}

export function createHeartbeat(pid: number, tsMs: number, ttlMs: number = DEFAULT_RECORD_TTL_MS): ProviderHeartbeat {
  return { schema: RECORD_SCHEMA, tool: AGENTWRAP_WRITER, pid, ts: tsMs, ttl_ms: ttlMs, capabilities: AGENTWRAP_CAPABILITIES };
}

// ── keys ────────────────────────────────────────────────────────────────────────────────────

/** The session id agentwrap uses until an agent hook reports the agent's own. */
export function syntheticSessionId(wrapperPid: number, startedWallMs: number): string {
  return `aw${wrapperPid}-${startedWallMs.toString(36)}`;
}

/**
 * Convention §3: `<source_cli>-<session_id>`, or `<source_cli>-pid<pid>` without a session id,
 * every other character replaced by `_`. A key longer than KEY_MAX_CHARS keeps its head and
 * gains a hash of the whole, so two long ids stay distinct.
 */
export function recordKey(sourceCli: string, id: string | number): string {
  const raw = typeof id === 'number' ? `${sourceCli}-pid${id}` : `${sourceCli}-${id}`;
  const key = raw.replace(/[^A-Za-z0-9._-]/g, '_');
  if (key.length <= KEY_MAX_CHARS) return key;
  return `${key.slice(0, KEY_MAX_CHARS - 9)}-${fnv1a32(raw)}`;
}

/** FNV-1a, 32 bit, as 8 hex digits: a short stable digest without node:crypto (core is pure). */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

// ── title sanitizing ───────────────────────────────────────────────────────────────────────

/** Cap on the input examined, so a hostile megabyte title costs no more than a long one. */
const SANITIZE_SAMPLE_UNITS = 16_384;

// Made on first use: creating a Segmenter loads ICU's break rules (~11 ms, measured), and only
// a title longer than its bound needs one.
let graphemes: Intl.Segmenter | undefined;

/**
 * A title safe to publish and to print on someone's terminal: core/text's `forTerminal` (escape
 * sequences, control and bidi characters removed), whitespace runs collapsed, bounded to `maxUnits` UTF-16 code units
 * without splitting a grapheme (no ellipsis is added: readers decide how to show a cut).
 */
export function sanitizeTitle(text: string, maxUnits: number = TITLE_MAX_UNITS): string {
  const cleaned = forTerminal(text.slice(0, SANITIZE_SAMPLE_UNITS))
    .replace(/ {2,}/g, ' ')
    .trim();
  if (cleaned.length <= maxUnits) return cleaned;
  let out = '';
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(cleaned)) {
    if (out.length + segment.length > maxUnits) break;
    out += segment;
  }
  return out.trimEnd();
}

// ── parsing ────────────────────────────────────────────────────────────────────────────────

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTimestamp(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isPid(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function optionalString(json: Json, field: string): string | undefined | false {
  const value = json[field];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : false;
}

/**
 * Any writer's schema-1 session record, or undefined when it is not one (corrupt = absent).
 * Unknown fields are ignored; a present field of the wrong type makes the record corrupt.
 */
export function parseConventionRecord(json: unknown): ConventionRecord | undefined {
  if (!isObject(json) || json['schema'] !== RECORD_SCHEMA) return undefined;
  const { source_cli, session_id, model, written_by, ttl_ms, pid, started_at, updated_at, ts } = json;
  if (!isNonEmptyString(source_cli) || typeof session_id !== 'string' || typeof model !== 'string') return undefined;
  if (!isNonEmptyString(written_by)) return undefined;
  if (typeof ttl_ms !== 'number' || !Number.isFinite(ttl_ms) || ttl_ms <= 0) return undefined;
  if (pid !== undefined && !isPid(pid)) return undefined;
  for (const time of [started_at, updated_at, ts]) if (time !== undefined && !isTimestamp(time)) return undefined;
  if (updated_at === undefined && ts === undefined && started_at === undefined) return undefined;
  const cwd = optionalString(json, 'cwd');
  const effort = optionalString(json, 'effort');
  const preset = optionalString(json, 'preset');
  if (cwd === false || effort === false || preset === false) return undefined;
  return {
    schema: RECORD_SCHEMA,
    source_cli,
    session_id,
    ...(isPid(pid) ? { pid } : {}),
    ...(cwd === undefined ? {} : { cwd }),
    model,
    ...(effort === undefined ? {} : { effort }),
    ...(preset === undefined ? {} : { preset }),
    written_by,
    ...(isTimestamp(started_at) ? { started_at } : {}),
    ...(isTimestamp(updated_at) ? { updated_at } : {}),
    ...(isTimestamp(ts) ? { ts } : {}),
    ttl_ms,
  };
}

/** agentwrap's own record, strictly validated; undefined for anything else (corrupt = absent). */
export function parseRecord(json: unknown): SessionRecord | undefined {
  const base = parseConventionRecord(json);
  if (base === undefined || !isObject(json) || base.written_by !== AGENTWRAP_WRITER) return undefined;
  const { pid, cwd, started_at, updated_at } = base;
  if (pid === undefined || cwd === undefined || started_at === undefined || updated_at === undefined) return undefined;
  const { model_source, state, state_since, seen, stuck, winner, rule_id, wrapper_pid, control } = json;
  if (!MODEL_SOURCES.includes(model_source as ModelSource)) return undefined;
  if (!AGENT_STATES.includes(state as AgentState)) return undefined;
  if (!isTimestamp(state_since) || typeof seen !== 'boolean' || typeof stuck !== 'boolean') return undefined;
  if (winner !== null && typeof winner !== 'string') return undefined;
  if (rule_id !== null && typeof rule_id !== 'string') return undefined;
  if (!isPid(wrapper_pid) || typeof control !== 'string') return undefined;
  const title = optionalString(json, 'title');
  const agentVersion = optionalString(json, 'agent_version');
  const agentSessionId = optionalString(json, 'agent_session_id');
  if (title === false || agentVersion === false || agentSessionId === false) return undefined;
  // Additive and optional, like tmux: a malformed reason is dropped, not the record.
  const reason = typeof json['reason'] === 'string' && json['reason'] !== '' ? sanitizeTitle(json['reason'], 64) : undefined;
  const until = Number.isSafeInteger(json['until']) && (json['until'] as number) > 0 ? (json['until'] as number) : undefined;
  const rawMetadata = json['metadata'];
  if (rawMetadata !== undefined && (!isObject(rawMetadata) || Object.values(rawMetadata).some((v) => typeof v !== 'string'))) return undefined;
  const metadata = sanitizeMetadata(rawMetadata as Readonly<Record<string, unknown>> | undefined);
  // Additive and optional: a malformed tmux field is dropped, not a reason to drop the record.
  const tmux = parseTmuxPane(json['tmux']);
  return {
    schema: RECORD_SCHEMA,
    source_cli: base.source_cli,
    session_id: base.session_id,
    pid,
    cwd,
    model: base.model,
    ...(base.effort === undefined ? {} : { effort: base.effort }),
    ...(base.preset === undefined ? {} : { preset: base.preset }),
    model_source: model_source as ModelSource,
    written_by: AGENTWRAP_WRITER,
    started_at,
    updated_at,
    ttl_ms: base.ttl_ms,
    state: state as AgentState,
    state_since,
    seen,
    stuck,
    winner,
    rule_id,
    ...(reason === undefined ? {} : { reason }),
    ...(until === undefined ? {} : { until }),
    // A title read back is sanitized again: the file may not have been written by this code.
    ...(title === undefined ? {} : { title: sanitizeTitle(title) }),
    ...(agentVersion === undefined ? {} : { agent_version: agentVersion }),
    ...(agentSessionId === undefined ? {} : { agent_session_id: sanitizeTitle(agentSessionId, 128) }),
    // Metadata read back is sanitized again, like the title.
    ...(metadata === undefined ? {} : { metadata }),
    wrapper_pid,
    control,
    ...(tmux === undefined ? {} : { tmux }),
    ...withDisagreement(parseDisagreementNote(json['disagreement'])),
    ...withDialog(parseDialogField(json['dialog'])),
  };
}

/** A file from `sessions/`: agentwrap's when `written_by` says so (and it validates), another writer's otherwise. */
export function parsePublishedRecord(json: unknown): PublishedRecord | undefined {
  const base = parseConventionRecord(json);
  if (base === undefined) return undefined;
  if (base.written_by !== AGENTWRAP_WRITER) return { kind: 'other', record: base };
  const record = parseRecord(json);
  return record === undefined ? undefined : { kind: 'agentwrap', record };
}

export function parseHeartbeat(json: unknown): ProviderHeartbeat | undefined {
  if (!isObject(json) || json['schema'] !== RECORD_SCHEMA) return undefined;
  const { tool, pid, ts, ttl_ms, capabilities } = json;
  if (!isNonEmptyString(tool) || !isPid(pid) || !isTimestamp(ts)) return undefined;
  if (typeof ttl_ms !== 'number' || !Number.isFinite(ttl_ms) || ttl_ms <= 0) return undefined;
  if (capabilities !== undefined && !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === 'string'))) {
    return undefined;
  }
  return { schema: RECORD_SCHEMA, tool, pid, ts, ttl_ms, ...(capabilities === undefined ? {} : { capabilities: capabilities as string[] }) };
}

// ── lease ──────────────────────────────────────────────────────────────────────────────────

/** The time a lease counts from: `updated_at`, else `ts`, else `started_at` (convention §5.1). */
export function leaseStartMs(record: ConventionRecord): number | undefined {
  return record.updated_at ?? record.ts ?? record.started_at;
}

/**
 * Lease rule: live iff `now - updated_at < ttl_ms`. A start in the future is treated as now,
 * or, when the caller knows when the file was last written on this machine's clock
 * (`writtenAtMs`, its mtime), as that moment: a record dated years ahead then still expires
 * `ttl_ms` after its writer's last write, as docs/publishing.md promises for a crashed writer.
 */
export function isLive(record: ConventionRecord, nowWallMs: number, writtenAtMs?: number): boolean {
  const declared = leaseStartMs(record);
  if (declared === undefined) return false;
  const start = declared > nowWallMs ? Math.min(nowWallMs, writtenAtMs ?? nowWallMs) : declared;
  return nowWallMs - start < record.ttl_ms;
}

/** The same rule for a provider heartbeat: a `ts` ahead of now counts from `writtenAtMs`, else now. */
export function isHeartbeatLive(heartbeat: ProviderHeartbeat, nowWallMs: number, writtenAtMs?: number): boolean {
  const start = heartbeat.ts > nowWallMs ? Math.min(nowWallMs, writtenAtMs ?? nowWallMs) : heartbeat.ts;
  return nowWallMs - start < heartbeat.ttl_ms;
}

/**
 * The process whose death ends a record. For agentwrap's records that is the wrapper (it
 * writes the record and shows the agent's final state for a moment after the agent exits);
 * for other writers it is the `pid` they recorded, when they recorded one.
 */
export function ownerPid(published: PublishedRecord): number | undefined {
  return published.kind === 'agentwrap' ? published.record.wrapper_pid : published.record.pid;
}

/**
 * Lease valid (isLive, `writtenAtMs` as there) and, when the record names a process, that
 * process alive (liveness supplied by the caller).
 */
export function isRecordLive(published: PublishedRecord, nowWallMs: number, isPidAlive: (pid: number) => boolean, writtenAtMs?: number): boolean {
  if (!isLive(published.record, nowWallMs, writtenAtMs)) return false;
  const pid = ownerPid(published);
  return pid === undefined || isPidAlive(pid);
}
