/**
 * The live screen preview a session serves on its control socket (`screen` method): the
 * viewport to each subscriber at once, then again whenever it changed. The owner calls
 * `check()` on wake-ups it makes anyway (the detector's tick, after output was parsed), so a
 * preview costs nothing while nobody watches and one identity comparison per tick while
 * someone does: the mirror returns the same view object until the screen changes.
 */
import type { ScreenView } from '../core/types.js';
import type { ScreenPreview } from './control/socket.js';

export interface ScreenFeed {
  subscribe(emit: (preview: ScreenPreview) => void): () => void;
  /** Sends the viewport to every subscriber if it changed since the last send. */
  check(): void;
}

function toPreview(view: ScreenView): ScreenPreview {
  return { rows: view.rows, cols: view.cols, cursorRow: view.cursorRow, cursorCol: view.cursorCol };
}

export function createScreenFeed(view: () => ScreenView): ScreenFeed {
  /** Each subscriber with the view it was sent last. */
  const subscribers = new Map<(preview: ScreenPreview) => void, ScreenView>();
  return {
    subscribe(emit) {
      const current = view();
      subscribers.set(emit, current);
      emit(toPreview(current));
      return () => subscribers.delete(emit);
    },
    check() {
      if (subscribers.size === 0) return;
      const current = view();
      for (const [emit, sent] of subscribers) {
        if (sent === current) continue;
        subscribers.set(emit, current);
        emit(toPreview(current));
      }
    },
  };
}
