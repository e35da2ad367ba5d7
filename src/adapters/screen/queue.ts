/** The mirror's queues: what waits for the parser (data and resizes, in order), and how a chunk is cut into pieces. */

export type Chunk = Uint8Array | string;

export interface DataItem {
  readonly kind: 'data';
  data: Chunk;
  readonly atMs: number;
  /** Resolvers of this write and of any skipped writes before it. */
  readonly waiters: (() => void)[];
  /** Parser resets and salvaged sequences are ours, not the agent's: not counted as parsed. */
  readonly isSynthetic?: boolean;
}

export interface ResizeItem {
  readonly kind: 'resize';
  readonly cols: number;
  readonly rows: number;
  readonly waiters: (() => void)[];
}

export type QueueItem = DataItem | ResizeItem;

/**
 * An array consumed from `head` on, as a queue: emptied once all of it is consumed, sliced once
 * the consumed head is large and most of it, so it neither grows without end nor copies per item.
 */
export function compactQueue<T>(items: T[], head: number): { items: T[]; head: number } {
  if (head === items.length) return { items: [], head: 0 };
  if (head > 1024 && head * 2 > items.length) return { items: items.slice(head), head: 0 };
  return { items, head };
}

/** A fresh copy from `start` on: Buffer#slice would return a view, not a copy. */
export function copyBytes(bytes: Uint8Array, start: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes.subarray(start));
}

/** Splits off at most `maxBytes`, never between the halves of a UTF-16 surrogate pair. */
export function takePiece(data: Chunk, maxBytes: number): Chunk {
  if (data.length <= maxBytes) return data;
  if (typeof data !== 'string') return data.subarray(0, maxBytes);
  const lastUnit = data.charCodeAt(maxBytes - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxBytes - 1 : maxBytes;
  return data.slice(0, end);
}
