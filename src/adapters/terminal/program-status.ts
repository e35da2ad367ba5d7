/**
 * OSC 7501 program status (`ESC ] 7501 ; key=value:… ST`) between the agent and the user's
 * terminal. Claude Code probes with `ESC ] 7501 ; ?` right before its DA1 query and reports its
 * state only if a 7501 reply arrives before the DA1 reply; tmux and most terminals never answer.
 * This filter, which sits on the relay (src/native/relay.c holds its C port: keep the two in
 * step, test/adapters/terminal/program-status.test.ts feeds both the same bytes):
 * - answers the agent's probe itself, unless the user's terminal already said it understands
 *   7501: the caller writes PROBE_ANSWER to the agent before it writes that chunk to the
 *   terminal, so the terminal cannot have answered DA1 yet;
 * - from then on keeps the agent's 7501 sequences from a terminal that never answered (they
 *   were brought out by agentwrap's answer, not by the terminal); sequences an agent writes
 *   without having probed (Codex) pass as before;
 * - watches the user's input for a 7501 reply (`ESC ] 7501 ; ?…`): the terminal understands,
 *   stripping stops, and the reply goes on to the agent, unless it answers agentwrap's own
 *   probe (PROGRAM_STATUS_PROBE, sent by the live session for agents that do not probe).
 * Every other byte passes unchanged and in order. Output is held back only while stripping and
 * only the prefix of a possible 7501 sequence at a chunk's end (at most 7 bytes).
 */
const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const BACKSLASH = 0x5c;
const QUESTION = 0x3f;
const OSC_PREFIX = [0x1b, 0x5d, 0x37, 0x35, 0x30, 0x31, 0x3b]; // ESC ] 7 5 0 1 ;
/** `ESC P`, `ESC X`, `ESC ^`, `ESC _`: strings whose content (a tmux passthrough) is not ours to read. */
const STRING_INTRODUCERS = new Set([0x50, 0x58, 0x5e, 0x5f]);
/**
 * On input a held prefix shorter than this is let go at a chunk's end: a lone ESC there is the
 * Escape key (and `ESC ]` is Alt+]), which must reach the agent now; a terminal writes its reply
 * in one piece, so a reply split that early is passed on rather than swallowed.
 */
const INPUT_HOLD_MIN = 3;

/** agentwrap's own probe to the user's terminal. */
export const PROGRAM_STATUS_PROBE = '\x1b]7501;?\x07';
/** What agentwrap answers an agent's probe with (what Ghostty answers). */
export const PROBE_ANSWER = '\x1b]7501;?1\x1b\\';

/** The filter's findings, as bits (the native relay hands the same bits over in each batch). */
export const STATUS_OUTER_UNDERSTANDS = 1;
export const STATUS_ANSWERED_AGENT = 2;
export const STATUS_AGENT_PROBED = 4;
/** A 7501 status from the agent itself reached the user's terminal. */
export const STATUS_AGENT_SPOKE = 8;

const enum Phase {
  Ground,
  Escape,
  Prefix,
  Data,
  DataEscape,
  Str,
  StrEscape,
}

interface ScanPolicy {
  /** At an ESC: withhold the bytes of a possible 7501 prefix. */
  hold(): boolean;
  /** At a complete, withheld prefix: drop the whole sequence. */
  drop(): boolean;
  /** A 7501 sequence ended (`isQuery`: its data starts with `?`). */
  ended(isQuery: boolean, isDropped: boolean): void;
}

class Out {
  n = 0;
  isIdentical = true;
  constructor(readonly bytes: Buffer) {}
  put(b: number): void {
    this.bytes[this.n++] = b;
  }
}

/** One direction's scanner: finds 7501 sequences across chunk boundaries. */
class SequenceScanner {
  private phase = Phase.Ground;
  private matched = 0;
  private held: number[] = [];
  private isHolding = false;
  private isDropping = false;
  private first = -1;

  constructor(
    private readonly policy: ScanPolicy,
    private readonly holdMin: number,
  ) {}

  scan(chunk: Buffer): Buffer {
    const out = new Out(Buffer.allocUnsafe(chunk.length + this.held.length));
    let k = 0;
    while (k < chunk.length) {
      if (this.phase === Phase.Ground) {
        // The common case: copy up to the next ESC at once.
        const next = chunk.indexOf(ESC, k);
        const end = next < 0 ? chunk.length : next;
        chunk.copy(out.bytes, out.n, k, end);
        out.n += end - k;
        k = end;
        if (k === chunk.length) break;
      }
      this.step(chunk[k] ?? 0, out);
      k++;
    }
    if (this.isHolding && this.held.length > 0 && this.held.length < this.holdMin) {
      this.release(out);
      this.isHolding = false;
    }
    return out.isIdentical && out.n === chunk.length ? chunk : out.bytes.subarray(0, out.n);
  }

  /** Bytes still withheld (at the end of the stream: they go out after all). */
  flush(): Buffer {
    const held = Buffer.from(this.held);
    this.held = [];
    this.isHolding = false;
    return held;
  }

  private step(b: number, out: Out): void {
    switch (this.phase) {
      case Phase.Ground:
        if (b === ESC) this.begin(out);
        else out.put(b);
        return;
      case Phase.Escape:
        if (b === 0x5d) {
          this.keep(b, out);
          this.phase = Phase.Prefix;
          this.matched = 2;
          return;
        }
        this.release(out);
        if (b === ESC) {
          this.begin(out);
          return;
        }
        out.put(b);
        this.phase = STRING_INTRODUCERS.has(b) ? Phase.Str : Phase.Ground;
        return;
      case Phase.Prefix:
        if (b === OSC_PREFIX[this.matched]) {
          this.keep(b, out);
          this.matched++;
          if (this.matched === OSC_PREFIX.length) this.enterData(out);
          return;
        }
        this.release(out);
        this.phase = Phase.Ground;
        this.step(b, out);
        return;
      case Phase.Data:
        if (this.first < 0) this.first = b;
        if (b === ESC) {
          // ST or the start of something else: decided by the next byte.
          if (!this.isDropping) out.put(b);
          this.phase = Phase.DataEscape;
          return;
        }
        this.pass(b, out);
        if (b === BEL) this.end();
        else if (b === CAN || b === SUB) this.abort();
        return;
      case Phase.DataEscape:
        if (b === BACKSLASH) {
          this.pass(b, out);
          this.end();
          return;
        }
        // The sequence was cut off by a new escape: that ESC starts it (dropped or not).
        if (this.isDropping) {
          this.abort();
          this.begin(out);
        } else {
          this.abort();
          this.phase = Phase.Escape;
          this.isHolding = false;
        }
        this.step(b, out);
        return;
      case Phase.Str:
        out.put(b);
        if (b === ESC) this.phase = Phase.StrEscape;
        else if (b === CAN || b === SUB) this.phase = Phase.Ground;
        return;
      case Phase.StrEscape:
        out.put(b);
        this.phase = b === BACKSLASH ? Phase.Ground : b === ESC ? Phase.StrEscape : Phase.Str;
        return;
    }
  }

  private begin(out: Out): void {
    this.phase = Phase.Escape;
    this.isHolding = this.policy.hold();
    this.keep(ESC, out);
  }

  private keep(b: number, out: Out): void {
    if (this.isHolding) {
      this.held.push(b);
      out.isIdentical = false;
    } else {
      out.put(b);
    }
  }

  private release(out: Out): void {
    if (this.held.length === 0) return;
    for (const b of this.held) out.put(b);
    this.held = [];
    out.isIdentical = false;
  }

  private enterData(out: Out): void {
    this.phase = Phase.Data;
    this.first = -1;
    this.isDropping = this.isHolding && this.policy.drop();
    if (this.isDropping) this.held = [];
    else this.release(out);
    this.isHolding = false;
  }

  private pass(b: number, out: Out): void {
    if (this.isDropping) out.isIdentical = false;
    else out.put(b);
  }

  private end(): void {
    this.policy.ended(this.first === QUESTION, this.isDropping);
    this.phase = Phase.Ground;
    this.isDropping = false;
  }

  private abort(): void {
    this.phase = Phase.Ground;
    this.isDropping = false;
  }
}

/** What one chunk of the agent's output became. */
export interface FilteredOutput {
  /** The bytes for the user's terminal (the chunk itself when nothing changed). */
  readonly pass: Buffer;
  /** Probes to answer with PROBE_ANSWER, written to the agent before `pass` goes out. */
  readonly answers: number;
}

export class ProgramStatusFilter {
  private bitsNow = 0;
  private answers = 0;
  /** The agent's probes that reached the user's terminal, and agentwrap's own: replies pair with them in order. */
  private agentPending = 0;
  private ownPending = 0;
  private readonly output = new SequenceScanner(
    {
      hold: () => this.isStripping(),
      drop: () => this.isStripping(),
      ended: (isQuery, isDropped) => {
        if (!isQuery) {
          if (!isDropped) this.bitsNow |= STATUS_AGENT_SPOKE;
          return;
        }
        this.bitsNow |= STATUS_AGENT_PROBED;
        if (!isDropped) this.agentPending++;
        if ((this.bitsNow & STATUS_OUTER_UNDERSTANDS) === 0) {
          this.answers++;
          this.bitsNow |= STATUS_ANSWERED_AGENT;
        }
      },
    },
    0,
  );
  private readonly input = new SequenceScanner(
    {
      hold: () => this.ownPending > 0 && this.agentPending === 0,
      drop: () => this.ownPending > 0 && this.agentPending === 0,
      ended: (isQuery, isDropped) => {
        if (!isQuery) return;
        this.bitsNow |= STATUS_OUTER_UNDERSTANDS;
        if (isDropped || this.agentPending === 0) this.ownPending = Math.max(0, this.ownPending - 1);
        else this.agentPending--;
      },
    },
    INPUT_HOLD_MIN,
  );

  get bits(): number {
    return this.bitsNow;
  }

  filterOutput(chunk: Buffer): FilteredOutput {
    this.answers = 0;
    const pass = this.output.scan(chunk);
    return { pass, answers: this.answers };
  }

  /** The user's input, minus a reply to agentwrap's own probe. */
  filterInput(chunk: Buffer): Buffer {
    return this.input.scan(chunk);
  }

  /** agentwrap wrote PROGRAM_STATUS_PROBE to the user's terminal. */
  noteOwnProbe(): void {
    this.ownPending++;
  }

  /** Output still withheld at the end of the stream. */
  flushOutput(): Buffer {
    return this.output.flush();
  }

  private isStripping(): boolean {
    return (this.bitsNow & (STATUS_ANSWERED_AGENT | STATUS_OUTER_UNDERSTANDS)) === STATUS_ANSWERED_AGENT;
  }
}
