/**
 * The dashboard's actions (cli/web/actions.ts): a POST of JSON from its own page, with its
 * token, reaches the session's control socket; every other request is refused with a reason
 * and never reaches it.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startControlServer, type ControlParams, type ControlServer } from '../../../src/app/control/socket.js';
import { createSessionRecord } from '../../../src/core/records/session-record.js';
import { startDashboard, type Dashboard } from '../../../src/cli/web/server.js';

let root: string;
let dashboard: Dashboard;
let server: ControlServer;
let asked: { method: string; params: ControlParams }[];
const DIGEST = '0123456789abcdef';

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'aw-actions-'));
  mkdirSync(join(root, 'sessions'), { mode: 0o700 });
  mkdirSync(join(root, 'sockets'), { mode: 0o700 });
  asked = [];
  const control = join(root, 'sockets', 's.sock');
  server = await startControlServer(control, {
    explain: () => ({}),
    capture: () => ({}),
    ack: () => ({}),
    report: () => ({}),
    subscribe: () => () => undefined,
    answer: (params) => {
      asked.push({ method: 'answer', params });
      return params['digest'] === DIGEST ? { sent: true, option: params['option'], label: 'Yes' } : { sent: false, code: 'changed', message: 'the dialog changed' };
    },
    send: (params) => {
      asked.push({ method: 'send', params });
      return { sent: true, characters: String(params['text']).length };
    },
  });
  const now = Date.now();
  const record = createSessionRecord({
    ...{ sourceCli: 'demo', sessionId: 's', pid: process.pid, wrapperPid: process.pid, cwd: '/tmp', startedAtMs: now, updatedAtMs: now },
    ...{ state: 'blocked', stateSinceMs: now, seen: false, stuck: false, winner: 'pack', ruleId: 'permission-dialog', control },
    dialog: { question: 'Do you want to run ls -la?', options: ['Yes', 'No'], digest: DIGEST },
  });
  writeFileSync(join(root, 'sessions', '.t'), JSON.stringify(record), { mode: 0o600 });
  renameSync(join(root, 'sessions', '.t'), join(root, 'sessions', 'demo-s.json'));
  dashboard = await startDashboard({ root, port: 0, token: 'tok' });
});

afterEach(async () => {
  await dashboard.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function post(path: string, body: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; json: { error?: string; label?: string } }> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port: dashboard.port, path, method, headers: { Host: `127.0.0.1:${dashboard.port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, json: JSON.parse(text) as { error?: string } }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const own = (): Record<string, string> => ({ Origin: `http://127.0.0.1:${dashboard.port}`, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' });
const answer = JSON.stringify({ key: 'demo-s', option: 1, digest: DIGEST });

describe('dashboard actions', () => {
  it("a POST of JSON from the page's own origin with the token answers through the control socket", async () => {
    const reply = await post('/api/answer?token=tok', answer, own());

    expect(reply).toEqual({ status: 200, json: { sent: true, option: 1, label: 'Yes' } });
    expect(asked).toEqual([{ method: 'answer', params: expect.objectContaining({ option: 1, digest: DIGEST, via: 'web', from: `dashboard http://127.0.0.1:${dashboard.port}` }) }]);
  });

  it('a prompt from the page reaches the session too', async () => {
    const reply = await post('/api/send?token=tok', JSON.stringify({ key: 'demo-s', text: 'run the tests' }), own());

    expect(reply.status).toBe(200);
    expect(asked.map((a) => [a.method, a.params['text']])).toEqual([['send', 'run the tests']]);
  });

  it("the session's refusal (a dialog that changed) comes back as a 409 with its reason", async () => {
    const reply = await post('/api/answer?token=tok', JSON.stringify({ key: 'demo-s', option: 1, digest: 'ffffffffffffffff' }), own());

    expect(reply).toEqual({ status: 409, json: { error: 'the dialog changed', code: 'changed' } });
  });

  it.each([
    ['another origin', () => ({ ...own(), Origin: 'http://evil.example' }), 403, /only from the dashboard's own page \(Origin "http:\/\/evil\.example"\)/],
    ['no origin', () => ({ 'Content-Type': 'application/json' }), 403, /Origin missing/],
    ['a cross-site fetch', () => ({ ...own(), 'Sec-Fetch-Site': 'cross-site' }), 403, /Sec-Fetch-Site "cross-site"/],
    ['a form post', () => ({ ...own(), 'Content-Type': 'application/x-www-form-urlencoded' }), 415, /JSON body/],
  ])('%s is refused and never reaches the session', async (_what, headers, status, message) => {
    const reply = await post('/api/answer?token=tok', answer, headers());

    expect(reply.status).toBe(status);
    expect(reply.json.error).toMatch(message);
    expect(asked).toEqual([]);
  });

  it('without the token, or by GET, nothing is sent', async () => {
    const noToken = await post('/api/answer', answer, own());
    const byGet = await post('/api/answer?token=tok', '', own(), 'GET');

    expect([noToken.status, byGet.status]).toEqual([403, 405]);
    expect(byGet.json.error).toBe('actions are POST requests');
    expect(asked).toEqual([]);
  });
});
