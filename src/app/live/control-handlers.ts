/**
 * What the live session answers on its control socket: explain, capture, ack, history, report
 * (agent hooks), subscribe, screen (the preview stream), answer and send (remote-input.ts) and ping's info. Each handler reads the parts it needs; none blocks the tick.
 */
import type { ScreenMirror } from '../../adapters/screen/index.js';
import { describeProcessCoverage, type ProcessCoverage } from '../../core/detector/process-coverage.js';
import { explainPack, packInputFromSnapshot } from '../../core/packs/evaluate.js';
import { versionStatus, type VersionAdvice } from '../../core/packs/versions.js';
import type { ControlHandlers } from '../control/socket.js';
import type { LaunchedSession } from '../launch/launch.js';
import type { PackRegistry } from '../pack-registry.js';
import type { Reporter } from '../reporters/reporter.js';
import type { ScreenFeed } from '../screen-feed.js';
import type { DetectorSession } from '../session.js';
import type { Publisher, SessionIdentity } from './publisher.js';
import type { RemoteInput } from './remote-input.js';
import type { LiveDialog } from '../../core/dialog/digest.js';
import { publishedDialog, type PublishedDialog } from '../../core/records/dialog-field.js';

export interface ControlHandlerParts {
  readonly identity: SessionIdentity;
  readonly detector: DetectorSession;
  readonly screen: ScreenMirror;
  readonly launched: Pick<LaunchedSession, 'passthrough' | 'passthroughNote' | 'tapDroppedBytes'>;
  readonly registry: Pick<PackRegistry, 'notes'>;
  readonly reporter: Pick<Reporter, 'handle'>;
  readonly publisher: Publisher;
  readonly agentVersion: { readonly version: string; readonly source: string } | undefined;
  readonly versionNote: VersionAdvice | undefined;
  /** The session runs without its agent's reporter: why (status explain's `reporter:` line). */
  readonly reporterAbsence?: string | undefined;
  /** What the agent's process evidence source sees (undefined until the agent's pid is known). */
  readonly processCoverage?: () => ProcessCoverage | undefined;
  readonly nowMs: () => number;
  /** A report arrived: evaluate at once (a reported blocker must not wait for the 1 Hz floor). */
  readonly onReport: (params: Readonly<Record<string, unknown>>) => void;
  /** The viewport stream behind the `screen` method (status --watch's preview). */
  readonly screenFeed: Pick<ScreenFeed, 'subscribe'>;
  /** `agentwrap answer` / `send`, and their history for explain. */
  readonly remoteInput: RemoteInput;
}

export function controlHandlers(parts: ControlHandlerParts): ControlHandlers {
  const { identity, detector, publisher } = parts;
  return {
    explain: () => explainPayload(parts),
    capture: () => ({
      key: identity.key,
      agent: identity.sourceCli,
      agent_version: parts.agentVersion?.version ?? null,
      snapshot: detector.snapshot(),
      state: detector.state.session,
    }),
    ack: () => ({ changed: detector.ack() }),
    history: () => ({ key: identity.key, agent: identity.sourceCli, ...publisher.historySnapshot() }),
    report: (params) => {
      const reply = parts.reporter.handle(params);
      detector.noteReport();
      parts.onReport(params);
      return reply;
    },
    subscribe: (emit) => publisher.subscribe(emit),
    info: () => ({ session: identity.key, agent: identity.sourceCli }),
    screen: (emit) => parts.screenFeed.subscribe(emit),
    answer: (params) => parts.remoteInput.answer(params),
    send: (params) => parts.remoteInput.send(params),
  };
}

/** The source of the agent's process evidence, what it lacks and what that costs (status explain). */
function processEvidenceReport(coverage: ProcessCoverage | undefined): unknown {
  if (coverage === undefined) return null;
  return { source: coverage.source, missing: coverage.missing, note: describeProcessCoverage(coverage) ?? null };
}

function publishedOrNull(dialog: LiveDialog | undefined): PublishedDialog | null {
  return dialog === undefined ? null : publishedDialog(dialog);
}

/** `status explain <session>`: the decision, the pack, every rule against the screen now, the tick log. */
export function explainPayload(parts: ControlHandlerParts): unknown {
  const { identity, detector, screen, launched } = parts;
  const pack = detector.currentPack;
  const snapshot = detector.snapshot();
  const input = packInputFromSnapshot(snapshot);
  return {
    key: identity.key,
    agent: identity.sourceCli,
    started_at: identity.startedWallMs,
    clock_start_ms: identity.detectorStartMs,
    now_ms: parts.nowMs(),
    pack:
      pack === undefined
        ? null
        : {
            agent: pack.agent,
            source: pack.origin,
            path: pack.path,
            validated_versions: pack.compiled.pack.validatedVersions,
            unverified: pack.compiled.pack.unverified,
          },
    agent_version:
      parts.agentVersion === undefined
        ? null
        : {
            version: parts.agentVersion.version,
            source: parts.agentVersion.source,
            status: pack === undefined ? null : versionStatus(parts.agentVersion.version, pack.compiled.pack.validatedVersions),
          },
    version_note: parts.versionNote === undefined ? null : `${parts.versionNote.text}; ${parts.versionNote.todo}`,
    version_level: parts.versionNote?.level ?? null,
    reporter_note: parts.reporterAbsence ?? null,
    process_evidence: processEvidenceReport(parts.processCoverage?.()),
    pack_notes: parts.registry.notes(),
    state: detector.state.session,
    // Every rule against the screen as it is now (the tick log holds only the matches).
    screen: { rows: snapshot.screen.rows.length, title: input.title ?? null, progress: input.progress ?? null },
    rules: pack === undefined ? [] : explainPack(pack.compiled, input),
    ticks: detector.log.entries(),
    // The blocked dialog as the pack reads it now, and every answer and prompt typed in from elsewhere.
    dialog: publishedOrNull(parts.remoteInput.liveDialog()),
    remote_input: parts.remoteInput.notes(),
    // How the bytes reached the terminal and how much of them the mirror saw: a flood is
    // skipped (and salvaged), never parsed in full, so a screen rule may have missed frames.
    mirror: {
      passthrough: launched.passthrough,
      passthrough_note: launched.passthroughNote ?? null,
      relay_skipped_bytes: launched.tapDroppedBytes(),
      ...screen.stats(),
    },
  };
}
