/**
 * Offline tests of the capture lab's follower of OpenCode's event stream (agent-events.mjs), the
 * source of the turn-end label in `agentTurnEnd` scenarios. A local HTTP server plays OpenCode's
 * `GET /event`; the event shapes are OpenCode 1.18's (src/app/reporters/opencode-events.ts reads the same).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { followOpenCodeEvents, isIdleEvent, splitSse } from './agent-events.mjs';

/** A loopback port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const sse = (event: unknown): string => `data: ${JSON.stringify(event)}\n\n`;
const cleanups: (() => void)[] = [];
afterEach(() => { for (const c of cleanups.splice(0)) c(); });

describe('OpenCode event stream follower', () => {
  it('reads idle from session.status idle and session.idle, not from busy or other events', () => {
    expect(isIdleEvent({ type: 'session.status', properties: { sessionID: 's', status: { type: 'idle' } } })).toBe(true);
    expect(isIdleEvent({ type: 'session.idle', properties: { sessionID: 's' } })).toBe(true);
    expect(isIdleEvent({ type: 'session.status', properties: { sessionID: 's', status: { type: 'busy' } } })).toBe(false);
    expect(isIdleEvent({ type: 'message.part.updated', properties: {} })).toBe(false);
  });

  it('splits complete events from an unfinished one', () => {
    expect(splitSse('data: {"a":1}\n\ndata: {"b"')).toEqual({ data: ['{"a":1}'], rest: 'data: {"b"' });
  });

  it('replaces a stream that stays silent, then keeps the lifecycle events of the one that answers', async () => {
    // OpenCode 1.18.33 answers a stream opened while it boots with 200 and never writes to it.
    let requests = 0;
    const open: ServerResponse[] = [];
    const server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      open.push(res);
      if (requests === 1) return;
      res.write(sse({ type: 'server.connected', properties: {} }));
      setTimeout(() => {
        res.write(sse({ type: 'session.status', properties: { sessionID: 's', status: { type: 'busy' } } }));
        res.write(sse({ type: 'message.part.delta', properties: { sessionID: 's', delta: 'text' } }));
        res.write(sse({ type: 'session.status', properties: { sessionID: 's', status: { type: 'idle' } } }));
      }, 100);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => { for (const r of open) r.destroy(); server.close(); });
    const follower = followOpenCodeEvents((server.address() as AddressInfo).port);
    cleanups.push(() => follower.close());

    expect(await follower.waitConnected(5000)).toBe(true);
    const idle = await follower.firstIdleAfter(0, 5000);

    expect(requests).toBe(2);
    expect(idle).toMatchObject({ type: 'session.status', status: 'idle', idle: true });
    expect(follower.events.map((e) => e.status ?? e.type)).toEqual(['server.connected', 'busy', 'idle']);
  });

  it('gives up on an idle event after its cap when none comes', async () => {
    const port = await freePort();
    const follower = followOpenCodeEvents(port);
    cleanups.push(() => follower.close());

    expect(await follower.firstIdleAfter(0, 300)).toBeUndefined();
  });
});
