/**
 * The dashboard's subscriptions to local sessions' transitions (control socket `subscribe`):
 * one per session listed, opened when it appears, closed when it leaves. A stream that closes
 * means the session ended or dropped it; the owner re-reads to learn which, and the next sync
 * subscribes again if the session is still there.
 */
import { subscribeControl, type ControlSubscription, type StateChangeEvent } from '../../app/control/socket.js';

interface Feed {
  readonly control: string;
  subscription: ControlSubscription | undefined;
  isConnecting: boolean;
}

export interface TransitionFeeds {
  /** Subscribes to every session in `sessions` (key → control socket) not yet followed; drops the others. */
  sync(sessions: ReadonlyMap<string, string>): void;
  close(): void;
}

export function createTransitionFeeds(onTransition: (event: StateChangeEvent) => void, onClosed: () => void): TransitionFeeds {
  const feeds = new Map<string, Feed>();
  let isClosed = false;

  const open = (key: string, feed: Feed): void => {
    feed.isConnecting = true;
    subscribeControl(feed.control, onTransition).then(
      (subscription) => {
        feed.isConnecting = false;
        if (isClosed || feeds.get(key) !== feed) {
          subscription.close();
          return;
        }
        feed.subscription = subscription;
        void subscription.closed.then(() => {
          if (feed.subscription !== subscription) return;
          feed.subscription = undefined;
          if (!isClosed) onClosed();
        });
      },
      () => {
        // Not listening yet, or gone: the next sync tries again.
        feed.isConnecting = false;
      },
    );
  };

  return {
    sync(sessions) {
      for (const [key, control] of sessions) {
        let feed = feeds.get(key);
        if (feed !== undefined && feed.control !== control) {
          feed.subscription?.close();
          feed = undefined;
        }
        if (feed === undefined) {
          feed = { control, subscription: undefined, isConnecting: false };
          feeds.set(key, feed);
        }
        if (feed.subscription === undefined && !feed.isConnecting) open(key, feed);
      }
      for (const [key, feed] of feeds) {
        if (sessions.has(key)) continue;
        feed.subscription?.close();
        feeds.delete(key);
      }
    },
    close() {
      isClosed = true;
      for (const feed of feeds.values()) feed.subscription?.close();
      feeds.clear();
    },
  };
}
