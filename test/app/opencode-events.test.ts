import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { endsStream, followOpenCodeEvents, parseSse, reportFor, type Following } from '../../src/app/opencode-events.js';

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
    const delivered: Readonly<Record<string, unknown>>[] = [];
    const done = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          deliver: async (params) => {
            delivered.push(params);
            if (params['event'] === 'session.idle') resolvePromise();
          },
          warn: (message) => delivered.push({ warning: message }),
        }),
      );
    });
    await done;

    expect(seenAuth).toEqual([AUTH]);
    expect(delivered.map((d) => [d['event'], d['seq']])).toEqual([
      ['server.connected', 1],
      ['session.status', 2],
      ['permission.asked', 3],
      ['session.idle', 4],
    ]);
    expect(JSON.stringify(delivered)).not.toContain('private text');
  });

  it('keeps trying while OpenCode boots, and connects once its server is up', async () => {
    // A port nothing listens on yet: taken from the kernel, then given back.
    const probe = createServer();
    const port = await listen(probe);
    await new Promise((resolvePromise) => probe.close(resolvePromise));
    const delivered: string[] = [];
    const connected = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          deliver: async (params) => {
            delivered.push(String(params['event']));
            resolvePromise();
          },
          warn: () => undefined,
        }),
      );
    });
    // Nothing listens yet: a few refused attempts go by first.
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 600));
    expect(delivered).toEqual([]);
    await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        sse(res, { type: 'server.connected', properties: {} });
      }),
      port,
    );
    await connected;
    expect(delivered).toEqual(['server.connected']);
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
    const delivered: string[] = [];
    const busy = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          silentStreamMs: 300,
          deliver: async (params) => {
            delivered.push(String(params['event']));
            if (params['event'] === 'session.status') resolvePromise();
          },
          warn: () => undefined,
        }),
      );
    });
    await busy;
    expect(requests).toBe(3);
    expect(delivered).toEqual(['server.connected', 'session.status']);
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
    const delivered: string[] = [];
    const busy = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          // Far beyond the test's timeout: only the first-byte deadline can bring the third stream.
          silentStreamMs: 60_000,
          firstByteMs: 200,
          deliver: async (params) => {
            delivered.push(String(params['event']));
            if (params['event'] === 'session.status') resolvePromise();
          },
          warn: () => undefined,
        }),
      );
    });
    await busy;
    expect(requests).toBe(3);
    expect(delivered).toEqual(['server.connected', 'session.status']);
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
    const delivered: string[] = [];
    const idle = new Promise<void>((resolvePromise) => {
      follows.push(
        followOpenCodeEvents({
          url: `http://127.0.0.1:${port}`,
          authorization: AUTH,
          // Long enough that only the disposal event can explain the second connection.
          silentStreamMs: 60_000,
          deliver: async (params) => {
            delivered.push(String(params['event']));
            if (params['event'] === 'session.idle') resolvePromise();
          },
          warn: () => undefined,
        }),
      );
    });
    await idle;
    expect(requests).toBe(2);
    expect(delivered).toEqual(['server.connected', 'server.connected', 'session.idle']);
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
