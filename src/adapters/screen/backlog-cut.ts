/**
 * The cut: when the unparsed backlog passes its high mark, the oldest bytes are skipped down to
 * the newest `keepBytes` (docs/screen.md, "flow control"). What the skipped bytes said out of
 * band is salvaged; the retained bytes start on a redraw where one is near.
 */
import { type Chunk, type DataItem, type QueueItem, copyBytes } from './queue.js';
import { type Salvage, redrawStart, salvageFrom } from './salvage.js';

/** How far into the retained bytes a cut looks for the start of a redraw (several typical frames). */
const REDRAW_SEARCH_MAX_BYTES = 128 * 1024;

export interface BacklogCut {
  /** The backlog from its head on, after the cut. */
  readonly kept: QueueItem[];
  readonly skippedBytes: number;
}

/**
 * Skips the oldest backlog (`items` from `head` on, `backlogBytes` in all) until only the newest
 * `keepBytes` remain; undefined when nothing needs skipping. Resizes are kept (they are tiny and
 * the size must stay right); the waiters of skipped writes move to the next retained write, so
 * "write resolved" still means "the screen is as current as it gets". Adds to `salvage`.
 */
export function cutBacklog(
  items: readonly (QueueItem | undefined)[],
  head: number,
  backlogBytes: number,
  keepBytes: number,
  salvage: Salvage,
): BacklogCut | undefined {
  let excess = backlogBytes - keepBytes;
  if (excess <= 0) return undefined;
  const kept: QueueItem[] = [];
  let carried: (() => void)[] = [];
  let skippedBytes = 0;
  for (let i = head; i < items.length; i++) {
    const item = items[i];
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
    skippedBytes += dropCount;
    excess -= dropCount;
    if (isWhole) {
      carried.push(...item.waiters);
    } else {
      // A copy, so the skipped head of a huge chunk is not kept alive by a view into it.
      item.data = dropFront(item.data, dropCount);
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
      skippedBytes += skip;
      first.data = dropFront(first.data, skip);
    }
  }
  return { kept, skippedBytes };
}

function dropFront(data: Chunk, count: number): Chunk {
  return typeof data === 'string' ? data.slice(count) : copyBytes(data, count);
}
