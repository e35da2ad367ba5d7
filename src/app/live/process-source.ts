/**
 * The live session's process evidence: the agent's process tree, sampled about once a second
 * whatever the tick rate, from the best source this machine offers (adapters/process/evidence-source.ts).
 */
import { hasProcfs, openProcessProbe, type ProcessProbe, type ProcessRoot } from '../../adapters/process/evidence-source.js';
import type { ProcessCoverage } from '../../core/detector/process-coverage.js';
import type { ProcessEvidence } from '../../core/types.js';
import type { ProcessSource } from '../session.js';

/**
 * The /proc sample is reused by ticks closer together than this (streaming ticks come every
 * 250 ms); just under the 1 s tick floor, so a tick at the floor always gets a fresh one.
 */
export const PROCESS_SAMPLE_MIN_MS = 900;

/** The session's sampler, and what its source can see (undefined until the agent's pid is known). */
export type LiveProcessSource = ProcessSource & { readonly coverage: () => ProcessCoverage | undefined };

/**
 * Ticks come up to 4 times a second while output streams; the /proc walk (a file per thread of
 * every process in the agent's tree) or the ps run is kept to about once a second, the tick
 * floor. The CPU rate it yields needs a window that long anyway (CPU_RATE_MIN_WINDOW_MS).
 */
export function createProcessSource(
  agentPid: () => number | undefined,
  /** Each fresh sample (the live session records it, so replay sees the CPU a tick saw: core/recorded-evidence). */
  onSample: (evidence: ProcessEvidence, atMs: number) => void = () => undefined,
  openProbe: (root: ProcessRoot) => ProcessProbe = (root) => openProcessProbe(root),
  /** The job-control helper, the agent's parent: where the agent's pid cannot be read (no /proc), the probe finds it. */
  helperPid?: number,
  isAgentPidReadable: boolean = hasProcfs(),
): LiveProcessSource {
  let probe: ProcessProbe | undefined;
  let lastSample: { readonly atMs: number; readonly evidence: ProcessEvidence } | undefined;
  const source: ProcessSource = (nowMs) => {
    if (lastSample !== undefined && nowMs - lastSample.atMs < PROCESS_SAMPLE_MIN_MS) return lastSample.evidence;
    // The probe follows the first pid found for good, so the lookup (a /proc read through the
    // job-control helper) is only needed until then.
    if (probe === undefined) {
      const pid = agentPid();
      if (pid !== undefined) probe = openProbe({ pid });
      else if (helperPid !== undefined && !isAgentPidReadable) probe = openProbe({ firstChildOf: helperPid });
      else return { sampled: false, reason: 'agent pid not known yet' };
    }
    lastSample = { atMs: nowMs, evidence: probe.sample(nowMs) };
    onSample(lastSample.evidence, nowMs);
    return lastSample.evidence;
  };
  return Object.assign(source, { coverage: () => probe?.coverage() });
}
