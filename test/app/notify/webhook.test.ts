import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import { Publisher } from '../../../src/app/live/publisher.js';
import { createWebhook, transitionsToWebhook } from '../../../src/app/notify/webhook.js';
import { initialDetectorState, type DetectorState } from '../../../src/core/detector/tick.js';
import type { TickLogEntry } from '../../../src/core/detector/tick-log.js';
import type { AgentState } from '../../../src/core/types.js';

interface Received {
  readonly method: string | undefined;
  readonly type: string | undefined;
  readonly body: string;
}

/** A real HTTP server on loopback; `answer` decides each response (it may hold it). */
async function server(answer: (request: IncomingMessage, response: ServerResponse, index: number) => void = (_q, r) => r.writeHead(204).end()) {
  const received: Received[] = [];
  const arrived: number[] = [];
  const s = createServer((request, response) => {
    const index = arrived.push(Date.now()) - 1;
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method, type: request.headers['content-type'], body });
      answer(request, response, index);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(s.address() as AddressInfo).port}/topic/secret-token`);
  const close = (): Promise<void> => new Promise((resolve) => { s.closeAllConnections(); s.close(() => resolve()); });
  servers.push(close);
  return { url, received, arrived, close };
}

const servers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

const ENTRY = { decision: { ruleId: 'r' } } as unknown as TickLogEntry;

function stateOf(state: AgentState, reason?: string): DetectorState {
  const initial = initialDetectorState(0);
  return { ...initial, session: { ...initial.session, state, raw: state === 'done' ? 'idle' : state, winner: 'screen-rule', ruleId: 'r', ...(reason === undefined ? {} : { reason }) } };
}

function publisherWith(onTransition: ConstructorParameters<typeof Publisher>[0]['onTransition'], dialog?: ConstructorParameters<typeof Publisher>[0]['dialog']): Publisher {
  return new Publisher({
    ...(dialog === undefined ? {} : { dialog }),
    identity: { key: 'claude-1', sourceCli: 'claude', sessionId: '1', cwd: '/w', startedWallMs: 1_700_000_000_000, detectorStartMs: 0, detectorStartWallMs: 1_700_000_000_000, agentVersion: undefined },
    clock: manualClock(0, 1_700_000_000_000),
    screen: { view: () => ({ rows: [], cols: 80, cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 0 }), evidence: () => ({ title: undefined, progress: undefined, lastMark: undefined, lastNotificationAtMs: undefined, lastBellAtMs: undefined }) },
    reporter: { identity: () => ({ agentVersion: undefined, model: undefined, agentSessionId: undefined }), metadata: () => ({}) } as never,
    pid: () => 42,
    notify: () => undefined,
    onTransition,
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the notify_url webhook', () => {
  it('POSTs each published transition once, as JSON with the transition, its reason, the host and the time', async () => {
    const { url, received } = await server();
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m) });
    const p = publisherWith(transitionsToWebhook(webhook, 'box-1'));

    p.onChange(stateOf('working'), ENTRY);
    p.onChange(stateOf('working'), ENTRY);
    p.onChange(stateOf('blocked', 'auth'), ENTRY);
    p.onChange(stateOf('done'), ENTRY);
    await webhook.drain(10_000);

    expect(received.map((r) => [r.method, r.type])).toEqual(Array(3).fill(['POST', 'application/json']));
    const bodies = received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(bodies.map((b) => [b['previous'], b['state']])).toEqual([[null, 'working'], ['working', 'blocked'], ['blocked', 'done']]);
    expect(bodies[1]).toEqual({
      event: 'transition',
      agent: 'claude',
      session: 'claude-1',
      state: 'blocked',
      previous: 'working',
      reason: 'auth',
      until: null,
      question: null,
      options: null,
      host: 'box-1',
      cwd: '/w',
      time: new Date(1_700_000_000_000).toISOString(),
      text: 'claude needs you (auth)',
    });
    expect(warnings).toEqual([]);
  });

  it("carries a blocked agent's dialog, as its pack reads it, in question and options", async () => {
    const { url, received } = await server();
    const webhook = createWebhook({ url, warn: () => undefined });
    const dialog = { id: 'select-box', question: 'Do you want to proceed?', options: ['Yes', 'No'], digest: '0123456789abcdef', keys: ['1', '2'] };
    const p = publisherWith(transitionsToWebhook(webhook, 'box-1'), () => dialog);

    p.onChange(stateOf('working'), ENTRY);
    p.onChange(stateOf('blocked'), ENTRY);
    await webhook.drain(10_000);

    const bodies = received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(bodies.map((b) => [b['state'], b['question'], b['options']])).toEqual([
      ['working', null, null],
      ['blocked', 'Do you want to proceed?', ['Yes', 'No']],
    ]);
    expect(bodies[1]?.['text']).toBe('claude needs you: Do you want to proceed?');
  });

  it('a slow server: send returns at once, the event loop stays free while it holds a request, and every body arrives in order', async () => {
    const { url, received, arrived } = await server((_q, response) => setTimeout(() => response.writeHead(200).end('ok'), 150));
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m) });

    for (let i = 0; i < 5; i++) webhook.send(JSON.stringify({ i }));
    expect(webhook.pending()).toBe(5);
    // A timer (the session's tick) runs while the server holds the first request unanswered.
    while (arrived.length === 0) await sleep(5);
    let ticked = false;
    setTimeout(() => (ticked = true), 1);
    await sleep(20);
    expect(ticked).toBe(true);
    expect(webhook.pending()).toBeGreaterThan(0);

    await webhook.drain(20_000);
    expect(received.map((r) => JSON.parse(r.body).i)).toEqual([0, 1, 2, 3, 4]);
    expect(warnings).toEqual([]);
  });

  it('a server that never answers: each try ends at the timeout, then one warning naming the origin only', async () => {
    const { url, received } = await server(() => undefined);
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m), timeoutMs: 100, retryDelaysMs: [10] });

    webhook.send('{"n":1}');
    await webhook.drain(10_000);

    expect(received).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('no answer within 100 ms, 2 tries');
    expect(warnings[0]).toContain(`${url.origin}/…`);
    expect(warnings[0]).not.toContain('secret-token');
  });

  it('a down server: every body is tried, with one warning for the outage, and it is delivered to again once it is back', async () => {
    let up = false;
    const { url, received } = await server((_q, response) => response.writeHead(up ? 204 : 503).end());
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m), retryDelaysMs: [10, 10] });

    webhook.send('{"n":1}');
    webhook.send('{"n":2}');
    await webhook.drain(10_000);
    expect(received).toHaveLength(6);
    expect(warnings).toEqual([`notify_url ${url.origin}/…: a notification was not delivered (answered 503, 3 tries); later ones are still tried`]);

    up = true;
    webhook.send('{"n":3}');
    await webhook.drain(10_000);
    expect(received.map((r) => r.body).slice(-1)).toEqual(['{"n":3}']);
    expect(warnings).toHaveLength(1);
  });

  it('a closed port: refused, retried, then one warning', async () => {
    const { url, close } = await server();
    await close();
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m), retryDelaysMs: [10, 10] });

    webhook.send('{}');
    webhook.send('{}');
    await webhook.drain(10_000);

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('ECONNREFUSED, 3 tries');
    expect(webhook.pending()).toBe(0);
  });

  it('does not follow a redirect nor retry it: the other address never sees the body', async () => {
    const elsewhere = await server();
    const { url, received } = await server((_q, response) => response.writeHead(302, { location: elsewhere.url.href }).end());
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m), retryDelaysMs: [10, 10] });

    webhook.send('{}');
    await webhook.drain(10_000);

    expect(received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect(warnings[0]).toContain(`answered 302, a redirect to ${elsewhere.url.href}, which is not followed`);
  });

  it('holds at most queueMax bodies while the server is slow: the oldest waiting ones go, the one in flight and the newest stay, said once', async () => {
    const { url, received } = await server((_q, response) => setTimeout(() => response.writeHead(204).end(), 50));
    const warnings: string[] = [];
    const webhook = createWebhook({ url, warn: (m) => warnings.push(m), queueMax: 3 });

    for (let i = 0; i < 6; i++) webhook.send(JSON.stringify({ i }));
    expect(webhook.pending()).toBe(3);
    await webhook.drain(10_000);

    expect(received.map((r) => JSON.parse(r.body).i)).toEqual([0, 4, 5]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the oldest notifications were dropped');
  });

  it('drain gives up after its bound while a body is still in flight', async () => {
    const { url, arrived } = await server(() => undefined);
    const webhook = createWebhook({ url, warn: () => undefined, timeoutMs: 60_000, retryDelaysMs: [] });

    webhook.send('{}');
    while (arrived.length === 0) await sleep(5);
    await webhook.drain(50);

    expect(webhook.pending()).toBe(1);
  });
});
