/**
 * What a process-evidence source can see (adapters/process/evidence-source.ts) and what the
 * detector loses where it cannot: the words `doctor` and `status explain` use. Pure.
 */
import type { ProcessEvidenceKind } from '../types.js';

export const PROCESS_EVIDENCE_KINDS: readonly ProcessEvidenceKind[] = ['cpu', 'children', 'agent-state', 'foreground'];

/** Where the evidence comes from: Linux procfs, `ps` (macOS), or nowhere. */
export type ProcessEvidenceSourceName = 'procfs' | 'ps' | 'none';

export interface ProcessCoverage {
  readonly source: ProcessEvidenceSourceName;
  /** Kinds this source cannot give on this machine, in PROCESS_EVIDENCE_KINDS order. */
  readonly missing: readonly ProcessEvidenceKind[];
  /** Why, in a few words ("no /proc", "/proc without task children files"); undefined when nothing is missing. */
  readonly why: string | undefined;
}

/** The evidence each kind carries, as the detector uses it (arbitrate.ts, debounce.ts watchdog). */
const EVIDENCE_NAME: Readonly<Record<ProcessEvidenceKind, string>> = {
  cpu: 'busy-without-output',
  children: 'child-process',
  'agent-state': 'stopped/zombie-agent',
  foreground: 'child-in-foreground',
};

function listed(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * One line on what is missing and what it costs, e.g. "no /proc: busy-without-output, child-process,
 * stopped/zombie-agent and child-in-foreground evidence unavailable; detection relies on screen,
 * title and the agent's own signals". Undefined when nothing is missing.
 */
export function describeProcessCoverage(coverage: ProcessCoverage): string | undefined {
  if (coverage.missing.length === 0) return undefined;
  const lost = PROCESS_EVIDENCE_KINDS.filter((kind) => coverage.missing.includes(kind));
  const kept = PROCESS_EVIDENCE_KINDS.filter((kind) => !coverage.missing.includes(kind));
  const head = `${coverage.why ?? coverage.source}: ${listed(lost.map((kind) => EVIDENCE_NAME[kind]))} evidence unavailable`;
  if (kept.length === 0) return `${head}; detection relies on screen, title and the agent's own signals`;
  return `${head}; ${listed(kept.map((kind) => EVIDENCE_NAME[kind]))} evidence still read`;
}
