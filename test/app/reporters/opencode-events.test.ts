import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endsStream, followOpenCodeEvents, parseSse, reportFor, type FollowOptions, type Following } from '../../../src/app/reporters/opencode-events.js';

const AUTH = `Basic ${Buffer.from('opencode:secret').toString('base64')}`;

describe('parseSse', () => {
  it('returns the data of each complete event and keeps the unfinished rest', () => {
    const parsed = parseSse('data: {"a":1}\n\n: comment\n\nid: 3\ndata: line one\ndata: line two\r\n\r\ndata: {"par');
    expect(parsed.data).toEqual(['{"a":1}', 'line one\nline two']);
    expect(parsed.rest).toBe('data: {"par');
  });
});

describe('reportFor', () => {
  it('passes on lifecycle and stream events with only the fields gating reads', () => {
    const status = JSON.stringify({ id: 'e1', type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'busy', attempt: 2 }, extra: 'dropped' } });
    expect(reportFor(status, 7, 1000)).toEqual({
      event: 'session.status',
      agent: 'opencode',
      source: 'opencode-events',
      seq: 7,
      sentAtMs: 1000,
      payload: { type: 'session.status', properties: { sessionID: 'ses_1', status: { type: 'busy' } } },
    });
    const created = JSON.stringify({ type: 'session.created', properties: { info: { id: 'ses_2', title: 'secret prompt' } } });
    expect(reportFor(created, 1, 0)?.['payload']).toEqual({ type: 'session.created', properties: { sessionID: 'ses_2' } });
    expect(reportFor(JSON.stringify({ type: 'server.heartbeat', properties: {} }), 1, 0)?.['event']).toBe('server.heartbeat');
  });

  it('drops message streaming, unknown events and what is not JSON', () => {
    expect(reportFor(JSON.stringify({ type: 'message.part.updated', properties: { part: { text: 'hello' } } }), 1, 0)).toBeUndefined();
    expect(reportFor('not json', 1, 0)).toBeUndefined();
    expect(reportFor('[1,2]', 1, 0)).toBeUndefined();
  });
});

describe('followOpenCodeEvents against a stand-in for OpenCode\'s /event', () => {
  const servers: Server[] = [];
  const follows: Following[] = [];

  afterEach(async () => {
    for (const follow of follows.splice(0)) follow.stop();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolvePromise) => server.close(resolvePromise));
    }
  });

  function listen(server: Server, port = 0): Promise<number> {
    servers.push(server);
    return new Promise((resolvePromise) => server.listen(port, '127.0.0.1', () => resolvePromise((server.address() as AddressInfo).port)));
  }

  function sse(res: ServerResponse, event: unknown): void {
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  interface Followed {
    /** What was delivered so far, in order (the reports themselves)… */
    readonly reports: Readonly<Record<string, unknown>>[];
    /** …and their event names. */
    readonly events: string[];
    readonly warnings: string[];
    /** Resolves once `untilEvent` was delivered (any event when undefined). */
    readonly reached: Promise<void>;
  }

  /** Follows the stand-in on `port`, with OpenCode's password, until `untilEvent` is delivered. */
  function follow(port: number, untilEvent: string | undefined, options: Pick<FollowOptions, 'silentStreamMs' | 'firstByteMs'> = {}): Followed {
    const reports: Readonly<Record<string, unknown>>[] = [];
    const events: string[] = [];
    const warnings: string[] = [];
    const reached = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          ...options,
          deliver: async (params) => {
            reports.push(params);
            events.push(String(params['event']));
            if (untilEvent === undefined || params['event'] === untilEvent) resolvePromise();
          },
          warn: (message) => warnings.push(message),
        }),
      );
    });
    return { reports, events, warnings, reached };
  }

  it('delivers the lifecycle events in order, numbered, with the password OpenCode expects', async () => {
    const seenAuth: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seenAuth.push(req.headers.authorization);
      if (req.headers.authorization !== AUTH) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { type: 'server.connected', properties: {} });
      sse(res, { type: 'session.status', properties: { sessionID: 's', status: { type: 'busy' } } });
      // One event split across two writes, as TCP may deliver it.
      const asked = `data: ${JSON.stringify({ type: 'permission.asked', properties: { sessionID: 's', id: 'per_1' } })}\n\n`;
      res.write(asked.slice(0, 20));
      setTimeout(() => {
        res.write(asked.slice(20));
        sse(res, { type: 'message.part.delta', properties: { delta: 'private text' } });
        sse(res, { type: 'session.idle', properties: { sessionID: 's' } });
      }, 30);
    });
    const port = await listen(server);
    const followed = follow(port, 'session.idle');
    await followed.reached;

    expect(seenAuth).toEqual([AUTH]);
    expect(followed.reports.map((d) => [d['event'], d['seq']])).toEqual([
      ['server.connected', 1],
      ['session.status', 2],
      ['permission.asked', 3],
      ['session.idle', 4],
    ]);
    expect(followed.warnings).toEqual([]);
    expect(JSON.stringify(followed.reports)).not.toContain('private text');
  });

  it('keeps trying while OpenCode boots, and connects once its server is up', async () => {
    // A port nothing listens on yet: taken from the kernel, then given back.
    const probe = createServer();
    const port = await listen(probe);
    await new Promise((resolvePromise) => probe.close(resolvePromise));
    const followed = follow(port, undefined);
    // Nothing listens yet: a few refused attempts go by first.
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 600));
    expect(followed.events).toEqual([]);
    await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, { type: 'server.connected', properties: {} });
      }),
      port,
    );
    await followed.reached;
    expect(followed.events).toEqual(['server.connected']);
  });

  // Seen live with OpenCode 1.18.33: a stream opened while it boots is answered 200 and then
  // carries nothing, not even a heartbeat; one opened after its first screen carries every event.
  it('replaces a stream that gets no answer or stays silent, and delivers from the next one', async () => {
    let requests = 0;
    const port = await listen(
      createServer((_req, res) => {
        requests += 1;
        if (requests === 1) return; // no answer at all
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (requests === 2) {
          res.flushHeaders(); // answered 200, then silence
          return;
        }
        sse(res, { type: 'server.connected', properties: {} });
        sse(res, { type: 'session.status', properties: { sessionID: 's', status: { type: 'busy' } } });
      }),
    );
    const followed = follow(port, 'session.status', { silentStreamMs: 300 });
    await followed.reached;
    expect(requests).toBe(3);
    expect(followed.events).toEqual(['server.connected', 'session.status']);
  });

  // A prompt typed right after OpenCode's first screen must not wait out SILENT_STREAM_MS behind
  // a boot-time stream that was answered and never carried a byte.
  it('replaces a stream that never carried its first byte long before a quiet one', async () => {
    let requests = 0;
    const port = await listen(
      createServer((_req, res) => {
        requests += 1;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (requests <= 2) {
          res.flushHeaders(); // answered 200, then nothing, as while OpenCode boots
          return;
        }
        sse(res, { type: 'server.connected', properties: {} });
        sse(res, { type: 'session.status', properties: { sessionID: 's', status: { type: 'busy' } } });
      }),
    );
    // A silence allowance far beyond the test's timeout: only the first-byte deadline can bring the third stream.
    const followed = follow(port, 'session.status', { silentStreamMs: 60_000, firstByteMs: 200 });
    await followed.reached;
    expect(requests).toBe(3);
    expect(followed.events).toEqual(['server.connected', 'session.status']);
  });

  it('reconnects at once when OpenCode disposes the instance it was subscribed to', async () => {
    let requests = 0;
    const port = await listen(
      createServer((_req, res) => {
        requests += 1;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, { type: 'server.connected', properties: {} });
        // The subscription ends here; the connection stays open.
        if (requests === 1) sse(res, { type: 'server.instance.disposed', properties: { directory: '/w' } });
        else sse(res, { type: 'session.idle', properties: { sessionID: 's' } });
      }),
    );
    // A silence allowance long enough that only the disposal event can explain the second connection.
    const followed = follow(port, 'session.idle', { silentStreamMs: 60_000 });
    await followed.reached;
    expect(requests).toBe(2);
    expect(followed.events).toEqual(['server.connected', 'server.connected', 'session.idle']);
    expect(endsStream(JSON.stringify({ type: 'session.idle', properties: { directory: 'server.instance.disposed' } }))).toBe(false);
  });

  it('says once that it was refused, and stops', async () => {
    let requests = 0;
    const port = await listen(
      createServer((_req, res) => {
        requests += 1;
        res.writeHead(401).end();
      }),
    );
    const warned = new Promise<string>((resolvePromise) => {
      follows.push(followOpenCodeEvents({ url: `http://127.0.0.1:${port}`, authorization: 'Basic wrong', deliver: async () => undefined, warn: resolvePromise }));
    });
    expect(await warned).toMatch(/refused agentwrap's event stream \(HTTP 401\)/);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 600));
    expect(requests).toBe(1);
  });
});
