/**
 * Which rows of the viewport changed since it was last read, so a view re-reads only those and
 * keeps the very same strings for the rest (a spinner redraws one row of forty; reading a row is
 * xterm's translateToString, and equal rows that are the same string compare at once downstream).
 *
 * xterm's public API says that something was parsed, not where. Its parser keeps the range of
 * rows it touched for the renderer (InputHandler's dirty-row tracker, fired as
 * onRequestRefreshRows after every parse: a scroll, an alternate-screen switch, an erase all
 * land in it, as they must for a browser terminal to redraw), and a full reset (RIS) is told
 * apart. Both are internals of @xterm/headless: where they are missing (another version), every
 * read re-reads every row, as before.
 */
import type { Terminal as XtermTerminal } from '@xterm/headless';

export interface ChangedRows {
  /** Every row is to be re-read (a resize; and at the start). */
  markAll(): void;
  /**
   * The viewport's `rowCount` rows: rows that did not change since `previous` was read are its
   * strings; changed ones come from `readRow(y)` (and are still the previous string when equal).
   */
  read(rowCount: number, previous: readonly string[] | undefined, readRow: (y: number) => string): string[];
}

interface Disposable {
  dispose(): void;
}

interface RowRange {
  readonly start: number;
  readonly end: number;
}

/** The parts of xterm's core this reads; all optional, as they are not its public API. */
interface XtermInternals {
  readonly _core?: {
    readonly _inputHandler?: {
      readonly onRequestRefreshRows?: (listener: (range: RowRange | undefined) => void) => Disposable;
      readonly onRequestReset?: (listener: () => void) => Disposable;
    };
  };
}

export function trackChangedRows(term: XtermTerminal, disposers: Disposable[]): ChangedRows {
  // Rows [from, to] changed, inclusive; from > to: none.
  let from = 0;
  let to = Number.POSITIVE_INFINITY;
  const markAll = (): void => {
    from = 0;
    to = Number.POSITIVE_INFINITY;
  };
  const handler = (term as unknown as XtermInternals)._core?._inputHandler;
  const onRefresh = handler?.onRequestRefreshRows;
  const onReset = handler?.onRequestReset;
  const isTracked = typeof onRefresh === 'function' && typeof onReset === 'function';
  if (isTracked) {
    disposers.push(
      onRefresh.call(handler, (range) => {
        if (range === undefined) {
          markAll();
          return;
        }
        from = Math.min(from, range.start);
        to = Math.max(to, range.end);
      }),
      onReset.call(handler, markAll),
    );
  }
  return {
    markAll,
    read(rowCount, previous, readRow) {
      const isAll = !isTracked || previous === undefined || previous.length !== rowCount;
      // Pushed, not preallocated: a packed array, as readers index it on every tick.
      const rows: string[] = [];
      for (let y = 0; y < rowCount; y++) {
        const old = previous?.[y];
        if (!isAll && old !== undefined && (y < from || y > to)) {
          rows.push(old);
          continue;
        }
        const row = readRow(y);
        rows.push(row === old ? old : row);
      }
      from = Number.POSITIVE_INFINITY;
      to = Number.NEGATIVE_INFINITY;
      return rows;
    },
  };
}
