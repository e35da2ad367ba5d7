/**
 * The headless screen mirror: a copy of what the user's terminal shows, kept by @xterm/headless,
 * plus the out-of-band evidence agents send (OSC titles, 9;4 progress, notifications, BEL,
 * OSC 133 marks), each stamped with the time its bytes arrived. The live session and replay
 * both use it; replay asks for `exact` mode so nothing is ever skipped.
 *
 * Flow control (why it looks like this). The launcher writes every PTY chunk to the user's
 * terminal first and then calls `write` without awaiting. xterm parses at ~75–110 MB/s on an
 * idle machine (45–55 MB/s per CPU second measured on a loaded 2-core one, see docs/screen.md)
 * and throws once more than 50 MB wait to be parsed; a PTY flood (~80–100 MB/s) outruns it.
 * Two choices existed: (b) a backpressure signal that pauses the PTY until the mirror catches
 * up, which would throttle the user's own terminal to the mirror's parse speed (and put a
 * status tool in the passthrough's critical path), or (a) skip the OLDEST unparsed backlog.
 * We do (a): the passthrough never waits for the mirror, at most `IN_FLIGHT_MAX_BYTES` sit in
 * xterm and at most `BACKLOG_HIGH_BYTES` wait here, and when the backlog passes that mark it
 * is cut down to the newest `BACKLOG_LOW_BYTES`. TUIs redraw their whole screen constantly, so
 * the mirror is truthful again within one redraw after the flood; the hysteresis makes such a
 * cut rare (one discontinuity per ~3 MB of excess, not one per chunk). What a cut could
 * otherwise lose is salvaged: the parser is reset with CAN (so the retained bytes are not read
 * as the tail of a half-seen escape sequence), the last alternate-screen switch in the skipped
 * bytes is replayed, and OSC titles/progress/notifications/marks and BELs in the skipped bytes
 * are recorded as evidence with their own arrival times. Skipped bytes are counted in `stats()`.
 * `exact: true` never skips (memory is then the caller's business: replay awaits every write).
 *
 * Parse budget (main thread, live mode). Once the passthrough runs off the JS thread, the mirror
 * is most of what agentwrap costs under a flood, and parsing everything costs ~1 CPU second per
 * 40–50 MB. So the live main-thread mirror parses inline, in slices it schedules itself, and
 * charges each slice's measured time to a token bucket (`PARSE_BUDGET_MS_PER_S`, ~5 % of a core).
 * When the bucket runs dry, bytes only accumulate (and are cut as above) until it has refilled
 * enough to parse about one window; then the backlog is cut to the newest `BUDGET_WINDOW_BYTES`
 * and parsed. What the detector reads when it matters is exact again: once no byte has arrived
 * for `QUIET_CATCH_UP_MS` the mirror catches up without a budget (well before the detector's
 * quiet recheck), and `flush()` (the session calls it after the agent exited) does the same at
 * once. A small write into an idle mirror is parsed before `write` returns: under a spinner that
 * saves xterm's write timer, a second wake-up per frame.
 *
 * `worker: true` runs the parser in a worker thread (src/adapters/screen-worker.ts) behind the
 * same interface: the flow control stays here, the worker parses and sends back the view and
 * evidence with each acknowledgement, so `view()` and `evidence()` stay synchronous. It takes
 * the parse off the passthrough's thread (main-thread time for 200 MB: ~0.2 s instead of ~4 s)
 * at the price of ~13 MB RSS and a few hundred ms of start-up.
 */
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type * as XtermHeadless from '@xterm/headless';
import type { Terminal as XtermTerminal } from '@xterm/headless';
import type { ProgressEvidence, ScreenView, ShellMark, TitleEvidence } from '../core/types.js';
import type { Clock } from './clock.js';

// @xterm/headless ships CommonJS without an `exports` map. Loaded with require rather than
// import: Node's ESM loader would first run its CommonJS export lexer over the 300 KB bundle,
// which took ~27 ms of every start-up here (import ~44 ms, require ~17 ms, measured).
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof XtermHeadless;

/** Bytes handed to xterm at once: ~10 ms of parsing, so one parse slice never starves the
 * event loop and xterm stays far below its 50 MB discard limit (where it throws). */
export const IN_FLIGHT_MAX_BYTES = 1024 * 1024;
/** The same for the worker: its messages queue there while it parses, and a deeper pipeline
 * hides the round trip of acknowledgements. */
export const WORKER_IN_FLIGHT_MAX_BYTES = 4 * 1024 * 1024;
/** Unparsed backlog (beyond what xterm holds) above which the oldest bytes are skipped.
 * 4 MiB is ~40–80 ms of parsing: about the most the mirror can lag behind the passthrough. */
export const BACKLOG_HIGH_BYTES = 4 * 1024 * 1024;
/** What a cut keeps: the newest bytes, several full redraws of a 200x50 TUI (~50–100 KB each). */
export const BACKLOG_LOW_BYTES = 1024 * 1024;
/** Chunks larger than this are handed to xterm in pieces, so one huge write (replay of a
 * recording, a test) is parsed in slices instead of one long synchronous call. */
export const PIECE_MAX_BYTES = 256 * 1024;
/** Parse time the live main-thread mirror may spend per second while output keeps coming: 5 % of
 * a core, ~2–2.5 MB/s of TUI output here. A 200 MB flood at 80 MB/s then costs ~0.13 s of parsing
 * instead of ~4 s; a 10 fps spinner (~0.5 ms/s) or a 60 fps full-screen redraw of 20 KB
 * (~25 ms/s) stays far inside it and is parsed completely. */
export const PARSE_BUDGET_MS_PER_S = 50;
/** The bucket's capacity: a burst of output after a calm spell (a full redraw, a long diff of up
 * to ~1 MB) is parsed at once instead of waiting for the budget. */
export const PARSE_BURST_MS = 20;
/** Once the bucket ran dry, parsing resumes when this much is back: enough for about one
 * `BUDGET_WINDOW_BYTES` window, so each resumption shows a whole recent screen instead of a
 * sliver of an old one. At the budget's rate that is one screen update per 200 ms of flood. */
export const PARSE_RESUME_MS = 10;
/** What a resumption (and the catch-up after a lossy flood) keeps: the newest bytes. Two full
 * truecolor redraws of a 200x50 TUI (~200 KB each at worst; typical frames are 5–50 KB). */
export const BUDGET_WINDOW_BYTES = 512 * 1024;
/** No byte for this long counts as quiet: the mirror then catches up without a budget. It must
 * be well under the detector's QUIET_RECHECK_MS (100 ms, src/core/policy.ts), which reads the
 * screen once output stopped: catch-up (≤ a window, ~10–20 ms) starts here and ends before. */
export const QUIET_CATCH_UP_MS = 30;
/** A write at most this big into an idle mirror is parsed inline (~20–100 µs; a spinner frame
 * or a prompt redraw), saving the wake-up of a scheduled parse. */
export const INLINE_WRITE_MAX_BYTES = 4 * 1024;
/** Budgeted parsing goes in slices this big (~1–1.5 ms), so the bucket is overdrawn by little. */
export const BUDGET_SLICE_BYTES = 64 * 1024;
/** One event-loop turn parses at most this long, so a catch-up never holds the loop for long. */
export const PARSE_TURN_MAX_MS = 8;
/** A title is stored bounded (agents and malicious output may send megabytes). */
export const TITLE_MAX_CHARS = 512;
/** How many title change times are kept, enough to tell an animating spinner from a still one. */
export const TITLE_RECENT_CHANGES = 8;
/** Default scrollback: the mirror reads only the viewport, so history is memory spent for nothing. */
export const DEFAULT_SCROLLBACK_LINES = 0;

/**
 * Longest OSC or DCS payload handed to xterm; the rest of a longer one is dropped before
 * parsing (its terminator is kept). xterm builds each payload one character at a time into a
 * rope of ~32 bytes per character, once per registered handler, up to 10 M characters: a 4 MiB
 * title cost ~280 MB of heap. Everything the mirror reads from a string (a title, a progress
 * value, a notification, a shell mark) is in its first few hundred characters.
 */
export const STRING_PAYLOAD_MAX_UNITS = 64 * 1024;

/** How far into the retained bytes a cut looks for the start of a redraw (several typical frames). */
const REDRAW_SEARCH_MAX_BYTES = 128 * 1024;
/** Longest OSC payload the skip salvage keeps; longer ones are titles we bound anyway. */
const SALVAGE_OSC_MAX_BYTES = 64 * 1024;
/** OSC sequences kept from skipped bytes (the newest): enough for a title's recent changes. */
const SALVAGE_OSC_MAX_COUNT = 16;
const CAN = 0x18;
const BEL = 0x07;
const ESC = 0x1b;
const SUB = 0x1a;

export interface ScreenOptions {
  readonly cols: number;
  readonly rows: number;
  /** Stamps evidence with the time its bytes arrived (`clock.nowMs()` at `write`). */
  readonly clock: Clock;
  /** Lines kept above the viewport; never read by the mirror. Default 0. */
  readonly scrollback?: number;
  /** Never skip bytes, whatever the backlog, and parse inline when the parser is idle (so a
   * write may resolve in the same tick): for replay and tests, whose caller awaits every
   * write. Default false (live: parse on xterm's timer, skip when flooded). */
  readonly exact?: boolean;
  /** Parse in a worker thread (needs the built dist/…/screen-worker.js). Default false. */
  readonly worker?: boolean;
  /** Called once if the worker dies; the mirror then stops (last view kept, writes resolve). */
  readonly onWorkerError?: (error: Error) => void;
  /** Overrides the flow-control marks (tests); defaults are the constants above. */
  readonly backlogHighBytes?: number;
  readonly backlogLowBytes?: number;
  /** Overrides the live main-thread mirror's pacing (tests); defaults are the constants above. */
  readonly pacing?: Partial<ParsePacing>;
}

/** How the live main-thread mirror paces its parse (see the constants of the same names). */
export interface ParsePacing {
  readonly budgetMsPerSecond: number;
  readonly burstMs: number;
  readonly resumeMs: number;
  readonly windowBytes: number;
  readonly quietMs: number;
}

const DEFAULT_PACING: ParsePacing = {
  budgetMsPerSecond: PARSE_BUDGET_MS_PER_S,
  burstMs: PARSE_BURST_MS,
  resumeMs: PARSE_RESUME_MS,
  windowBytes: BUDGET_WINDOW_BYTES,
  quietMs: QUIET_CATCH_UP_MS,
};

export interface ScreenEvidence {
  readonly title: TitleEvidence | undefined;
  readonly progress: ProgressEvidence | undefined;
  readonly lastMark: ShellMark | undefined;
  readonly lastNotificationAtMs: number | undefined;
  readonly lastBellAtMs: number | undefined;
}

/**
 * Byte counts. Strings (node-pty's default encoding) are counted in UTF-16 code units, byte
 * arrays in bytes; both only ever compare against the marks, so the mix is harmless.
 */
export interface ScreenStats {
  /** Handed to `write` but neither parsed nor skipped yet. */
  readonly queuedBytes: number;
  /** Skipped by flow control since creation (always 0 in exact mode). */
  readonly skippedBytes: number;
  readonly parsedBytes: number;
}

/** What the mirrors made by `createScreen` report beyond `ScreenStats`. */
export interface MirrorStats extends ScreenStats {
  /** Times the backlog was cut (each a discontinuity in what was parsed). */
  readonly cuts: number;
  /** Times live parsing stopped because the parse budget was spent (live main-thread mirror). */
  readonly budgetWaits: number;
  /** Times the mirror caught up without a budget because output went quiet. */
  readonly quietCatchUps: number;
  /** Time spent parsing, where it is measured (the live main-thread mirror); else undefined. */
  readonly parseMs: number | undefined;
}

export interface WriteOptions {
  /**
   * The writer knows more output follows within this many ms (the native relay hands over a
   * flood a few times a second): the gap until then is not quiet, so the parse budget still
   * applies instead of a catch-up per hand-over. Ignored by exact and worker mirrors.
   */
  readonly moreWithinMs?: number;
  /** When these bytes arrived, on the screen's clock, if earlier than now (default now). */
  readonly atMs?: number;
}

export interface Screen {
  /** Resolves once these bytes are parsed (or skipped by flow control, and the bytes after
   * them parsed). Never throws, never waits for anything but the parser. A small write into an
   * idle main-thread mirror is parsed before this returns (the promise is then already
   * resolved); anything else is parsed later, in order. The screen holds on to `data` until
   * then: do not reuse the buffer. */
  write(data: Uint8Array | string, options?: WriteOptions): Promise<void>;
  /** Applied in order with writes: bytes written before it are parsed at the old size. */
  resize(cols: number, rows: number): Promise<void>;
  /** The live viewport; the same object is returned until the screen actually changes. */
  view(): ScreenView;
  /** Title, progress and mark objects are replaced only when they change (compare by identity). */
  evidence(): ScreenEvidence;
  stats(): ScreenStats;
  /** True while bytes are waiting to be parsed (read `stats()` for how many). */
  isBehind(): boolean;
  /** Resolves pending writes (unparsed) and frees the terminal; later writes are ignored and
   * `view()` keeps returning the last view. */
  dispose(): void;
}

/** The mirror as its owner (the live session, replay) holds it. */
export interface ScreenMirror extends Screen {
  stats(): MirrorStats;
  /**
   * Parses everything written so far without the parse budget, as fast as the parser goes (in
   * turns of at most PARSE_TURN_MAX_MS); resolves once it is parsed (or skipped). For the end
   * of a session: the agent exited, so the last screen must be final now, not when the budget
   * allows. Later writes are budgeted as usual.
   */
  flush(): Promise<void>;
}

/**
 * An array consumed from `head` on, as a queue: emptied once all of it is consumed, sliced once
 * the consumed head is large and most of it, so it neither grows without end nor copies per item.
 */
function compactQueue<T>(items: T[], head: number): { items: T[]; head: number } {
  if (head === items.length) return { items: [], head: 0 };
  if (head > 1024 && head * 2 > items.length) return { items: items.slice(head), head: 0 };
  return { items, head };
}

export function createScreen(options: ScreenOptions): ScreenMirror {
  return options.worker === true ? new WorkerScreen(options) : new LocalScreen(options);
}

type Chunk = Uint8Array | string;

interface DataItem {
  readonly kind: 'data';
  data: Chunk;
  readonly atMs: number;
  /** Resolvers of this write and of any skipped writes before it. */
  readonly waiters: (() => void)[];
  /** Parser resets and salvaged sequences are ours, not the agent's: not counted as parsed. */
  readonly isSynthetic?: boolean;
}

interface ResizeItem {
  readonly kind: 'resize';
  readonly cols: number;
  readonly rows: number;
  readonly waiters: (() => void)[];
}

type QueueItem = DataItem | ResizeItem;

/** What skipped bytes said out of band, replayed through the parser before the retained bytes. */
interface Salvage {
  altScreen: boolean | undefined;
  oscs: { readonly sequence: string; readonly atMs: number }[];
  bellAtMs: number | undefined;
}

// ---- the mirror itself: xterm plus evidence handlers (main thread or worker) -----------------

/**
 * One xterm terminal with the evidence handlers and the cached view. Internal: exported for
 * screen-worker.ts. `arrivalMs` tells the handlers when the bytes being parsed arrived.
 */
export class MirrorTerminal {
  private readonly term: XtermTerminal;
  private readonly limiter = new StringPayloadLimiter(STRING_PAYLOAD_MAX_UNITS);
  private readonly disposers: { dispose(): void }[] = [];
  private isDirty = true;
  private revision = 0;
  private cachedView: ScreenView | undefined;
  /** Increases whenever `evidence()` would return something new (the worker sends only then). */
  evidenceVersion = 0;

  private title: TitleEvidence | undefined;
  private progress: ProgressEvidence | undefined;
  private lastMark: ShellMark | undefined;
  private lastNotificationAtMs: number | undefined;
  private lastBellAtMs: number | undefined;

  constructor(
    cols: number,
    rows: number,
    scrollback: number,
    private readonly arrivalMs: () => number,
  ) {
    // logLevel 'off': xterm reports every malformed sequence with console.error (a dump of its
    // parser state, ~2 KB each). That would land on agentwrap's stderr, which is the user's
    // terminal, and hostile output can trigger it thousands of times a second.
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    const parser = this.term.parser;
    // Handlers return true: the sequence is ours, xterm's defaults (title events) have no use here.
    this.disposers.push(
      parser.registerOscHandler(0, (data) => this.onTitle(data)),
      parser.registerOscHandler(2, (data) => this.onTitle(data)),
      parser.registerOscHandler(9, (data) => this.onOsc9(data)),
      parser.registerOscHandler(99, (data) => this.onOsc99(data)),
      parser.registerOscHandler(133, (data) => this.onOsc133(data)),
      parser.registerOscHandler(777, (data) => this.onOsc777(data)),
      // xterm fires this for a C0 BEL only; a BEL that terminates an OSC never reaches it.
      this.term.onBell(() => {
        this.lastBellAtMs = this.arrivalMs();
        this.evidenceVersion += 1;
      }),
      this.term,
    );
  }

  /**
   * Hands `data` to xterm; `onParsed` runs once it is parsed. xterm parses on a later timer
   * (>= 1 ms in Node) unless the write follows user input, when it parses inline. A caller that
   * awaits every write (replay, the worker) would be bounded to ~1000 writes per second by
   * that timer, so `isInline` announces (empty) input to get the inline path.
   */
  write(data: Chunk, isInline: boolean, onParsed: () => void): void {
    if (isInline) this.term.input('', true);
    this.term.write(this.limiter.limit(data), () => {
      this.isDirty = true;
      onParsed();
    });
  }

  /** Takes effect at once, not in order with pending writes: callers wait for those first. */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.isDirty = true;
  }

  view(): ScreenView {
    if (this.cachedView !== undefined && !this.isDirty) return this.cachedView;
    this.isDirty = false;
    const buffer = this.term.buffer.active;
    const cols = this.term.cols;
    // baseY is the top of the live screen; rows above it are scrollback the user scrolled past.
    const top = buffer.baseY;
    const rows: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      rows.push(buffer.getLine(top + y)?.translateToString(true).trimEnd() ?? '');
    }
    const next = {
      rows,
      cols,
      cursorRow: buffer.cursorY,
      // xterm parks the cursor at x = cols while a wrap is pending; readers index rows with it.
      cursorCol: Math.min(buffer.cursorX, cols - 1),
      isAlternateScreen: buffer.type === 'alternate',
    };
    const previous = this.cachedView;
    if (previous !== undefined && sameView(previous, next)) return previous;
    this.revision += 1;
    this.cachedView = Object.freeze({ ...next, rows: Object.freeze(rows), revision: this.revision });
    return this.cachedView;
  }

  evidence(): ScreenEvidence {
    return {
      title: this.title,
      progress: this.progress,
      lastMark: this.lastMark,
      lastNotificationAtMs: this.lastNotificationAtMs,
      lastBellAtMs: this.lastBellAtMs,
    };
  }

  dispose(): void {
    for (const disposable of this.disposers.reverse()) disposable.dispose();
    this.disposers.length = 0;
  }

  private onTitle(data: string): boolean {
    const text = boundedCopy(data, TITLE_MAX_CHARS);
    if (this.title !== undefined && this.title.text === text) return true;
    const atMs = this.arrivalMs();
    const recent = [...(this.title?.recentChangesMs ?? []), atMs].slice(-TITLE_RECENT_CHANGES);
    this.title = Object.freeze({ text, changedAtMs: atMs, recentChangesMs: Object.freeze(recent) });
    this.evidenceVersion += 1;
    return true;
  }

  /** OSC 9 is two conventions: ConEmu's `9;N;…` commands (4 = progress) and iTerm2's `9;text`. */
  private onOsc9(data: string): boolean {
    const command = /^(\d+)(?:;|$)/.exec(data);
    if (command === null) {
      this.noteNotification();
      return true;
    }
    if (command[1] === '4') {
      const progress = parseProgress(data.slice(command[0].length), this.arrivalMs());
      if (progress !== undefined) {
        this.progress = progress;
        this.evidenceVersion += 1;
      }
      return true;
    }
    // ConEmu's other commands (1–12; 9;9;cwd is common from shells) are not notifications. A
    // number followed by text ("3 tests failed") is, since the number is not followed by ';'.
    if (Number(command[1]) > 12) this.noteNotification();
    return true;
  }

  /** Kitty notifications; `p=?` in the metadata is a capability query, not a notification. */
  private onOsc99(data: string): boolean {
    const semi = data.indexOf(';');
    const metadata = semi === -1 ? data : data.slice(0, semi);
    if (!/(?:^|:)p=\?/.test(metadata)) this.noteNotification();
    return true;
  }

  /** rxvt-style `777;notify;title;body`; other 777 extensions are not notifications. */
  private onOsc777(data: string): boolean {
    if (data === 'notify' || data.startsWith('notify;')) this.noteNotification();
    return true;
  }

  private onOsc133(data: string): boolean {
    const kind = data.charAt(0);
    if (kind !== 'A' && kind !== 'B' && kind !== 'C' && kind !== 'D') return true;
    if (data.length > 1 && data.charAt(1) !== ';') return true;
    const exitCode = kind === 'D' ? parseLenientInt(data.split(';')[1]) : undefined;
    this.lastMark = Object.freeze({ kind, exitCode, atMs: this.arrivalMs() });
    this.evidenceVersion += 1;
    return true;
  }

  private noteNotification(): void {
    this.lastNotificationAtMs = this.arrivalMs();
    this.evidenceVersion += 1;
  }
}

// ---- bounding string payloads before xterm sees them -------------------------------------

const STRING_SPECIAL_BYTES = [BEL, CAN, SUB, ESC, 0xc2] as const;
/** What opens an escape string: ESC ] (OSC), ESC P (DCS), and the UTF-8 C1 forms of both. */
const STRING_OPENERS: readonly Buffer[] = [
  Buffer.from([ESC, 0x5d]),
  Buffer.from([ESC, 0x50]),
  Buffer.from([0xc2, 0x9d]),
  Buffer.from([0xc2, 0x90]),
];
const STRING_SPECIAL_UNITS = /[\x07\x18\x1a\x1b\x80-\x9f]/g;
const OSC_C1 = 0x9d;
const DCS_C1 = 0x90;

/**
 * Cuts OSC and DCS payloads to `maxUnits` (bytes, or UTF-16 units for string chunks), across
 * chunk boundaries, following xterm's parser where it matters: a string starts at `ESC ]`,
 * `ESC P` or their C1 forms, and ends at BEL, at ESC (ST is `ESC \`; any other ESC aborts it),
 * at CAN or SUB, or at any C1 control. Bytes outside strings pass untouched; a cut never splits
 * a UTF-8 character or a surrogate pair. Exported for tests.
 */
export class StringPayloadLimiter {
  private state: 'ground' | 'escape' | 'string' = 'ground';
  private units = 0;
  private isDropping = false;
  /** Bytes: the last byte seen was 0xC2 (a C1 control in UTF-8 is C2 80–C2 9F). */
  private isAfterC2 = false;

  constructor(private readonly maxUnits: number) {}

  limit(data: Chunk): Chunk {
    return typeof data === 'string' ? this.limitText(data) : this.limitBytes(data);
  }

  private enterString(): void {
    this.state = 'string';
    this.units = 0;
    this.isDropping = false;
  }

  /** A C1 control (as a code point): OSC and DCS open a string, any other one ends it. */
  private onC1(code: number): void {
    if (code === OSC_C1 || code === DCS_C1) this.enterString();
    else this.state = 'ground';
  }

  /** An ASCII special or any byte after ESC. */
  private onSpecial(code: number): void {
    if (this.state === 'escape') {
      if (code === 0x5d || code === 0x50) this.enterString();
      else this.state = code === ESC ? 'escape' : 'ground';
      return;
    }
    if (code === ESC) this.state = 'escape';
    else if (this.state === 'string' && (code === BEL || code === CAN || code === SUB)) this.state = 'ground';
  }

  private limitBytes(bytes: Uint8Array): Uint8Array {
    const next = new Int32Array(STRING_SPECIAL_BYTES.length).fill(-2);
    const nextSpecial = (from: number): number => {
      let best = bytes.length;
      for (let k = 0; k < STRING_SPECIAL_BYTES.length; k++) {
        let at = next[k] as number;
        if (at !== -1 && at < from) {
          at = bytes.indexOf(STRING_SPECIAL_BYTES[k] as number, from);
          next[k] = at;
        }
        if (at !== -1 && at < best) best = at;
      }
      return best;
    };
    const kept: Uint8Array[] = [];
    let keptFrom = 0;
    let dropped = 0;
    const drop = (from: number, to: number): void => {
      if (to <= from) return;
      if (from > keptFrom) kept.push(bytes.subarray(keptFrom, from));
      keptFrom = to;
      dropped += to - from;
    };
    // In ground state only a string opener matters (ESC ] / ESC P, or their C1 forms C2 9D / C2
    // 90): jump straight to the next one with native searches instead of stepping through every
    // escape sequence of the stream (a TUI has one every few bytes; this was ~190 ms per 50 MB).
    const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const nextOpen = new Int32Array(STRING_OPENERS.length).fill(-2);
    const nextOpener = (from: number): number => {
      let best = -1;
      for (let k = 0; k < STRING_OPENERS.length; k++) {
        let at = nextOpen[k] as number;
        if (at !== -1 && at < from) {
          at = haystack.indexOf(STRING_OPENERS[k] as Buffer, from);
          nextOpen[k] = at;
        }
        if (at !== -1 && (best === -1 || at < best)) best = at;
      }
      return best;
    };
    let i = 0;
    while (i < bytes.length) {
      if (this.state === 'ground' && !this.isAfterC2) {
        const opener = nextOpener(i);
        // None left: only a last ESC or C2 (an opener split across chunks) still counts.
        const resumeAt = opener === -1 ? bytes.length - 1 : opener;
        if (resumeAt > i) i = resumeAt;
      }
      const byte = bytes[i] as number;
      if (this.isAfterC2) {
        this.isAfterC2 = false;
        if (byte >= 0x80 && byte <= 0x9f) {
          this.onC1(byte);
          i += 1;
          continue;
        }
        if (this.state === 'escape') this.state = 'ground';
        if (this.state === 'string' && byte >= 0xa0 && byte <= 0xbf) {
          // The second half of a character that started with the C2 just before: kept with it.
          this.units += 1;
          i += 1;
          continue;
        }
      }
      if (this.state === 'escape') {
        if (byte === 0xc2) {
          this.isAfterC2 = true;
          i += 1;
          continue;
        }
        this.onSpecial(byte);
        i += 1;
        continue;
      }
      const special = nextSpecial(i);
      if (this.state === 'string') {
        if (this.isDropping) {
          drop(i, special);
        } else if (special - i + this.units > this.maxUnits) {
          // Start dropping at the first character boundary past the limit.
          let cut = i + (this.maxUnits - this.units);
          while (cut < special && ((bytes[cut] as number) & 0xc0) === 0x80) cut += 1;
          this.units = this.maxUnits;
          if (cut < special) {
            this.isDropping = true;
            drop(cut, special);
          }
        } else {
          this.units += special - i;
        }
      }
      if (special >= bytes.length) break;
      const code = bytes[special] as number;
      i = special + 1;
      if (code === 0xc2) {
        const following = bytes[special + 1];
        const isCharacter = following !== undefined && !(following >= 0x80 && following <= 0x9f);
        if (this.state === 'string' && isCharacter && (this.isDropping || this.units >= this.maxUnits)) {
          // A character (C2 A0–BF) past the limit: dropped like any other (its second byte
          // goes with the rest of the dropped run).
          this.isDropping = true;
          drop(special, special + 1);
          continue;
        }
        // A C1 control, or a C2 at the end of the chunk: decided by the next byte.
        this.isAfterC2 = true;
        continue;
      }
      this.onSpecial(code);
    }
    if (dropped === 0) return bytes;
    if (keptFrom < bytes.length) kept.push(bytes.subarray(keptFrom));
    return Buffer.concat(kept);
  }

  private limitText(text: string): string {
    let out = '';
    let keptFrom = 0;
    let i = 0;
    const specials = new RegExp(STRING_SPECIAL_UNITS.source, 'g');
    while (i < text.length) {
      if (this.state === 'escape') {
        const code = text.charCodeAt(i);
        if (code >= 0x80 && code <= 0x9f) this.onC1(code);
        else this.onSpecial(code);
        i += 1;
        continue;
      }
      specials.lastIndex = i;
      const found = specials.exec(text);
      const special = found === null ? text.length : found.index;
      if (this.state === 'string') {
        if (this.isDropping) {
          out += text.slice(keptFrom, i);
          keptFrom = special;
        } else if (special - i + this.units > this.maxUnits) {
          let cut = i + (this.maxUnits - this.units);
          const unit = text.charCodeAt(cut);
          if (unit >= 0xdc00 && unit <= 0xdfff) cut += 1;
          this.units = this.maxUnits;
          if (cut < special) {
            this.isDropping = true;
            out += text.slice(keptFrom, cut);
            keptFrom = special;
          }
        } else {
          this.units += special - i;
        }
      }
      if (special >= text.length) break;
      const code = text.charCodeAt(special);
      i = special + 1;
      if (code >= 0x80 && code <= 0x9f) this.onC1(code);
      else this.onSpecial(code);
    }
    if (keptFrom === 0) return text;
    return out + text.slice(keptFrom);
  }
}

// ---- flow control, shared by the main-thread and the worker mirror --------------------------

/**
 * A token bucket of parse time (ms), refilled with wall time. Charged with the measured
 * duration of each synchronous parse; the debt is floored at one burst, so an unbudgeted
 * catch-up does not silence budgeted parsing for seconds afterwards.
 */
class ParseBudget {
  private tokensMs: number;
  private refilledAtMs: number;

  constructor(
    private readonly pacing: ParsePacing,
    private readonly nowMs: () => number,
  ) {
    this.tokensMs = pacing.burstMs;
    this.refilledAtMs = nowMs();
  }

  get tokens(): number {
    return this.tokensMs;
  }

  refill(): number {
    const nowMs = this.nowMs();
    this.tokensMs = Math.min(this.pacing.burstMs, this.tokensMs + ((nowMs - this.refilledAtMs) * this.pacing.budgetMsPerSecond) / 1000);
    this.refilledAtMs = nowMs;
    return this.tokensMs;
  }

  charge(ms: number): void {
    this.tokensMs = Math.max(this.tokensMs - ms, -this.pacing.burstMs);
  }

  /** How long until the bucket holds `levelMs` (Infinity with a zero budget). */
  msUntil(levelMs: number): number {
    const missingMs = levelMs - this.tokensMs;
    if (missingMs <= 0) return 0;
    return this.pacing.budgetMsPerSecond > 0 ? (missingMs * 1000) / this.pacing.budgetMsPerSecond : Number.POSITIVE_INFINITY;
  }
}

abstract class FlowControlledScreen implements ScreenMirror {
  protected readonly clock: Clock;
  protected readonly isExact: boolean;
  private readonly backlogHighBytes: number;
  private readonly backlogLowBytes: number;
  private readonly inFlightMaxBytes: number;

  /** Items not yet sent to the parser, oldest first (`backlogHead` avoids O(n) shifts). */
  private backlog: (QueueItem | undefined)[] = [];
  private backlogHead = 0;
  private backlogBytes = 0;
  /** Items sent and not yet parsed, oldest first: its head is what the parser is working on. */
  private inFlight: (QueueItem | undefined)[] = [];
  private inFlightHead = 0;
  private inFlightBytes = 0;
  private salvage: Salvage | undefined;
  private isPumping = false;

  private parsedBytes = 0;
  private skippedBytes = 0;
  private cuts = 0;
  protected isDisposed = false;

  // Pacing (the live main-thread mirror only; undefined elsewhere). Times are performance.now()
  // milliseconds: the budget is about CPU, not about the session clock (a manual one in tests).
  /** Set when the subclass parses synchronously in `send`, so each slice can be timed. */
  protected readonly pacing: ParsePacing | undefined;
  private readonly budget: ParseBudget | undefined;
  private lastWriteAtMs = 0;
  private turnStartMs = 0;
  /** The bucket ran dry with bytes waiting: parsing resumes at `resumeMs` tokens (or at quiet). */
  private isWaitingForBudget = false;
  /** Output went quiet: parse without the budget until idle or until the next write. */
  private isCatchingUp = false;
  /** `flush()` calls not yet resolved: the budget is lifted while any is pending. */
  private flushesPending = 0;
  /** A cut happened since the mirror was last idle: what is parsed is a window anyway. */
  private isLossy = false;
  private budgetWaits = 0;
  private quietCatchUps = 0;
  private parseMs = 0;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAtMs = Number.POSITIVE_INFINITY;
  private wakeImmediate: NodeJS.Immediate | undefined;
  private isQuietCheckDue = false;

  constructor(options: ScreenOptions, inFlightMaxBytes: number, isPaced: boolean) {
    this.inFlightMaxBytes = inFlightMaxBytes;
    this.clock = options.clock;
    this.isExact = options.exact ?? false;
    this.backlogHighBytes = options.backlogHighBytes ?? BACKLOG_HIGH_BYTES;
    this.backlogLowBytes = Math.min(options.backlogLowBytes ?? BACKLOG_LOW_BYTES, this.backlogHighBytes);
    if (isPaced && !this.isExact) {
      this.pacing = { ...DEFAULT_PACING, ...options.pacing };
      this.budget = new ParseBudget(this.pacing, () => performance.now());
    }
  }

  /** Starts parsing `item` (already the in-flight tail); must lead to one `completeHead()` per
   * item, in order. `isIdle`: nothing else is in flight. When `pacing` is set, it must parse
   * synchronously (complete before returning). */
  protected abstract send(item: QueueItem, isIdle: boolean): void;
  protected abstract disposeParser(): void;
  abstract view(): ScreenView;
  abstract evidence(): ScreenEvidence;

  write(data: Uint8Array | string, options?: WriteOptions): Promise<void> {
    if (this.isDisposed || data.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wasIdle = this.isIdle();
      const nowMs = this.clock.nowMs();
      const atMs = options?.atMs === undefined ? nowMs : Math.min(options.atMs, nowMs);
      this.backlog.push({ kind: 'data', data, atMs, waiters: [resolve] });
      this.backlogBytes += data.length;
      if (this.pacing === undefined) {
        // Pump first: whatever fits in flight is parsed, only the rest can be skipped.
        this.pump();
        if (!this.isExact && this.backlogBytes > this.backlogHighBytes) this.cutBacklog(this.backlogLowBytes);
        return;
      }
      // Quiet is measured from the last write, or from when the writer said more would come.
      this.lastWriteAtMs = performance.now() + Math.max(0, options?.moreWithinMs ?? 0);
      // Output resumed: a quiet catch-up is over, the budget applies again.
      this.isCatchingUp = false;
      if (wasIdle && data.length <= INLINE_WRITE_MAX_BYTES && this.mayParseInline()) {
        this.runTurn();
        return;
      }
      if (this.backlogBytes > this.backlogHighBytes) this.cutBacklog(this.backlogLowBytes);
      this.scheduleTurn();
    });
  }

  resize(cols: number, rows: number): Promise<void> {
    if (this.isDisposed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wasIdle = this.isIdle();
      this.backlog.push({ kind: 'resize', cols, rows, waiters: [resolve] });
      if (this.pacing === undefined) this.pump();
      else if (wasIdle) this.runTurn();
      else this.scheduleTurn();
    });
  }

  flush(): Promise<void> {
    const last = this.backlog[this.backlog.length - 1] ?? this.inFlight[this.inFlight.length - 1];
    if (this.isDisposed || last === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // Resolved with the last item written so far; a cut carries it on to the retained bytes.
      this.flushesPending += 1;
      last.waiters.push(() => {
        this.flushesPending -= 1;
        resolve();
      });
      if (this.pacing !== undefined) this.scheduleTurn();
    });
  }

  stats(): MirrorStats {
    return {
      queuedBytes: this.inFlightBytes + this.backlogBytes,
      skippedBytes: this.skippedBytes,
      parsedBytes: this.parsedBytes,
      cuts: this.cuts,
      budgetWaits: this.budgetWaits,
      quietCatchUps: this.quietCatchUps,
      parseMs: this.pacing === undefined ? undefined : this.parseMs,
    };
  }

  isBehind(): boolean {
    return this.inFlightBytes + this.backlogBytes > 0;
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    this.cancelWakes();
    const waiting = [...this.inFlight, ...this.backlog];
    this.inFlight = [];
    this.backlog = [];
    this.inFlightHead = this.backlogHead = this.inFlightBytes = this.backlogBytes = 0;
    this.disposeParser();
    for (const item of waiting) for (const resolve of item?.waiters ?? []) resolve();
  }

  /** Nothing sent is waiting for the parser (a resize included). */
  protected isParserIdle(): boolean {
    return this.inFlight.length === this.inFlightHead;
  }

  /** When the bytes the parser is working on arrived (the in-flight head), else now. */
  protected headArrivalMs(): number {
    const head = this.inFlight[this.inFlightHead];
    return head?.kind === 'data' ? head.atMs : this.clock.nowMs();
  }

  /** The parser finished the in-flight head. */
  protected completeHead(): void {
    if (this.isDisposed) return;
    const done = this.inFlight[this.inFlightHead];
    if (done === undefined) return;
    this.inFlight[this.inFlightHead] = undefined;
    ({ items: this.inFlight, head: this.inFlightHead } = compactQueue(this.inFlight, this.inFlightHead + 1));
    if (done.kind === 'data') {
      this.inFlightBytes -= done.data.length;
      if (done.isSynthetic !== true) this.parsedBytes += done.data.length;
    }
    for (const resolve of done.waiters) resolve();
    this.pump();
  }

  private isIdle(): boolean {
    return this.backlogHead === this.backlog.length && this.isParserIdle();
  }

  private isBudgetLifted(): boolean {
    return this.isCatchingUp || this.flushesPending > 0;
  }

  private mayParseInline(): boolean {
    if (this.isBudgetLifted()) return true;
    return !this.isWaitingForBudget && (this.budget?.refill() ?? 0) > 0;
  }

  /**
   * One turn of paced parsing: decides whether to parse now and what to cut first, parses for
   * at most PARSE_TURN_MAX_MS (and, under the budget, while tokens last), then schedules the
   * next turn.
   */
  private runTurn(): void {
    const budget = this.budget;
    if (this.isDisposed || budget === undefined) return;
    this.turnStartMs = performance.now();
    const tokens = budget.refill();
    if (this.isBudgetLifted()) {
      this.isWaitingForBudget = false;
      // After a lossy flood the newest window is as good as more, and far quicker to parse.
      if (this.isLossy) this.cutTo(this.pacing?.windowBytes ?? BUDGET_WINDOW_BYTES);
    } else if (this.isWaitingForBudget) {
      if (tokens < (this.pacing?.resumeMs ?? PARSE_RESUME_MS)) {
        this.scheduleTurn();
        return;
      }
      this.isWaitingForBudget = false;
      this.cutTo(this.pacing?.windowBytes ?? BUDGET_WINDOW_BYTES);
    }
    this.pump();
    if (this.isIdle()) {
      this.isLossy = false;
      this.isCatchingUp = false;
    }
    this.scheduleTurn();
  }

  private cutTo(targetBytes: number): void {
    if (this.backlogBytes > targetBytes) this.cutBacklog(targetBytes);
  }

  /** Paced: may the pump loop parse one more slice in this turn? */
  private mayParseMore(): boolean {
    if (this.budget === undefined) return true;
    if (performance.now() - this.turnStartMs >= PARSE_TURN_MAX_MS) return false;
    return this.isBudgetLifted() || this.budget.tokens > 0;
  }

  /** Arms the one wake-up the paced mirror needs next, if any. */
  private scheduleTurn(): void {
    const budget = this.budget;
    const pacing = this.pacing;
    if (this.isDisposed || budget === undefined || pacing === undefined) return;
    if (this.isIdle()) {
      this.cancelWakes();
      return;
    }
    if (this.isBudgetLifted() || (!this.isWaitingForBudget && budget.tokens > 0)) {
      this.armImmediate(false);
      return;
    }
    if (!this.isWaitingForBudget) {
      this.isWaitingForBudget = true;
      this.budgetWaits += 1;
    }
    const nowMs = performance.now();
    this.armTimer(Math.min(nowMs + budget.msUntil(pacing.resumeMs), this.lastWriteAtMs + pacing.quietMs));
  }

  private armImmediate(isQuietCheck: boolean): void {
    this.isQuietCheckDue ||= isQuietCheck;
    if (this.wakeImmediate !== undefined) return;
    this.wakeImmediate = setImmediate(() => this.onImmediate());
  }

  /** A timer that fires later than needed is replaced; an earlier one is kept (it re-plans). */
  private armTimer(atMs: number): void {
    if (this.wakeTimer !== undefined && this.wakeAtMs <= atMs + 1) return;
    if (this.wakeTimer !== undefined) clearTimeout(this.wakeTimer);
    this.wakeAtMs = atMs;
    this.wakeTimer = setTimeout(() => this.onTimer(), Math.max(0, Math.ceil(atMs - performance.now())));
  }

  private cancelWakes(): void {
    if (this.wakeTimer !== undefined) clearTimeout(this.wakeTimer);
    if (this.wakeImmediate !== undefined) clearImmediate(this.wakeImmediate);
    this.wakeTimer = undefined;
    this.wakeImmediate = undefined;
    this.wakeAtMs = Number.POSITIVE_INFINITY;
    this.isQuietCheckDue = false;
  }

  private isQuiet(): boolean {
    return performance.now() - this.lastWriteAtMs >= (this.pacing?.quietMs ?? QUIET_CATCH_UP_MS);
  }

  private onTimer(): void {
    this.wakeTimer = undefined;
    this.wakeAtMs = Number.POSITIVE_INFINITY;
    if (this.isDisposed) return;
    // Quiet only if it still is after this turn's I/O: a timer runs before the poll phase, so
    // after a busy stretch of the main thread, output may be waiting that just was not read yet.
    if (this.isQuiet()) this.armImmediate(true);
    else this.runTurn();
  }

  private onImmediate(): void {
    this.wakeImmediate = undefined;
    const isQuietCheck = this.isQuietCheckDue;
    this.isQuietCheckDue = false;
    if (this.isDisposed) return;
    if (isQuietCheck && !this.isCatchingUp && this.isQuiet()) {
      this.isCatchingUp = true;
      this.quietCatchUps += 1;
    }
    this.runTurn();
  }

  /** Sends backlog to the parser up to the in-flight cap; a resize waits until it is idle. */
  private pump(): void {
    // The parser may complete inline, calling back into here from inside `send`; the guard
    // turns that re-entry into another turn of this loop instead of a recursion per chunk.
    if (this.isPumping) return;
    this.isPumping = true;
    try {
      this.pumpLoop();
    } finally {
      this.isPumping = false;
    }
  }

  private pumpLoop(): void {
    const pieceMaxBytes = this.pacing === undefined ? PIECE_MAX_BYTES : BUDGET_SLICE_BYTES;
    while (!this.isDisposed && this.backlogHead < this.backlog.length) {
      const item = this.backlog[this.backlogHead];
      if (item === undefined) break;
      const inFlightCount = this.inFlight.length - this.inFlightHead;
      if (item.kind === 'resize') {
        if (inFlightCount > 0) break;
        this.takeFromBacklog();
        this.sendItem(item);
        continue;
      }
      if (this.inFlightBytes >= this.inFlightMaxBytes) break;
      if (!this.mayParseMore()) break;
      const startedMs = this.pacing === undefined ? 0 : performance.now();
      if (this.salvage !== undefined) this.replaySalvage(this.salvage, item.atMs);
      const piece = takePiece(item.data, pieceMaxBytes);
      const isWhole = piece.length === item.data.length;
      if (isWhole) this.takeFromBacklog();
      else item.data = typeof item.data === 'string' ? item.data.slice(piece.length) : item.data.subarray(piece.length);
      this.backlogBytes -= piece.length;
      this.sendItem({ kind: 'data', data: piece, atMs: item.atMs, waiters: isWhole ? item.waiters : [] });
      if (this.budget !== undefined) {
        const tookMs = performance.now() - startedMs;
        this.budget.charge(tookMs);
        this.parseMs += tookMs;
      }
    }
    this.compactBacklog();
  }

  private sendItem(item: QueueItem): void {
    const isIdle = this.isParserIdle();
    this.inFlight.push(item);
    if (item.kind === 'data') this.inFlightBytes += item.data.length;
    this.send(item, isIdle);
  }

  private takeFromBacklog(): void {
    this.backlog[this.backlogHead] = undefined;
    this.backlogHead += 1;
  }

  private compactBacklog(): void {
    ({ items: this.backlog, head: this.backlogHead } = compactQueue(this.backlog, this.backlogHead));
  }

  /**
   * Skips the oldest backlog until only the newest `keepBytes` remain. Resizes are kept (they
   * are tiny and the size must stay right); the waiters of skipped writes move to the next
   * retained write, so "write resolved" still means "the screen is as current as it gets".
   */
  private cutBacklog(keepBytes: number): void {
    const kept: QueueItem[] = [];
    let carried: (() => void)[] = [];
    const salvage: Salvage = this.salvage ?? { altScreen: undefined, oscs: [], bellAtMs: undefined };
    let excess = this.backlogBytes - keepBytes;
    if (excess <= 0) return;
    this.cuts += 1;
    this.isLossy = true;
    for (let i = this.backlogHead; i < this.backlog.length; i++) {
      const item = this.backlog[i];
      if (item === undefined) continue;
      if (item.kind === 'resize' || excess <= 0) {
        if (item.kind === 'data' && carried.length > 0) {
          item.waiters.unshift(...carried);
          carried = [];
        }
        kept.push(item);
        continue;
      }
      const dropCount = Math.min(excess, item.data.length);
      const isWhole = dropCount === item.data.length;
      salvageFrom(isWhole ? item.data : item.data.slice(0, dropCount), item.atMs, salvage);
      this.skippedBytes += dropCount;
      this.backlogBytes -= dropCount;
      excess -= dropCount;
      if (isWhole) {
        carried.push(...item.waiters);
      } else {
        // A copy, so the skipped head of a huge chunk is not kept alive by a view into it.
        item.data = typeof item.data === 'string' ? item.data.slice(dropCount) : copyBytes(item.data, dropCount);
        item.waiters.unshift(...carried);
        carried = [];
        kept.push(item);
      }
    }
    // Only when everything was skipped (keepBytes = 0) is anything left carried.
    for (const resolve of carried) resolve();
    const first = kept.find((item): item is DataItem => item.kind === 'data');
    if (first !== undefined) {
      // Start on a redraw rather than mid-frame, where a lost cursor move would print the
      // rest of the frame in the wrong place (on a row the TUI may never redraw).
      const skip = redrawStart(first.data, Math.min(keepBytes / 2, REDRAW_SEARCH_MAX_BYTES));
      if (skip > 0) {
        salvageFrom(first.data.slice(0, skip), first.atMs, salvage);
        this.skippedBytes += skip;
        this.backlogBytes -= skip;
        first.data = typeof first.data === 'string' ? first.data.slice(skip) : copyBytes(first.data, skip);
      }
    }
    this.backlog = kept;
    this.backlogHead = 0;
    this.salvage = salvage;
  }

  /**
   * Before the first retained bytes: CAN resets the parser (so they are not read as the tail of
   * a half-seen sequence; as a byte array, so a half-seen UTF-8 character is dropped too), then
   * the salvaged OSCs and BEL, each with its own arrival time, then the last screen switch.
   */
  private replaySalvage(salvage: Salvage, atMs: number): void {
    this.salvage = undefined;
    const synthetic = (data: Chunk, at: number): void =>
      this.sendItem({ kind: 'data', data, atMs: at, waiters: [], isSynthetic: true });
    synthetic(Buffer.from([CAN]), atMs);
    for (const osc of salvage.oscs) synthetic(osc.sequence, osc.atMs);
    if (salvage.bellAtMs !== undefined) synthetic('\x07', salvage.bellAtMs);
    if (salvage.altScreen !== undefined) synthetic(salvage.altScreen ? '\x1b[?1049h' : '\x1b[?1049l', atMs);
  }
}

/** The mirror on the main thread. Live (not exact), it parses inline in paced turns. */
class LocalScreen extends FlowControlledScreen {
  private readonly mirror: MirrorTerminal;
  private lastView: ScreenView | undefined;

  constructor(options: ScreenOptions) {
    super(options, IN_FLIGHT_MAX_BYTES, true);
    this.mirror = new MirrorTerminal(
      options.cols,
      options.rows,
      options.scrollback ?? DEFAULT_SCROLLBACK_LINES,
      // xterm calls back once per write, in order, so handlers run while it parses the head.
      () => this.headArrivalMs(),
    );
  }

  view(): ScreenView {
    if (this.isDisposed && this.lastView !== undefined) return this.lastView;
    this.lastView = this.mirror.view();
    return this.lastView;
  }

  evidence(): ScreenEvidence {
    return this.mirror.evidence();
  }

  protected send(item: QueueItem, isIdle: boolean): void {
    if (item.kind === 'resize') {
      this.mirror.resize(item.cols, item.rows);
      this.completeHead();
      return;
    }
    // Paced, every send is inline (the flow control sends only into an idle parser and times
    // it); exact, inline when idle, so a replay awaiting every write is not bound to xterm's timer.
    this.mirror.write(item.data, this.pacing !== undefined || (this.isExact && isIdle), () => this.completeHead());
  }

  protected disposeParser(): void {
    // The last view outlives the terminal: a final tick may still read it after the agent exits.
    this.lastView = this.mirror.view();
    this.mirror.dispose();
  }
}

// ---- the mirror in a worker thread -------------------------------------------------------------

/** `workerData` of screen-worker.ts. */
export interface ScreenWorkerInit {
  readonly cols: number;
  readonly rows: number;
  readonly scrollback: number;
}

export type ScreenWorkerRequest =
  | { readonly type: 'data'; readonly data: Chunk; readonly atMs: number }
  | { readonly type: 'resize'; readonly cols: number; readonly rows: number };

/** `count` requests are done, in order; view and evidence come along when they changed. */
export interface ScreenWorkerReply {
  readonly type: 'parsed';
  readonly count: number;
  readonly view: ScreenView | undefined;
  readonly evidence: ScreenEvidence | undefined;
}

function screenWorkerPath(): string {
  // From the build the worker sits beside this file. Under vitest this module runs from
  // src/adapters/screen.ts, where only the .ts exists and Node 20 cannot run it in a worker,
  // so the build's copy is used.
  const url = import.meta.url.endsWith('.ts')
    ? new URL('../../dist/src/adapters/screen-worker.js', import.meta.url)
    : new URL('./screen-worker.js', import.meta.url);
  return fileURLToPath(url);
}

export class ScreenWorkerMissingError extends Error {
  constructor(readonly path: string) {
    super(`screen worker script not found at ${path} (build with tsc first)`);
    this.name = 'ScreenWorkerMissingError';
  }
}

/** The mirror with the parser in a worker thread; the flow control stays on this side. */
class WorkerScreen extends FlowControlledScreen {
  private readonly worker: Worker;
  private latestView: ScreenView;
  private latestEvidence: ScreenEvidence = {
    title: undefined,
    progress: undefined,
    lastMark: undefined,
    lastNotificationAtMs: undefined,
    lastBellAtMs: undefined,
  };

  constructor(options: ScreenOptions) {
    // The worker parses as fast as it can: its time is not the passthrough's thread's.
    super(options, WORKER_IN_FLIGHT_MAX_BYTES, false);
    const path = screenWorkerPath();
    if (!existsSync(path)) throw new ScreenWorkerMissingError(path);
    const init: ScreenWorkerInit = {
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? DEFAULT_SCROLLBACK_LINES,
    };
    this.latestView = Object.freeze({
      rows: Object.freeze(Array.from({ length: options.rows }, () => '')),
      cols: options.cols,
      cursorRow: 0,
      cursorCol: 0,
      isAlternateScreen: false,
      revision: 0,
    });
    // A worker inherits the process's flags; `--input-type` (a `node -e` script) makes its
    // start fail with ERR_INPUT_TYPE_NOT_ALLOWED, so it is left out.
    const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'));
    this.worker = new Worker(path, { workerData: init, execArgv });
    this.worker.on('message', (reply: ScreenWorkerReply) => this.onReply(reply));
    // A dead worker cannot parse any more: resolve every waiter rather than hang the session,
    // keep the last view, and tell the owner (the passthrough itself is unaffected).
    const onWorkerError = options.onWorkerError;
    this.worker.on('error', (error: Error) => {
      this.dispose();
      onWorkerError?.(error);
    });
    this.worker.on('exit', (code: number) => {
      if (!this.isDisposed) onWorkerError?.(new Error(`screen worker exited with code ${code}`));
      this.dispose();
    });
    // An idle mirror must not keep the process alive once the agent has exited, but a busy one
    // must: someone may be awaiting a write. (Unref after adding listeners: a 'message'
    // listener added later refs the worker again.)
    this.worker.unref();
  }

  view(): ScreenView {
    return this.latestView;
  }

  evidence(): ScreenEvidence {
    return this.latestEvidence;
  }

  protected send(item: QueueItem, isIdle: boolean): void {
    if (isIdle) this.worker.ref();
    if (item.kind === 'resize') {
      this.post({ type: 'resize', cols: item.cols, rows: item.rows });
      return;
    }
    if (typeof item.data === 'string') {
      this.post({ type: 'data', data: item.data, atMs: item.atMs });
      return;
    }
    // Structured clone would copy a view's whole underlying buffer (a pooled Buffer, a slice of
    // a recording); copy just the bytes and transfer the copy.
    const copy = copyBytes(item.data, 0);
    this.post({ type: 'data', data: copy, atMs: item.atMs }, [copy.buffer]);
  }

  protected disposeParser(): void {
    // terminate() resolves when the thread is gone; nothing waits for that.
    void this.worker.terminate();
  }

  private post(request: ScreenWorkerRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(request, transfer);
  }

  private onReply(reply: ScreenWorkerReply): void {
    if (reply.view !== undefined) {
      this.latestView = Object.freeze({ ...reply.view, rows: Object.freeze(reply.view.rows) });
    }
    if (reply.evidence !== undefined) this.latestEvidence = keepIdentity(this.latestEvidence, reply.evidence);
    for (let i = 0; i < reply.count; i++) this.completeHead();
    if (!this.isDisposed && this.isParserIdle()) this.worker.unref();
  }
}

/**
 * Evidence cloned across the thread boundary, with each unchanged part replaced by the object
 * already held: on the main thread too, a title or progress object is replaced only when it
 * changed, so a tick may compare them by identity.
 */
function keepIdentity(previous: ScreenEvidence, next: ScreenEvidence): ScreenEvidence {
  const keep = <T extends object>(old: T | undefined, fresh: T | undefined, same: (a: T, b: T) => boolean): T | undefined =>
    old !== undefined && fresh !== undefined && same(old, fresh) ? old : fresh && Object.freeze(fresh);
  return {
    ...next,
    title: keep(previous.title, next.title, (a, b) => a.text === b.text && a.changedAtMs === b.changedAtMs),
    progress: keep(previous.progress, next.progress, (a, b) => a.atMs === b.atMs && a.state === b.state && a.value === b.value),
    lastMark: keep(previous.lastMark, next.lastMark, (a, b) => a.atMs === b.atMs && a.kind === b.kind && a.exitCode === b.exitCode),
  };
}

function sameView(a: ScreenView, b: Omit<ScreenView, 'revision'>): boolean {
  if (
    a.cols !== b.cols ||
    a.cursorRow !== b.cursorRow ||
    a.cursorCol !== b.cursorCol ||
    a.isAlternateScreen !== b.isAlternateScreen ||
    a.rows.length !== b.rows.length
  ) {
    return false;
  }
  return a.rows.every((row, i) => row === b.rows[i]);
}

/**
 * Collects what skipped bytes said out of band: complete OSC sequences (the newest few), the
 * last BEL outside an OSC, and the last alternate-screen switch, each with the skipped write's
 * arrival time. Sequences cut by a chunk boundary are missed; this is best effort.
 *
 * Under a flood almost every byte passes through here, so every search is a native one for a
 * byte that is rare in terminal output (`]`, `?`, BEL, CAN, SUB), with each position reused
 * until passed: linear time, ~0.1 ms per MB. A search led by ESC would stop at every escape
 * sequence of a TUI (one every few bytes) and was measured 10x slower.
 */
function salvageFrom(data: Chunk, atMs: number, salvage: Salvage): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const alt = lastAltScreenSwitch(bytes);
  if (alt !== undefined) salvage.altScreen = alt;
  const nextBel = nextFinder(bytes, BEL);
  const nextCan = nextFinder(bytes, CAN);
  const nextSub = nextFinder(bytes, SUB);
  const nextBracket = nextFinder(bytes, 0x5d);
  let scanFrom = 0;
  for (;;) {
    // The next OSC opener, ESC ]: found by its rare second byte.
    let bracket = nextBracket(Math.max(scanFrom, 1));
    while (bracket < bytes.length && bytes[bracket - 1] !== ESC) bracket = nextBracket(bracket + 1);
    const oscStart = bracket >= bytes.length ? bytes.length : bracket - 1;
    if (nextBel(scanFrom) < oscStart) salvage.bellAtMs = atMs;
    if (bracket >= bytes.length) return;
    const payloadStart = bracket + 1;
    // What ends it: BEL or ST (ESC \) complete it; CAN, SUB or any other ESC abort it, as in
    // xterm's parser. ESC is frequent, but the next one after an opener is near.
    const escAt = bytes.indexOf(ESC, payloadStart);
    const end = Math.min(nextBel(payloadStart), nextCan(payloadStart), nextSub(payloadStart), escAt === -1 ? bytes.length : escAt);
    if (end >= bytes.length) return;
    const byte = bytes[end];
    const isComplete = byte === BEL || (byte === ESC && bytes[end + 1] === 0x5c);
    if (isComplete && end - payloadStart <= SALVAGE_OSC_MAX_BYTES) {
      salvage.oscs.push({ sequence: `\x1b]${bytes.toString('utf8', payloadStart, end)}\x07`, atMs });
      if (salvage.oscs.length > SALVAGE_OSC_MAX_COUNT) salvage.oscs.shift();
    }
    // An aborting ESC starts the next sequence, so scanning resumes on it.
    scanFrom = byte === ESC ? (isComplete ? end + 2 : end) : end + 1;
  }
}

/** `(from) => the first index >= from holding byte` (bytes.length if none), each search reused until passed. */
function nextFinder(bytes: Buffer, byte: number): (from: number) => number {
  let found = -1;
  return (from) => {
    if (found < from) {
      const at = bytes.indexOf(byte, from);
      found = at === -1 ? bytes.length : at;
    }
    return found;
  };
}

/** What marks the start of a redraw: a synchronized update, a cleared screen, the cursor sent home. */
const REDRAW_MARKERS = ['\x1b[?2026h', '\x1b[2J', '\x1b[H', '\x1b[1;1H'] as const;

/**
 * Where the first redraw in `data` starts (searching its first `limit` units): the earliest
 * redraw marker, else the start of the first full line; 0 when neither is there (plain text
 * without a newline: nothing better to start on).
 */
function redrawStart(data: Chunk, limit: number): number {
  const head = typeof data === 'string' ? data.slice(0, limit) : Buffer.from(data.buffer, data.byteOffset, Math.min(limit, data.byteLength));
  const find = (needle: string): number => (typeof head === 'string' ? head.indexOf(needle) : head.indexOf(needle, 0, 'latin1'));
  let best = -1;
  for (const marker of REDRAW_MARKERS) {
    const at = find(marker);
    if (at !== -1 && (best === -1 || at < best)) best = at;
  }
  if (best !== -1) return best;
  const newline = find('\n');
  return newline === -1 ? 0 : newline + 1;
}

/** A fresh copy from `start` on: Buffer#slice would return a view, not a copy. */
function copyBytes(bytes: Uint8Array, start: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes.subarray(start));
}

/** Splits off at most `maxBytes`, never between the halves of a UTF-16 surrogate pair. */
function takePiece(data: Chunk, maxBytes: number): Chunk {
  if (data.length <= maxBytes) return data;
  if (typeof data !== 'string') return data.subarray(0, maxBytes);
  const lastUnit = data.charCodeAt(maxBytes - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxBytes - 1 : maxBytes;
  return data.slice(0, end);
}

/**
 * OSC 9;4 after the `4`: `st;pr`. The state is clamped to 0–4; a missing or unparsable state
 * means the sequence says nothing we can use (undefined: keep the previous evidence). The
 * value is 0–100, undefined when missing, negative (Grok sends `4;1;-1`) or garbage.
 */
export function parseProgress(rest: string, atMs: number): ProgressEvidence | undefined {
  const [stateText, valueText] = rest.split(';');
  const state = parseLenientInt(stateText);
  if (state === undefined) {
    // ConEmu and Windows Terminal treat a bare `9;4` as "remove".
    return stateText === undefined || stateText === '' ? Object.freeze({ state: 0, value: undefined, atMs }) : undefined;
  }
  const value = parseLenientInt(valueText);
  return Object.freeze({
    state: Math.min(Math.max(state, 0), 4),
    value: value === undefined || value < 0 ? undefined : Math.min(value, 100),
    atMs,
  });
}

function parseLenientInt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(-?\d{1,9})/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The first `maxChars` of `text` as a string that does not keep `text` alive: V8 represents a
 * slice of a long string as a view into it, which would pin a megabyte title in memory.
 */
function boundedCopy(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lastUnit = text.charCodeAt(maxChars - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxChars - 1 : maxChars;
  return Buffer.from(text.slice(0, end), 'utf16le').toString('utf16le');
}

/**
 * The last `CSI ? 1049|1047|47 h|l` in `bytes`: true = alternate screen, false = normal. Walks
 * back over `?` (a few per TUI frame) rather than searching each sequence from its ESC.
 */
function lastAltScreenSwitch(bytes: Buffer): boolean | undefined {
  for (let at = bytes.lastIndexOf(0x3f); at >= 2; at = bytes.lastIndexOf(0x3f, at - 1)) {
    if (bytes[at - 1] !== 0x5b || bytes[at - 2] !== ESC) continue;
    let mode = 0;
    let end = at + 1;
    for (; end < bytes.length && end - at <= 5; end++) {
      const digit = (bytes[end] as number) - 0x30;
      if (digit < 0 || digit > 9) break;
      mode = mode * 10 + digit;
    }
    const final = bytes[end];
    if (end > at + 1 && (final === 0x68 || final === 0x6c) && (mode === 1049 || mode === 1047 || mode === 47)) return final === 0x68;
  }
  return undefined;
}
