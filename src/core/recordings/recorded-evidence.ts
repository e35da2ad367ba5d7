/**
 * The evidence a recording carries besides the screen: the /proc samples the live loop took and
 * the reporter (hook/plugin) events it received, as extra asciicast event lines. Replay feeds
 * them back at their times, so a decision that hung on CPU or a hook is reproduced by `eval`.
 *
 * They are ordinary `[seconds, code, data]` lines with agentwrap's own codes (asciicast players
 * skip codes they do not know), `data` being a JSON object in a string. Pure: the recorder and
 * replay hand times and values in.
 */
import { slimPayload } from '../detector/gating.js';
import { classifyInput, type InputKind, type InputSource } from '../detector/operator-input.js';
import type { ChildProcess, ProcessEvidence } from '../types.js';

/** One /proc sample of the agent's tree, written when the live loop takes a fresh one. */
export const PROCESS_SAMPLE_CODE = 'agentwrap.proc';

/** One `report` request (hook/plugin event) as the live session received it. */
export const REPORT_CODE = 'agentwrap.report';

/**
 * One input read, written instead of an `i` line when input is not recorded: that input came,
 * how many bytes, whether the operator typed it and whether it was an interrupt key — never the
 * keys. A turn starts with the operator's input, so replay needs these to see it.
 */
export const INPUT_MARKER_CODE = 'agentwrap.input';

export type EvidenceEventCode = typeof PROCESS_SAMPLE_CODE | typeof REPORT_CODE | typeof INPUT_MARKER_CODE;

export const EVIDENCE_CODES: ReadonlySet<string> = new Set([PROCESS_SAMPLE_CODE, REPORT_CODE, INPUT_MARKER_CODE]);

/**
 * A report as recorded: the request's own fields minus `sentAtMs` (a wall time, meaningless in
 * replay) and with the payload slimmed, plus how long it took to arrive (gating judges
 * staleness by it).
 */
export interface RecordedReport {
  readonly params: Readonly<Record<string, unknown>>;
  /** Wall ms between the reporter sending it and the session receiving it; absent if unknown. */
  readonly deliveryMs?: number;
}

/** The JSON `data` of a process sample line. The sample's time is the line's time. */
export function encodeProcessSample(evidence: ProcessEvidence): string {
  if (!evidence.sampled) return JSON.stringify({ sampled: false, reason: evidence.reason });
  return JSON.stringify({
    sampled: true,
    cpuRate: evidence.cpuRate ?? null,
    agentState: evidence.agentState,
    isStopped: evidence.isStopped,
    isZombie: evidence.isZombie,
    isForeground: evidence.isForeground ?? null,
    children: evidence.children?.map((child) => [child.pid, child.comm, child.state]) ?? null,
  });
}

/** The sample back, with `atMs` (the replay clock's time of its line), or what is wrong with it. */
export function decodeProcessSample(data: string, atMs: number): ProcessEvidence | string {
  const value = parseObject(data);
  if (typeof value === 'string') return value;
  if (value['sampled'] === false) {
    return { sampled: false, reason: typeof value['reason'] === 'string' ? value['reason'] : 'not sampled' };
  }
  if (value['sampled'] !== true) return 'process sample has no boolean "sampled"';
  const cpuRate = value['cpuRate'];
  if (cpuRate !== null && (typeof cpuRate !== 'number' || !Number.isFinite(cpuRate) || cpuRate < 0)) return 'process sample "cpuRate" is not a rate';
  if (typeof value['agentState'] !== 'string') return 'process sample has no "agentState"';
  if (typeof value['isStopped'] !== 'boolean' || typeof value['isZombie'] !== 'boolean') return 'process sample "isStopped"/"isZombie" are not booleans';
  const isForeground = value['isForeground'];
  if (isForeground !== null && typeof isForeground !== 'boolean') return 'process sample "isForeground" is not a boolean';
  const children = decodeChildren(value['children']);
  if (typeof children === 'string') return children;
  return {
    sampled: true,
    cpuRate: cpuRate ?? undefined,
    children,
    agentState: value['agentState'],
    isStopped: value['isStopped'],
    isZombie: value['isZombie'],
    isForeground: isForeground ?? undefined,
    atMs,
  };
}

/**
 * The JSON `data` of a report line. `receivedWallMs` is when the session got it, so a
 * `sentAtMs` in the request becomes the delivery time gating saw.
 */
export function encodeReport(params: Readonly<Record<string, unknown>>, receivedWallMs: number): string {
  const { sentAtMs, payload: fullPayload, ...others } = params;
  // Only the payload fields gating reads are kept (as the reporter does): a reporter other than
  // `agentwrap report` may send a whole hook payload, with the prompt or a command line in it.
  const payload = slimPayload(fullPayload);
  const rest = payload === undefined ? others : { ...others, payload };
  const deliveryMs = typeof sentAtMs === 'number' && Number.isFinite(sentAtMs) ? Math.max(0, Math.round(receivedWallMs - sentAtMs)) : undefined;
  return JSON.stringify(deliveryMs === undefined ? { params: rest } : { params: rest, deliveryMs });
}

export function decodeReport(data: string): RecordedReport | string {
  const value = parseObject(data);
  if (typeof value === 'string') return value;
  const params = value['params'];
  if (!isObject(params)) return 'report has no "params" object';
  const deliveryMs = value['deliveryMs'];
  if (deliveryMs === undefined) return { params };
  if (typeof deliveryMs !== 'number' || !Number.isFinite(deliveryMs) || deliveryMs < 0) return 'report "deliveryMs" is not a duration';
  return { params, deliveryMs };
}

/** The JSON `data` of an input marker: the read's size and kind, not its content. */
export function encodeInputMarker(bytes: Uint8Array): string {
  const kind = classifyInput(bytes);
  return JSON.stringify({ bytes: bytes.length, source: kind.source, interrupt: kind.isInterrupt });
}

const INPUT_SOURCES: ReadonlySet<string> = new Set<InputSource>(['typed', 'presence', 'terminal']);

export function decodeInputMarker(data: string): InputKind | string {
  const value = parseObject(data);
  if (typeof value === 'string') return value;
  const source = value['source'];
  if (typeof source !== 'string' || !INPUT_SOURCES.has(source)) return 'input marker "source" is not typed, presence or terminal';
  if (typeof value['interrupt'] !== 'boolean') return 'input marker "interrupt" is not a boolean';
  return { source: source as InputSource, isInterrupt: value['interrupt'] };
}

/** Checks an evidence line's data as the file is read, so a bad one is skipped with its line number. */
export function checkEvidenceData(code: EvidenceEventCode, data: string): string | undefined {
  const decoded =
    code === PROCESS_SAMPLE_CODE ? decodeProcessSample(data, 0) : code === REPORT_CODE ? decodeReport(data) : decodeInputMarker(data);
  return typeof decoded === 'string' ? decoded : undefined;
}

/** A list of [pid, comm, state], or null where the source could not see the children. */
function decodeChildren(value: unknown): ChildProcess[] | undefined | string {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return 'process sample "children" is not a list';
  const children: ChildProcess[] = [];
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry)) return 'process sample child is not [pid, comm, state]';
    const [pid, comm, state] = entry as unknown[];
    if (typeof pid !== 'number' || !Number.isInteger(pid) || typeof comm !== 'string' || typeof state !== 'string') {
      return 'process sample child is not [pid, comm, state]';
    }
    children.push({ pid, comm, state });
  }
  return children;
}

function parseObject(data: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return 'evidence data is not valid JSON';
  }
  return isObject(value) ? value : 'evidence data is not a JSON object';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
