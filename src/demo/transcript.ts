/**
 * How the demo agent draws, inline like Claude Code: finished transcript lines are written once
 * and scroll away; only the live area at the bottom (spinner, prompt box or dialog) is redrawn,
 * by moving the cursor back to its top and clearing to the end of the screen. A resize clears
 * the screen and redraws the transcript tail (the terminal's reflow makes the remembered
 * live-area height meaningless). Each method returns the bytes to write.
 */
import { paint, row, wrap, type Row } from './view.js';

/** Lines kept for a redraw after a resize. */
const HISTORY_LINES_MAX = 500;

/** A transcript line as written: re-wrapped at the new width after a resize. */
export interface LogicalLine {
  readonly text: string;
  readonly sgr: string;
  readonly indent: string;
}

/** The rows of the live area and where the cursor belongs (undefined: hidden). */
export interface LiveArea {
  readonly rows: Row[];
  readonly cursor: { readonly row: number; readonly col: number } | undefined;
}

export function up(rows: number): string {
  return rows > 0 ? `\x1b[${rows}A` : '';
}

export class InlineTranscript {
  private readonly history: LogicalLine[] = [];
  private pending: LogicalLine[] = [];
  private liveDrawn = false;
  /** Rows from the live area's top row to the row the cursor was left on. */
  private liveCursorRow = 0;

  /** Lines to write above the live area at the next render. */
  commit(lines: readonly LogicalLine[]): void {
    this.pending.push(...lines);
  }

  /** Forgets everything (after `/clear` cleared the screen). */
  clear(): void {
    this.history.length = 0;
    this.pending = [];
    this.liveDrawn = false;
  }

  /** Erases the live area, if drawn. */
  clearLive(): string {
    if (!this.liveDrawn) return '';
    this.liveDrawn = false;
    return `\r${up(this.liveCursorRow)}\x1b[J`;
  }

  /** The committed lines, then the live area in place of the old one. */
  render(width: number, screenRows: number, live: (width: number) => LiveArea): string {
    let out = this.liveDrawn ? `\r${up(this.liveCursorRow)}\x1b[J` : '';
    for (const logical of this.pending) {
      for (const text of wrap(logical.text, width, logical.indent)) out += `${paint(row(text, logical.sgr))}\r\n`;
    }
    this.remember(this.pending);
    this.pending = [];
    return out + this.drawLive(live(width), screenRows);
  }

  /** Clears the screen and draws the transcript tail and the live area at the new size. */
  redrawAll(width: number, screenRows: number, live: (width: number) => LiveArea): string {
    this.remember(this.pending);
    this.pending = [];
    const liveRows = live(width).rows.length;
    const room = Math.max(0, screenRows - liveRows);
    const tail = this.history.flatMap((l) => wrap(l.text, width, l.indent).map((text) => row(text, l.sgr))).slice(-room);
    let out = '\x1b[H\x1b[2J';
    for (const r of room > 0 ? tail : []) out += `${paint(r)}\r\n`;
    return out + this.drawLive(live(width), screenRows);
  }

  private drawLive(live: LiveArea, screenRows: number): string {
    // Keep the live area on screen: relative cursor moves cannot reach rows scrolled away.
    const overflow = Math.max(0, live.rows.length - screenRows);
    const rows = live.rows.slice(overflow);
    const last = rows.length - 1;
    let out = rows.map(paint).join('\r\n');
    if (live.cursor !== undefined && live.cursor.row - overflow >= 0) {
      const cursorRow = live.cursor.row - overflow;
      out += `${up(last - cursorRow)}\x1b[${live.cursor.col + 1}G\x1b[?25h`;
      this.liveCursorRow = cursorRow;
    } else {
      out += '\x1b[?25l';
      this.liveCursorRow = last;
    }
    this.liveDrawn = true;
    return out;
  }

  private remember(lines: readonly LogicalLine[]): void {
    this.history.push(...lines);
    if (this.history.length > HISTORY_LINES_MAX) this.history.splice(0, this.history.length - HISTORY_LINES_MAX);
  }
}
