/**
 * `agentwrap status capture <session> [--out DIR]`: the live session's viewport and evidence,
 * written as a fixture ready for `fixtures/<agent>/` (with `# provenance:` lines) plus the raw
 * evidence JSON. The file name's prefix is the state agentwrap published; rename it if wrong.
 */
import type { SessionState } from '../../../core/detector/session-state.js';
import type { EvidenceSnapshot } from '../../../core/types.js';
import { writeCapture } from '../../capture.js';
import { UsageError } from '../../errors.js';
import { COMMANDS } from '../../command-table.js';
import { parseCommand } from '../../flags.js';
import { requestFromSession } from '../../session-explain.js';

interface CapturePayload {
  readonly key: string;
  readonly agent: string;
  readonly agent_version: string | null;
  readonly snapshot: EvidenceSnapshot;
  readonly state: SessionState;
}

const SPEC = {
  name: 'status capture',
  usage: `usage: agentwrap status capture <session> [--out DIR]

Writes the live session's screen as a fixture (<state>_<key>-<time>.txt, named after the state
agentwrap published: check it against what the screen shows) and its evidence as JSON.
  --out DIR   where to write (default: the current directory)
`,
  options: COMMANDS.status.subcommands.capture.options,
} as const;

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('status capture needs one session', { hint: 'agentwrap status' });
  const { key, payload } = await requestFromSession(positionals[0] ?? '', 'capture');
  const capture = payload as CapturePayload;
  const stamp = new Date().toISOString();
  const version = `${capture.agent} ${capture.agent_version ?? '(version unknown)'}`;
  const written = writeCapture(values.out ?? '.', {
    agent: capture.agent,
    snapshot: capture.snapshot,
    state: capture.state.state === 'done' ? 'done' : capture.state.raw,
    provenance: [`${version}, ${stamp}, agentwrap status capture of session ${key} (${capture.snapshot.screen.cols}x${capture.snapshot.screen.rows.length})`],
    slug: `${key}-${stamp.replace(/[:.]/g, '')}`,
    extra: { session: key, published: capture.state },
  });
  process.stdout.write(`wrote ${written.fixture}\nwrote ${written.evidence}\n`);
  return 0;
}
