/**
 * Writes a captured moment as a fixture ready for `fixtures/<agent>/` (viewport text with
 * `# provenance:`, `# title:` and `# progress:` header lines, in the format core/packs/fixture.ts
 * reads) plus the raw evidence as JSON beside it. Shared by `status capture` and `replay --capture-at`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../app/platform.js';
import type { EvidenceSnapshot, RawState } from '../core/types.js';
import { progressText } from '../core/packs/regions.js';

export interface CaptureInput {
  readonly agent: string;
  readonly snapshot: EvidenceSnapshot;
  /** The state agentwrap published at that moment: the file name's expectation prefix. */
  readonly state: RawState | 'done';
  readonly provenance: readonly string[];
  /** Short name for the file, e.g. `session-key-12s`. */
  readonly slug: string;
  readonly extra?: Record<string, unknown>;
}

function expectationFor(state: CaptureInput['state']): string {
  switch (state) {
    case 'working':
    case 'blocked':
    case 'idle':
      return state;
    case 'done':
      return 'idle';
    case 'unknown':
      // Nothing matched: the capture is raw material; name it so a person decides.
      return 'unlabeled';
  }
}

/** The fixture text: header lines, then the viewport rows. */
export function formatFixture(input: CaptureInput): string {
  const { snapshot } = input;
  const header = input.provenance.map((line) => `# provenance: ${line}`);
  if (snapshot.title !== undefined) header.push(`# title: ${snapshot.title.text.replace(/[\r\n]/g, ' ')}`);
  const progress = progressText(snapshot.progress);
  if (progress !== undefined) header.push(`# progress: ${progress}`);
  header.push(`# cursor: ${snapshot.screen.cursorRow + 1}`);
  return `${[...header, ...snapshot.screen.rows].join('\n')}\n`;
}

/** Writes `<state>_<slug>.txt` and `<state>_<slug>.evidence.json` into `dir`; returns both paths. */
export function writeCapture(dir: string, input: CaptureInput): { fixture: string; evidence: string } {
  // Screen text: the folders made for it are 0700 and each file is a fresh 0600 one (an older
  // 0644 file of the same name is replaced, not written through). A user's existing folder is left as it is.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const base = `${expectationFor(input.state)}_${input.slug.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  const fixture = join(dir, `${base}.txt`);
  const evidence = join(dir, `${base}.evidence.json`);
  // The file may land anywhere (not in fixtures/<agent>/), so it names its agent for `status explain --file`.
  writeFileAtomicSync(fixture, `# agent: ${input.agent}\n${formatFixture(input)}`);
  writeFileAtomicSync(evidence, `${JSON.stringify({ agent: input.agent, state: input.state, ...input.extra, snapshot: input.snapshot }, null, 2)}\n`);
  return { fixture, evidence };
}
