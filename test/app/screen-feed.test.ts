/**
 * The `screen` method of the control socket: a real control server backed by a screen feed, a
 * real client (subscribeScreen). The viewport arrives at once and again only after it changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startControlServer, subscribeScreen, requestControl, type ControlServer, type ScreenPreview } from '../../src/app/control/socket.js';
import { createScreenFeed } from '../../src/app/screen-feed.js';
import type { ScreenView } from '../../src/core/types.js';

let dir: string | undefined;
let server: ControlServer | undefined;

afterEach(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function view(rows: string[], revision: number): ScreenView {
  return { rows, cols: 20, cursorRow: 0, cursorCol: 2, isAlternateScreen: false, revision };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const HANDLERS = { explain: () => ({}), capture: () => ({}), ack: () => ({}), report: () => ({}), subscribe: () => () => undefined };

describe('screen preview stream', () => {
  it('sends the viewport on subscribe, then only when the screen changed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-screen-feed-'));
    let current = view(['> hello'], 1);
    const feed = createScreenFeed(() => current);
    server = await startControlServer(join(dir, 's.sock'), { ...HANDLERS, screen: (emit) => feed.subscribe(emit) });
    const seen: ScreenPreview[] = [];
    const subscription = await subscribeScreen(server.path, (preview) => seen.push(preview));
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({ rows: ['> hello'], cols: 20, cursorRow: 0, cursorCol: 2 });

    feed.check();
    feed.check(); // the same view object: nothing more is sent
    current = view(['> hello', '✻ Thinking…'], 2);
    feed.check();
    feed.check();
    await until(() => seen.length >= 2);
    // One more round trip: anything still in flight would have arrived before this reply.
    await requestControl(server.path, { method: 'ping' });
    expect(seen.map((p) => p.rows)).toEqual([['> hello'], ['> hello', '✻ Thinking…']]);
    subscription.close();
  });

  it('is refused by a session that serves no previews', async () => {
    dir = mkdtempSync(join(tmpdir(), 'aw-screen-feed-'));
    server = await startControlServer(join(dir, 's.sock'), HANDLERS);
    await expect(subscribeScreen(server.path, () => undefined)).rejects.toThrow(/does not serve screen previews/);
  });
});
