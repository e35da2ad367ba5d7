/** The screen mirror's interface and options, as its owners (live session, replay) see them. */
import type { Clock } from '../clock.js';
import type { ProgramStatus, ProgressEvidence, ScreenView, ShellMark, TitleEvidence } from '../../core/types.js';

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
  /** Overrides the flow-control marks (tests); defaults are in constants.ts. */
  readonly backlogHighBytes?: number;
  readonly backlogLowBytes?: number;
  /** Overrides the live mirror's pacing (tests); defaults are in constants.ts. */
  readonly pacing?: Partial<ParsePacing>;
}

/** How the live mirror paces its parse (see the constants of the same names in constants.ts). */
export interface ParsePacing {
  readonly budgetMsPerSecond: number;
  readonly burstMs: number;
  readonly resumeMs: number;
  readonly windowBytes: number;
  readonly quietMs: number;
}


export interface ScreenEvidence {
  readonly title: TitleEvidence | undefined;
  readonly progress: ProgressEvidence | undefined;
  readonly lastMark: ShellMark | undefined;
  readonly lastNotificationAtMs: number | undefined;
  readonly lastBellAtMs: number | undefined;
  /** The agent's last OSC 7501 report; undefined before one, or after `state=clear`. */
  readonly programStatus?: ProgramStatus | undefined;
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

/** What the mirror made by `createScreen` reports beyond `ScreenStats`. */
export interface MirrorStats extends ScreenStats {
  /** Times the backlog was cut (each a discontinuity in what was parsed). */
  readonly cuts: number;
  /** Times live parsing stopped because the parse budget was spent (live mirror). */
  readonly budgetWaits: number;
  /** Times the mirror caught up without a budget because output went quiet. */
  readonly quietCatchUps: number;
  /** Time spent parsing, where it is measured (the live mirror); else undefined. */
  readonly parseMs: number | undefined;
}

export interface WriteOptions {
  /**
   * The writer knows more output follows within this many ms (the native relay hands over a
   * flood a few times a second): the gap until then is not quiet, so the parse budget still
   * applies instead of a catch-up per hand-over. Ignored by an exact mirror.
   */
  readonly moreWithinMs?: number;
  /** When these bytes arrived, on the screen's clock, if earlier than now (default now). */
  readonly atMs?: number;
}

export interface Screen {
  /** Resolves once these bytes are parsed (or skipped by flow control, and the bytes after
   * them parsed). Never throws, never waits for anything but the parser. A small write into an
   * idle live mirror is parsed before this returns (the promise is then already
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
