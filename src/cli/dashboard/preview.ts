/**
 * The dashboard's preview pane: the selected session's live screen over its control socket
 * (`screen`), or one line saying why there is none. Following a new row closes the previous
 * stream, so at most one screen is streamed however often the selection moves.
 */
import { subscribeScreen, type ControlSubscription, type ScreenPreview } from '../../app/control/socket.js';
import type { DashboardRow } from './model.js';

export interface SessionPreview {
  /** The screen, or why there is none (connecting, remote, no socket, refused). */
  current(): ScreenPreview | string;
  /** Streams `row`'s screen; a no-op while the same row stays selected. */
  follow(row: DashboardRow | undefined): void;
  close(): void;
}

/** Why `row` has no preview before any connection is tried; undefined when one can be tried. */
function previewUnavailable(row: DashboardRow | undefined): string | undefined {
  if (row === undefined) return 'no session selected';
  if (row.host !== undefined) return `no preview: ${row.key} runs on ${row.host}`;
  if (row.control === undefined) return row.state === undefined ? 'no preview: another tool’s session' : 'no preview: the session has no control socket';
  return undefined;
}

/** `onChange` is called when what `current()` returns changed by itself (a screen arrived, a refusal). */
export function createSessionPreview(onChange: () => void): SessionPreview {
  let preview: ScreenPreview | string = 'no session selected';
  let previewId: string | undefined;
  let subscription: ControlSubscription | undefined;
  let isClosed = false;

  const connect = (id: string, control: string): void => {
    preview = 'connecting…';
    // Answers for a row no longer selected are dropped: the selection moved while connecting.
    subscribeScreen(control, (screen) => {
      if (previewId !== id) return;
      preview = screen;
      onChange();
    }).then(
      (opened) => {
        if (previewId !== id || isClosed) opened.close();
        else subscription = opened;
      },
      (error: unknown) => {
        if (previewId !== id) return;
        preview = `no preview: ${error instanceof Error ? error.message : String(error)}`;
        onChange();
      },
    );
  };

  return {
    current: () => preview,
    follow(row) {
      if (isClosed || row?.id === previewId) return;
      previewId = row?.id;
      subscription?.close();
      subscription = undefined;
      const reason = previewUnavailable(row);
      if (reason !== undefined) preview = reason;
      else if (row?.control !== undefined) connect(row.id, row.control);
    },
    close() {
      isClosed = true;
      subscription?.close();
      subscription = undefined;
    },
  };
}
