/**
 * The recording format (docs/architecture.md §6): asciicast v2 on the way out, v2 and v3 on the way
 * in, both normalized to one shape with absolute event times in seconds. Pure: the writer side
 * (app/recorder) feeds bytes and times in; nothing here touches a file or a clock.
 *
 * asciicast v2: a JSON header line `{"version":2,"width":W,"height":H,…}`, then one JSON array
 * per line `[seconds_since_start, code, data]`. v3: header `{"version":3,"term":{"cols","rows"}}`,
 * event times are intervals since the previous event, `x` carries the exit code, lines starting
 * with `#` are comments, unknown codes are ignored.
 */
import { checkEvidenceData, EVIDENCE_CODES, type EvidenceEventCode } from './recorded-evidence.js';
import { CAST_MAX_COLS, CAST_MAX_NOTES, CAST_MAX_ROWS, CAST_MAX_SPAN_S } from '../input-bounds.js';

/** Recordings hold screen text (and maybe typed input): owner-only, like the session records. */
export const RECORDING_FILE_MODE = 0o600;

/**
 * `o` output, `i` input, `r` resize ("COLSxROWS"), `m` marker, `x` exit code (v3 only), and
 * agentwrap's evidence lines: /proc samples and reporter events (core/recorded-evidence).
 */
export type RecordingEventKind = 'o' | 'i' | 'r' | 'm' | 'x' | EvidenceEventCode;

export interface RecordingEvent {
  /** Seconds since the start of the recording, non-decreasing across a recording. */
  readonly t: number;
  readonly kind: RecordingEventKind;
  readonly data: string;
}

export interface RecordingHeader {
  /** The asciicast version the file was written in. */
  readonly version: 2 | 3;
  readonly cols: number;
  readonly rows: number;
  /** The command line that was recorded, as one string (e.g. `claude --model x`). */
  readonly command?: string;
  /** Unix epoch seconds of the start. */
  readonly timestamp?: number;
  readonly title?: string;
  /** The recorded environment subset; for v3 `term.type` is folded in as `TERM`. */
  readonly env?: Readonly<Record<string, string>>;
  /** The pack the live session used (agentwrap's own header field); replay picks it by default. */
  readonly pack?: RecordedPack;
}

/**
 * The pack a recording was made with: its agent, and a digest of the pack file as it was, so a
 * replay with a changed pack can say so. Written under the header's `agentwrap` key.
 */
export interface RecordedPack {
  readonly agent: string;
  /** The first 16 hex digits of the pack file's SHA-256; absent when unknown. */
  readonly digest?: string;
}

/** A problem in one line that decoding stepped over; `line` is 1-based. */
export interface RecordingNote {
  readonly line: number;
  readonly message: string;
}

export interface Recording {
  readonly header: RecordingHeader;
  readonly events: readonly RecordingEvent[];
  /** Lines that were skipped or repaired, so a damaged file still replays and says why. */
  readonly notes: readonly RecordingNote[];
}

/** The header is unusable, so nothing in the file can be replayed. */
export class RecordingFormatError extends Error {
  override readonly name = 'RecordingFormatError';
  readonly source: string;
  readonly line: number;

  constructor(source: string, line: number, problem: string) {
    super(`${source}:${line}: ${problem}`);
    this.source = source;
    this.line = line;
  }
}

/** What the writer puts in a v2 header. */
export interface HeaderFields {
  readonly cols: number;
  readonly rows: number;
  /** Unix epoch seconds (fractions are dropped, as asciinema does). */
  readonly timestamp: number;
  readonly command: string;
  readonly title?: string;
  /** Keep this a small subset (see pickRecordedEnv): a recording is shared with others. */
  readonly env: Readonly<Record<string, string>>;
  readonly pack?: RecordedPack;
}

/**
 * The environment variables a recording keeps. Terminal identity only: anything else could be a
 * secret, and a recording is a file people attach to bug reports.
 */
export const RECORDED_ENV_KEYS: readonly string[] = ['TERM', 'COLORTERM', 'SHELL'];

export function pickRecordedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of RECORDED_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/** The v2 header line, newline included. */
export function encodeHeader(fields: HeaderFields): string {
  const header: Record<string, unknown> = {
    version: 2,
    width: fields.cols,
    height: fields.rows,
    timestamp: Math.floor(fields.timestamp),
    command: fields.command,
  };
  if (fields.title !== undefined) header['title'] = fields.title;
  header['env'] = { ...fields.env };
  if (fields.pack !== undefined) header['agentwrap'] = { agent: fields.pack.agent, ...(fields.pack.digest === undefined ? {} : { pack_digest: fields.pack.digest }) };
  return `${JSON.stringify(header)}\n`;
}

const MICROS_PER_SECOND = 1_000_000;

/** Rounds to the microsecond, the precision a v2 event line carries. */
export function toMicrosecondSeconds(seconds: number): number {
  return Math.round(seconds * MICROS_PER_SECOND) / MICROS_PER_SECOND;
}

/**
 * One v2 event line, newline included. `seconds` is written with exactly 6 decimals.
 * JSON.stringify escapes control characters and lone surrogates (ES2019 well-formed
 * stringify), so any JS string round-trips through decodeRecording.
 */
export function encodeEvent(seconds: number, kind: RecordingEventKind, data: string): string {
  return `[${toMicrosecondSeconds(seconds).toFixed(6)}, ${JSON.stringify(kind)}, ${JSON.stringify(data)}]\n`;
}

export function formatResize(cols: number, rows: number): string {
  return `${cols}x${rows}`;
}

export function parseResize(data: string): { cols: number; rows: number } | undefined {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(data.trim());
  if (match === null) return undefined;
  const cols = Number(match[1]);
  const rows = Number(match[2]);
  return cols > 0 && rows > 0 ? { cols, rows } : undefined;
}

/**
 * Bytes → text across chunk boundaries. A PTY read can end inside a multibyte character; the
 * incomplete tail is held back and completes the next chunk, so no character is mangled into
 * U+FFFD by the split. Bytes that are not valid UTF-8 still become U+FFFD (a recording is text).
 */
export interface Utf8StreamDecoder {
  /** The text completed by this chunk; may be empty when the chunk ends mid-character. */
  decode(bytes: Uint8Array): string;
  /** Whatever was held back, as U+FFFD; call once at the end. */
  flush(): string;
}

export function createUtf8StreamDecoder(): Utf8StreamDecoder {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  return {
    decode: (bytes) => decoder.decode(bytes, { stream: true }),
    flush: () => decoder.decode(),
  };
}

/**
 * The writer's state: start-relative times in, encoded lines out. Times are clamped so they
 * never go backwards (a clock that stepped back, or rounding), which keeps the v2 promise of
 * non-decreasing times. Output and input each get their own UTF-8 decoder.
 */
export interface CastEncoder {
  header(fields: HeaderFields): string;
  /** Encoded line(s) for a PTY output chunk; '' when the chunk only held a partial character. */
  output(seconds: number, bytes: Uint8Array): string;
  input(seconds: number, bytes: Uint8Array): string;
  resize(seconds: number, cols: number, rows: number): string;
  marker(seconds: number, label: string): string;
  /** A /proc sample or reporter event line; `data` from core/recorded-evidence's encoders. */
  evidence(seconds: number, code: EvidenceEventCode, data: string): string;
  /** Lines for bytes still held back by the decoders (as U+FFFD); call once at close. */
  finish(seconds: number): string;
}

export function createCastEncoder(): CastEncoder {
  const outputDecoder = createUtf8StreamDecoder();
  const inputDecoder = createUtf8StreamDecoder();
  let lastSeconds = 0;

  const line = (seconds: number, kind: RecordingEventKind, data: string): string => {
    const rounded = toMicrosecondSeconds(Number.isFinite(seconds) ? seconds : lastSeconds);
    lastSeconds = Math.max(lastSeconds, rounded);
    return encodeEvent(lastSeconds, kind, data);
  };
  const text = (seconds: number, kind: 'o' | 'i', data: string): string =>
    data === '' ? '' : line(seconds, kind, data);

  return {
    header: encodeHeader,
    output: (seconds, bytes) => text(seconds, 'o', outputDecoder.decode(bytes)),
    input: (seconds, bytes) => text(seconds, 'i', inputDecoder.decode(bytes)),
    resize: (seconds, cols, rows) => line(seconds, 'r', formatResize(cols, rows)),
    marker: (seconds, label) => line(seconds, 'm', label),
    evidence: (seconds, code, data) => line(seconds, code, data),
    finish: (seconds) => text(seconds, 'o', outputDecoder.flush()) + text(seconds, 'i', inputDecoder.flush()),
  };
}

const KNOWN_KINDS: ReadonlySet<string> = new Set(['o', 'i', 'r', 'm', 'x', ...EVIDENCE_CODES]);

/**
 * Parses a v2 or v3 file into one normalized form. Bad event lines are skipped with a note (a
 * truncated last line is what a crash mid-write leaves, and is noted as such); only an unusable
 * header throws RecordingFormatError, naming `source` and the line. Times that go backwards
 * (v2) or negative intervals (v3) are clamped so replay always moves forward, with a note.
 * Bounds (core/input-bounds.ts): a header or resize past CAST_MAX_COLS × CAST_MAX_ROWS is
 * clamped, events past CAST_MAX_SPAN_S end the recording, and past CAST_MAX_NOTES notes the
 * rest are counted in one last note, each with its line.
 */
export function decodeRecording(text: string, source = 'recording'): Recording {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const headerIndex = lines.findIndex((candidate) => candidate.trim() !== '');
  if (headerIndex < 0) throw new RecordingFormatError(source, 1, 'empty file: no asciicast header');
  const notes = createNoteList();
  const header = clampHeaderSize(parseHeader(lines[headerIndex] ?? '', source, headerIndex + 1), headerIndex + 1, notes.push);

  const events: RecordingEvent[] = [];
  let previousT = 0;
  let lastLineIndex = lines.length - 1;
  while (lastLineIndex > headerIndex && (lines[lastLineIndex] ?? '').trim() === '') lastLineIndex -= 1;

  for (let index = headerIndex + 1; index <= lastLineIndex; index += 1) {
    const raw = lines[index] ?? '';
    const lineNumber = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    if (header.version === 3 && trimmed.startsWith('#')) continue;

    const isTruncatedTail = index === lastLineIndex && !endsWithNewline;
    const parsed = parseEventLine(trimmed);
    if (typeof parsed === 'string') {
      notes.push({
        line: lineNumber,
        message: isTruncatedTail ? `truncated last line ignored (${parsed})` : `${parsed}; line ignored`,
      });
      continue;
    }
    let t: number;
    if (header.version === 3) {
      if (parsed.time < 0) notes.push({ line: lineNumber, message: `negative interval ${parsed.time} treated as 0` });
      t = previousT + Math.max(0, parsed.time);
    } else {
      if (parsed.time < previousT) {
        notes.push({ line: lineNumber, message: `time ${parsed.time} goes backwards; clamped to ${previousT}` });
      }
      t = Math.max(previousT, parsed.time);
    }
    if (t > CAST_MAX_SPAN_S) {
      // Replay ticks through recorded time: 1e300 s would never end, 1e9 s ticks for an hour.
      notes.push({ line: lineNumber, message: `event time ${t} s is past the ${CAST_MAX_SPAN_S} s a recording may span; this line and the rest ignored` });
      break;
    }
    // v3 sums intervals; rounding to the microsecond keeps 0.1+0.2 from drifting to 0.30000000000000004.
    t = toMicrosecondSeconds(t);
    previousT = t;
    // Unknown codes are ignored (v3 spec; v2 players do the same), but their time still counts:
    // a v3 interval is measured from the previous line, whatever its code.
    if (!KNOWN_KINDS.has(parsed.code)) continue;
    if (parsed.code === 'x' && header.version === 2) {
      notes.push({ line: lineNumber, message: 'exit event "x" in a v2 file kept anyway' });
    }
    const evidenceProblem = EVIDENCE_CODES.has(parsed.code) ? checkEvidenceData(parsed.code as EvidenceEventCode, parsed.data) : undefined;
    if (evidenceProblem !== undefined) {
      notes.push({ line: lineNumber, message: `${parsed.code}: ${evidenceProblem}; line ignored` });
      continue;
    }
    const data = parsed.code === 'r' ? clampResize(parsed.data, lineNumber, notes.push) : parsed.data;
    events.push({ t, kind: parsed.code as RecordingEventKind, data });
  }
  return { header, events, notes: notes.done() };
}

/** Notes up to CAST_MAX_NOTES, then one that counts the rest: a file of bad lines is one screen of messages. */
function createNoteList(): { push: (note: RecordingNote) => void; done: () => RecordingNote[] } {
  const notes: RecordingNote[] = [];
  let firstDropped: number | undefined;
  let dropped = 0;
  return {
    push: (note) => {
      if (notes.length < CAST_MAX_NOTES) {
        notes.push(note);
        return;
      }
      firstDropped ??= note.line;
      dropped += 1;
    },
    done: () => (firstDropped === undefined ? notes : [...notes, { line: firstDropped, message: `${dropped} more problems from this line on not listed` }]),
  };
}

function sizeLimitNote(what: string, cols: number, rows: number): string {
  return `${what} ${formatResize(cols, rows)} is past the ${formatResize(CAST_MAX_COLS, CAST_MAX_ROWS)} limit; clamped to ${formatResize(Math.min(cols, CAST_MAX_COLS), Math.min(rows, CAST_MAX_ROWS))}`;
}

/** The header with its size clamped: the mirror allocates every cell (2,000,000² took 9 GB). */
function clampHeaderSize(header: RecordingHeader, lineNumber: number, note: (note: RecordingNote) => void): RecordingHeader {
  if (header.cols <= CAST_MAX_COLS && header.rows <= CAST_MAX_ROWS) return header;
  note({ line: lineNumber, message: sizeLimitNote('header size', header.cols, header.rows) });
  return { ...header, cols: Math.min(header.cols, CAST_MAX_COLS), rows: Math.min(header.rows, CAST_MAX_ROWS) };
}

/** A resize's data with its size clamped; data that is not a size is left for replay to ignore. */
function clampResize(data: string, lineNumber: number, note: (note: RecordingNote) => void): string {
  const size = parseResize(data);
  if (size === undefined || (size.cols <= CAST_MAX_COLS && size.rows <= CAST_MAX_ROWS)) return data;
  note({ line: lineNumber, message: sizeLimitNote('resize to', size.cols, size.rows) });
  return formatResize(Math.min(size.cols, CAST_MAX_COLS), Math.min(size.rows, CAST_MAX_ROWS));
}

/** The time of the last event, in seconds (0 for an empty recording). */
export function recordingDuration(recording: Recording): number {
  return recording.events.at(-1)?.t ?? 0;
}

/**
 * The executable basename of a recorded command line: `/usr/bin/claude --x` → `claude`. Handles
 * a leading quoted word. Used to choose a pack for replay.
 */
export function commandBasename(command: string): string | undefined {
  const trimmed = command.trim();
  const quoted = /^(['"])(.*?)\1/.exec(trimmed);
  const first = quoted !== null ? quoted[2] : trimmed.split(/\s+/)[0];
  if (first === undefined || first === '') return undefined;
  const base = first.split('/').at(-1);
  return base === undefined || base === '' ? undefined : base;
}

/** argv → one command string a shell would split back the same way (POSIX single quotes). */
export function formatCommand(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function parseHeader(line: string, source: string, lineNumber: number): RecordingHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RecordingFormatError(source, lineNumber, `header is not JSON (${reason})`);
  }
  if (!isObject(value)) throw new RecordingFormatError(source, lineNumber, 'header is not a JSON object');

  const version = value['version'];
  let cols: unknown;
  let rows: unknown;
  let env: Record<string, string> | undefined = isObject(value['env']) ? stringEntries(value['env']) : undefined;
  if (version === 2) {
    cols = value['width'];
    rows = value['height'];
  } else if (version === 3) {
    const term = value['term'];
    if (!isObject(term)) throw new RecordingFormatError(source, lineNumber, 'v3 header has no "term" object');
    cols = term['cols'];
    rows = term['rows'];
    if (typeof term['type'] === 'string') env = { TERM: term['type'], ...env };
  } else {
    throw new RecordingFormatError(
      source,
      lineNumber,
      `unsupported asciicast version ${JSON.stringify(version)} (expected 2 or 3)`,
    );
  }
  if (!isPositiveInteger(cols) || !isPositiveInteger(rows)) {
    const names = version === 2 ? '"width"/"height"' : '"term.cols"/"term.rows"';
    throw new RecordingFormatError(source, lineNumber, `header ${names} must be positive integers`);
  }

  const command = value['command'];
  const timestamp = value['timestamp'];
  const title = value['title'];
  const pack = parseRecordedPack(value['agentwrap']);
  return {
    version,
    cols,
    rows,
    ...(typeof command === 'string' ? { command } : {}),
    ...(typeof timestamp === 'number' && Number.isFinite(timestamp) ? { timestamp } : {}),
    ...(typeof title === 'string' ? { title } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(pack !== undefined ? { pack } : {}),
  };
}

/** The header's `agentwrap` object; anything unusable in it is ignored, as an unknown field would be. */
function parseRecordedPack(value: unknown): RecordedPack | undefined {
  if (!isObject(value) || typeof value['agent'] !== 'string' || value['agent'] === '') return undefined;
  const digest = value['pack_digest'];
  return { agent: value['agent'], ...(typeof digest === 'string' ? { digest } : {}) };
}

/** The event triple, or a short description of what is wrong with it. */
function parseEventLine(line: string): { time: number; code: string; data: string } | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // The parser's message adds nothing for a user: the line is simply not an event.
    return 'not valid JSON';
  }
  if (!Array.isArray(value) || value.length < 3) return 'not a [time, code, data] array';
  const [time, code, data] = value as unknown[];
  if (typeof time !== 'number' || !Number.isFinite(time)) return 'event time is not a number';
  if (typeof code !== 'string') return 'event code is not a string';
  if (typeof data !== 'string') return 'event data is not a string';
  return { time, code, data };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function stringEntries(value: Record<string, unknown>): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') entries[key] = entry;
  }
  return entries;
}
