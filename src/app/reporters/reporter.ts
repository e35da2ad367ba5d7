/**
 * The session side of the reporter channel: `report` requests from the control socket (sent by
 * `agentwrap report` / `agentwrap report-metadata` from agent hooks and plugins) go through the
 * pure gating table with the session clock. The reporter keeps
 *
 * - the gating state, handed to every tick as `EvidenceSnapshot.reports` (`evidence`);
 * - the agent's identity as hooks report it (its own session id, model, version: `identity`);
 * - display-only metadata with a TTL (`metadata`), which never reaches arbitration.
 *
 * Nothing here throws at a caller: a malformed request is answered `{accepted: false}`.
 */
import { gateReport, identityFromPayload, INITIAL_GATING, slimPayload, type GatingState, type ReportedIdentity } from '../../core/detector/gating.js';
import { METADATA_VALUE_MAX_UNITS, sanitizeTitle } from '../../core/records/session-record.js';
import type { ReportEffect, ReportEvidence } from '../../core/types.js';
import type { Clock } from '../../adapters/clock.js';

/** The `event` of a `report` request that carries display metadata instead of an agent event. */
export const METADATA_EVENT = 'metadata';

/**
 * Metadata lives this long unless the reporter says otherwise: long enough for a summary set
 * at the start of a turn to last the turn, short enough that a plugin that died stops showing
 * stale values soon (herdr's sidebar tokens use the same self-cleaning idea).
 */
export const METADATA_DEFAULT_TTL_MS = 300_000;

/** Longest TTL a reporter may ask for: a day. Longer would make "expires" meaningless. */
export const METADATA_MAX_TTL_MS = 86_400_000;

/** At most this many metadata keys per session (herdr caps a sidebar row at 16 tokens too). */
export const METADATA_MAX_KEYS = 16;

/** Keys are short identifiers, so they can name a column in `status` and a record field. */
export const METADATA_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/** Event and source names are short tokens; anything else is a malformed request. */
const NAME = /^[A-Za-z0-9][\w.:/-]{0,63}$/;

export interface ReporterOptions {
  readonly clock: Clock;
  /** The session's agent (pack agent or command name): trust follows it, not the reporter's claim. */
  readonly sessionAgent: string;
  /** Whether a screen pack watches this session now (packs hot-reload, hence a function). */
  readonly hasPack: () => boolean;
}

export interface ReportReply {
  readonly accepted: boolean;
  readonly effect: ReportEffect | 'metadata' | 'rejected';
  readonly reason: string;
}

interface MetadataEntry {
  readonly value: string;
  readonly expiresAtMs: number;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function name(value: unknown): string | undefined {
  return typeof value === 'string' && NAME.test(value) ? value : undefined;
}

export class Reporter {
  private gating: GatingState = INITIAL_GATING;
  private agentIdentity: ReportedIdentity = {};
  private readonly entries = new Map<string, MetadataEntry>();
  private lastAtMs: number | undefined;

  constructor(private readonly options: ReporterOptions) {}

  /** Session clock time of the last request (accepted or not); undefined before the first. */
  get lastReportAtMs(): number | undefined {
    return this.lastAtMs;
  }

  /** Handles one `report` request's params. Never throws. */
  handle(params: Readonly<Record<string, unknown>>): ReportReply {
    const nowMs = this.options.clock.nowMs();
    const event = name(params['event']);
    if (event === undefined) return { accepted: false, effect: 'rejected', reason: 'a report needs an "event" name (letters, digits, . _ : / -)' };
    this.lastAtMs = nowMs;
    if (event === METADATA_EVENT) return this.handleMetadata(params, nowMs);

    const agent = name(params['agent']) ?? this.options.sessionAgent;
    const source = name(params['source']) ?? `${agent}-reporter`;
    const seq = typeof params['seq'] === 'number' && Number.isFinite(params['seq']) ? params['seq'] : undefined;
    const sentAtMs = params['sentAtMs'];
    const deliveryMs = typeof sentAtMs === 'number' && Number.isFinite(sentAtMs) ? Math.max(0, this.options.clock.wallMs() - sentAtMs) : undefined;
    // Slimmed again here: a reporter other than `agentwrap report` may send a whole payload.
    const payload = slimPayload(params['payload']);
    const result = gateReport(
      this.gating,
      { event, source, agent, seq, payload, deliveryMs },
      { sessionAgent: this.options.sessionAgent, hasPack: this.options.hasPack() },
      nowMs,
    );
    this.gating = result.state;
    if (result.accepted) this.agentIdentity = { ...this.agentIdentity, ...identityFromPayload(payload) };
    return { accepted: result.accepted, effect: result.effect, reason: result.reason };
  }

  /** Every source as gating left it, for `EvidenceSnapshot.reports` (claims age against the snapshot's time). */
  evidence(_nowMs?: number): readonly ReportEvidence[] {
    return Object.values(this.gating.sources);
  }

  /** What hooks reported about the agent: its own session id, model, version (latest wins). */
  identity(): ReportedIdentity {
    return this.agentIdentity;
  }

  /** Live display metadata (expired keys dropped), for the record and `status`. */
  metadata(nowMs: number): Readonly<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [key, entry] of [...this.entries].sort(([a], [b]) => a.localeCompare(b))) {
      if (entry.expiresAtMs > nowMs) out[key] = entry.value;
      else this.entries.delete(key);
    }
    return out;
  }

  /** When the next metadata key expires (so the record can be republished without it), or undefined. */
  nextMetadataExpiryMs(): number | undefined {
    let next: number | undefined;
    for (const entry of this.entries.values()) next = next === undefined ? entry.expiresAtMs : Math.min(next, entry.expiresAtMs);
    return next;
  }

  private handleMetadata(params: Readonly<Record<string, unknown>>, nowMs: number): ReportReply {
    const values = params['metadata'];
    if (!isObject(values)) return { accepted: false, effect: 'rejected', reason: 'metadata needs a "metadata" object of key → value' };
    const ttlParam = params['ttlMs'];
    const ttlMs =
      typeof ttlParam === 'number' && Number.isFinite(ttlParam) && ttlParam > 0
        ? Math.min(Math.floor(ttlParam), METADATA_MAX_TTL_MS)
        : METADATA_DEFAULT_TTL_MS;
    this.metadata(nowMs); // drop expired keys first, so they do not count against the cap
    const rejected: string[] = [];
    let stored = 0;
    for (const [key, raw] of Object.entries(values)) {
      if (!METADATA_KEY.test(key) || (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')) {
        rejected.push(key);
        continue;
      }
      const value = sanitizeTitle(String(raw), METADATA_VALUE_MAX_UNITS);
      if (value === '') {
        this.entries.delete(key);
        stored += 1;
        continue;
      }
      if (!this.entries.has(key) && this.entries.size >= METADATA_MAX_KEYS) {
        rejected.push(key);
        continue;
      }
      this.entries.set(key, { value, expiresAtMs: nowMs + ttlMs });
      stored += 1;
    }
    const reason = rejected.length === 0 ? `${stored} key(s) for ${ttlMs} ms` : `${stored} key(s) for ${ttlMs} ms; rejected: ${rejected.join(', ')}`;
    return { accepted: stored > 0, effect: stored > 0 ? 'metadata' : 'rejected', reason };
  }
}
