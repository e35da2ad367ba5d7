/**
 * The evidence replay feeds besides the screen: the /proc samples and reporter events a
 * recording carries (core/recorded-evidence), handed to the detector session the way the live
 * loop handed them over. A recording without them replays exactly as before: no process sample
 * (absent, never quiet) and no reporter at all.
 */
import type { Clock } from '../../adapters/clock.js';
import { decodeProcessSample, decodeReport, PROCESS_SAMPLE_CODE, REPORT_CODE } from '../../core/recordings/recorded-evidence.js';
import type { Recording, RecordingEvent } from '../../core/recordings/recording.js';
import type { ProcessEvidence } from '../../core/types.js';
import { Reporter } from '../reporters/reporter.js';
import { NO_PROCESS_SAMPLE, type ProcessSource, type ReportSource } from '../session.js';

export interface ReplayEvidence {
  /** The latest recorded sample (replay forces a tick at each sample's time, as live ticked then). */
  readonly processes: ProcessSource;
  /** Present only when the recording holds reporter events. */
  readonly reports: ReportSource | undefined;
  /** Takes in one evidence event at the clock's now. Returns what the replay must do next. */
  apply(event: RecordingEvent): 'tick-now' | 'report' | 'none';
}

export function isEvidenceEvent(event: RecordingEvent): boolean {
  return event.kind === PROCESS_SAMPLE_CODE || event.kind === REPORT_CODE;
}

export function createReplayEvidence(
  recording: Recording,
  options: { readonly clock: Clock; readonly sessionAgent: string; readonly hasPack: () => boolean },
): ReplayEvidence {
  const hasReports = recording.events.some((event) => event.kind === REPORT_CODE);
  const reporter = hasReports ? new Reporter(options) : undefined;
  let sample: ProcessEvidence | undefined;
  return {
    processes: (nowMs) => sample ?? NO_PROCESS_SAMPLE(nowMs),
    reports: reporter === undefined ? undefined : (nowMs) => reporter.evidence(nowMs),
    apply: (event) => {
      // decodeRecording already skipped (and noted) lines whose data does not decode.
      if (event.kind === PROCESS_SAMPLE_CODE) {
        const decoded = decodeProcessSample(event.data, options.clock.nowMs());
        if (typeof decoded === 'string') return 'none';
        sample = decoded;
        return 'tick-now';
      }
      if (event.kind === REPORT_CODE && reporter !== undefined) {
        const decoded = decodeReport(event.data);
        if (typeof decoded === 'string') return 'none';
        // The delivery time gating judged is restored through sentAtMs on the replay's wall clock.
        const sentAtMs = decoded.deliveryMs === undefined ? undefined : options.clock.wallMs() - decoded.deliveryMs;
        reporter.handle(sentAtMs === undefined ? decoded.params : { ...decoded.params, sentAtMs });
        return 'report';
      }
      return 'none';
    },
  };
}
