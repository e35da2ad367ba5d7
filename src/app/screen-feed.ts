/**
 * The live screen preview a session serves on its control socket (`screen` method): the
 * viewport to each subscriber at once, then again whenever it changed. The owner calls
 * `check()` on wake-ups it makes anyway (the detector's tick, after output was parsed), so a
 * preview costs nothing while nobody watches and one identity comparison per tick while
 * someone does: the mirror returns the same view object until the screen changes.
 */
import type { ScreenView } from '../core/types.js';
import type { ScreenPreview } from './control-socket.js';

export interface ScreenFeed {
  subscribe(emit: (preview: ScreenPreview) => void): () => void;
  /** Sends the viewport to every subscriber if it changed since the last send. */
  check(): void;
}

function toPreview(view: ScreenView): ScreenPreview {
  return { rows: view.rows, cols: view.cols, cursorRow: view.cursorRow, cursorCol: view.cursorCol };
}

export function createScreenFeed(view: () => ScreenView): ScreenFeed {
  const subscribers = new Set<(preview: ScreenPreview) => void>();
  let lastSent: ScreenView | undefined;
  return {
    subscribe(emit) {
      subscribers.add(emit);
      emit(toPreview(view()));
      return () => subscribers.delete(emit);
    },
    check() {
      if (subscribers.size === 0) return;
      const current = view();
      if (current === lastSent) return;
      lastSent = current;
      const preview = toPreview(current);
      for (const emit of subscribers) emit(preview);
    },
  };
}
