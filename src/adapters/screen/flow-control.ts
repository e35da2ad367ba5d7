/**
 * The screen mirror (the one `ScreenMirror`): a copy of what the user's terminal shows, kept by @xterm/headless,
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
 */
import { performance } from 'node:perf_hooks';
import type { ScreenView } from '../../core/types.js';
import type { Clock } from '../clock.js';
import { cutBacklog } from './backlog-cut.js';
import {
  BACKLOG_HIGH_BYTES,
  BACKLOG_LOW_BYTES,
  BUDGET_SLICE_BYTES,
  BUDGET_WINDOW_BYTES,
  DEFAULT_PACING,
  DEFAULT_SCROLLBACK_LINES,
  INLINE_WRITE_MAX_BYTES,
  IN_FLIGHT_MAX_BYTES,
  PARSE_RESUME_MS,
  PARSE_TURN_MAX_MS,
  PIECE_MAX_BYTES,
  QUIET_CATCH_UP_MS,
} from './constants.js';
import { MirrorTerminal } from './mirror-terminal.js';
import { ParseBudget } from './parse-budget.js';
import { type QueueItem, compactQueue, takePiece } from './queue.js';
import { type Salvage, emptySalvage, salvageSequences } from './salvage.js';
import type { MirrorStats, ParsePacing, ScreenEvidence, ScreenMirror, ScreenOptions, WriteOptions } from './types.js';
import { ParseWakes } from './wakes.js';


export class FlowControlledScreen implements ScreenMirror {
  private readonly clock: Clock;
  private readonly isExact: boolean;
  private readonly mirror: MirrorTerminal;
  /** The last view outlives the terminal: a final tick may still read it after the agent exits. */
  private lastView: ScreenView | undefined;
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
  private isDisposed = false;

  // Pacing (the live mirror only; undefined when exact). Times are performance.now()
  // milliseconds: the budget is about CPU, not about the session clock (a manual one in tests).
  private readonly pacing: ParsePacing | undefined;
  private readonly budget: ParseBudget | undefined;
  private lastWriteAtMs = 0;
  private turnStartMs = 0;
  /** The current turn parsed a slice: its time limit applies only from then on (see mayParseMore). */
  private hasParsedThisTurn = false;
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
  private readonly wakes = new ParseWakes(
    () => this.onTimer(),
    (isQuietCheck) => this.onImmediate(isQuietCheck),
  );

  constructor(options: ScreenOptions) {
    this.inFlightMaxBytes = IN_FLIGHT_MAX_BYTES;
    this.clock = options.clock;
    this.isExact = options.exact ?? false;
    this.backlogHighBytes = options.backlogHighBytes ?? BACKLOG_HIGH_BYTES;
    this.backlogLowBytes = Math.min(options.backlogLowBytes ?? BACKLOG_LOW_BYTES, this.backlogHighBytes);
    if (!this.isExact) {
      this.pacing = { ...DEFAULT_PACING, ...options.pacing };
      this.budget = new ParseBudget(this.pacing, () => performance.now());
    }
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
    this.wakes.cancel();
    const waiting = [...this.inFlight, ...this.backlog];
    this.inFlight = [];
    this.backlog = [];
    this.inFlightHead = this.backlogHead = this.inFlightBytes = this.backlogBytes = 0;
    this.lastView = this.mirror.view();
    this.mirror.dispose();
    for (const item of waiting) for (const resolve of item?.waiters ?? []) resolve();
  }

  /** Nothing sent is waiting for the parser (a resize included). */
  private isParserIdle(): boolean {
    return this.inFlight.length === this.inFlightHead;
  }

  /** When the bytes the parser is working on arrived (the in-flight head), else now. */
  private headArrivalMs(): number {
    const head = this.inFlight[this.inFlightHead];
    return head?.kind === 'data' ? head.atMs : this.clock.nowMs();
  }

  /** The parser finished the in-flight head. */
  private completeHead(): void {
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
    this.hasParsedThisTurn = false;
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

  /**
   * Paced: may the pump loop parse one more slice in this turn? The turn's time limit counts
   * only once it parsed a slice: a process descheduled for longer than the limit between the
   * turn's start and its first slice (a loaded machine) would otherwise defer even a small
   * write into an idle mirror, which is parsed before `write` returns.
   */
  private mayParseMore(): boolean {
    if (this.budget === undefined) return true;
    if (this.hasParsedThisTurn && performance.now() - this.turnStartMs >= PARSE_TURN_MAX_MS) return false;
    return this.isBudgetLifted() || this.budget.tokens > 0;
  }

  /** Arms the one wake-up the paced mirror needs next, if any. */
  private scheduleTurn(): void {
    const budget = this.budget;
    const pacing = this.pacing;
    if (this.isDisposed || budget === undefined || pacing === undefined) return;
    if (this.isIdle()) {
      this.wakes.cancel();
      return;
    }
    if (this.isBudgetLifted() || (!this.isWaitingForBudget && budget.tokens > 0)) {
      this.wakes.armImmediate(false);
      return;
    }
    if (!this.isWaitingForBudget) {
      this.isWaitingForBudget = true;
      this.budgetWaits += 1;
    }
    const nowMs = performance.now();
    this.wakes.armTimer(Math.min(nowMs + budget.msUntil(pacing.resumeMs), this.lastWriteAtMs + pacing.quietMs));
  }

  private isQuiet(): boolean {
    return performance.now() - this.lastWriteAtMs >= (this.pacing?.quietMs ?? QUIET_CATCH_UP_MS);
  }

  private onTimer(): void {
    if (this.isDisposed) return;
    // Quiet only if it still is after this turn's I/O: a timer runs before the poll phase, so
    // after a busy stretch of the main thread, output may be waiting that just was not read yet.
    if (this.isQuiet()) this.wakes.armImmediate(true);
    else this.runTurn();
  }

  private onImmediate(isQuietCheck: boolean): void {
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
      this.hasParsedThisTurn = true;
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

  /** Starts parsing `item` (already the in-flight tail); leads to one `completeHead()`. */
  private send(item: QueueItem, isIdle: boolean): void {
    if (item.kind === 'resize') {
      this.mirror.resize(item.cols, item.rows);
      this.completeHead();
      return;
    }
    // Paced, every send is inline (the flow control sends only into an idle parser and times
    // it); exact, inline when idle, so a replay awaiting every write is not bound to xterm's timer.
    this.mirror.write(item.data, this.pacing !== undefined || (this.isExact && isIdle), () => this.completeHead());
  }

  private takeFromBacklog(): void {
    this.backlog[this.backlogHead] = undefined;
    this.backlogHead += 1;
  }

  private compactBacklog(): void {
    ({ items: this.backlog, head: this.backlogHead } = compactQueue(this.backlog, this.backlogHead));
  }

  /** Skips the oldest backlog down to the newest `keepBytes` (backlog-cut.ts). */
  private cutBacklog(keepBytes: number): void {
    const salvage = this.salvage ?? emptySalvage();
    const cut = cutBacklog(this.backlog, this.backlogHead, this.backlogBytes, keepBytes, salvage);
    if (cut === undefined) return;
    this.cuts += 1;
    this.isLossy = true;
    this.skippedBytes += cut.skippedBytes;
    this.backlogBytes -= cut.skippedBytes;
    this.backlog = cut.kept;
    this.backlogHead = 0;
    this.salvage = salvage;
  }

  /** Before the first retained bytes: the salvage (salvage.ts), as bytes that are ours, not the agent's. */
  private replaySalvage(salvage: Salvage, atMs: number): void {
    this.salvage = undefined;
    for (const sequence of salvageSequences(salvage, atMs)) {
      this.sendItem({ kind: 'data', data: sequence.data, atMs: sequence.atMs, waiters: [], isSynthetic: true });
    }
  }
}

export function createScreen(options: ScreenOptions): ScreenMirror {
  return new FlowControlledScreen(options);
}
