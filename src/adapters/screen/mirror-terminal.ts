/**
 * One xterm terminal: what the user's terminal shows, kept by @xterm/headless, with the OSC
 * evidence handlers (osc-evidence.ts) registered on its parser and the viewport read as a
 * cached, frozen `ScreenView`.
 */
import { createRequire } from 'node:module';
import type * as XtermHeadless from '@xterm/headless';
import type { Terminal as XtermTerminal } from '@xterm/headless';
import type { ScreenView } from '../../core/types.js';
import { STRING_PAYLOAD_MAX_UNITS } from './constants.js';
import { OscEvidence } from './osc-evidence.js';
import { type ChangedRows, trackChangedRows } from './viewport-rows.js';
import { StringPayloadLimiter } from './payload-limiter.js';
import type { Chunk } from './queue.js';
import type { ScreenEvidence } from './types.js';

// @xterm/headless ships CommonJS without an `exports` map. Loaded with require rather than
// import: Node's ESM loader would first run its CommonJS export lexer over the 300 KB bundle,
// which took ~27 ms of every start-up here (import ~44 ms, require ~17 ms, measured).
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof XtermHeadless;

/** `arrivalMs` tells the evidence handlers when the bytes being parsed arrived. */
export class MirrorTerminal {
  private readonly term: XtermTerminal;
  private readonly limiter = new StringPayloadLimiter(STRING_PAYLOAD_MAX_UNITS);
  private readonly osc: OscEvidence;
  private readonly disposers: { dispose(): void }[] = [];
  private isDirty = true;
  private revision = 0;
  private cachedView: ScreenView | undefined;
  /** Which viewport rows changed since the last view, as xterm reports them (viewport-rows.ts). */
  private readonly changedRows: ChangedRows;
  /** Makes xterm parse the next write inline (see write). */
  private readonly announceInput: () => void;

  constructor(cols: number, rows: number, scrollback: number, arrivalMs: () => number) {
    // logLevel 'off': xterm reports every malformed sequence with console.error (a dump of its
    // parser state, ~2 KB each). That would land on agentwrap's stderr, which is the user's
    // terminal, and hostile output can trigger it thousands of times a second.
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    const osc = new OscEvidence(arrivalMs);
    this.osc = osc;
    const parser = this.term.parser;
    this.disposers.push(
      parser.registerOscHandler(0, (data) => osc.onTitle(data)),
      parser.registerOscHandler(2, (data) => osc.onTitle(data)),
      parser.registerOscHandler(9, (data) => osc.onOsc9(data)),
      parser.registerOscHandler(99, (data) => osc.onOsc99(data)),
      parser.registerOscHandler(133, (data) => osc.onOsc133(data)),
      parser.registerOscHandler(777, (data) => osc.onOsc777(data)),
      parser.registerOscHandler(7501, (data) => osc.onOsc7501(data)),
      // xterm fires this for a C0 BEL only; a BEL that terminates an OSC never reaches it.
      this.term.onBell(() => osc.onBell()),
      this.term,
    );
    this.changedRows = trackChangedRows(this.term, this.disposers);
    // What `input('', true)` does for the inline path is set its write buffer's user-input flag;
    // the rest (an onData event, two log calls) cost more than the parse of a spinner frame.
    // The flag's setter is internal: without it, the public call.
    const writeBuffer = (this.term as unknown as { _core?: { _writeBuffer?: { handleUserInput?: () => void } } })._core?._writeBuffer;
    const handleUserInput = writeBuffer?.handleUserInput;
    this.announceInput = typeof handleUserInput === 'function' ? () => handleUserInput.call(writeBuffer) : () => this.term.input('', true);
  }

  /**
   * Hands `data` to xterm; `onParsed` runs once it is parsed. xterm parses on a later timer
   * (>= 1 ms in Node) unless the write follows user input, when it parses inline. A caller that
   * awaits every write (replay) would be bounded to ~1000 writes per second by
   * that timer, so `isInline` announces (empty) input to get the inline path.
   */
  write(data: Chunk, isInline: boolean, onParsed: () => void): void {
    if (isInline) this.announceInput();
    this.term.write(this.limiter.limit(data), () => {
      this.isDirty = true;
      onParsed();
    });
  }

  /** Takes effect at once, not in order with pending writes: callers wait for those first. */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.isDirty = true;
    this.changedRows.markAll();
  }

  view(): ScreenView {
    if (this.cachedView !== undefined && !this.isDirty) return this.cachedView;
    this.isDirty = false;
    const buffer = this.term.buffer.active;
    const cols = this.term.cols;
    // baseY is the top of the live screen; rows above it are scrollback the user scrolled past.
    const top = buffer.baseY;
    const previousRows = this.cachedView?.rows;
    const rows = this.changedRows.read(this.term.rows, previousRows, (y) => buffer.getLine(top + y)?.translateToString(true).trimEnd() ?? '');
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
    return this.osc.evidence();
  }

  dispose(): void {
    for (const disposable of this.disposers.reverse()) disposable.dispose();
    this.disposers.length = 0;
  }
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
