/**
 * `agentwrap dashboard`: the server's guards (token, Host, method, no CORS) and its API against
 * control servers with fake handlers; then the real thing in headless Chromium: three wrapped
 * demo agents (blocked, working, done), the page's DOM read back with `--dump-dom`, and a
 * screenshot left in the test output directory.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../../src/adapters/process/alive.js';
import { startControlServer, type ControlHandlers, type ControlServer } from '../../../src/app/control/socket.js';
import { readSessions } from '../../../src/app/sessions/store.js';
import { createSessionRecord } from '../../../src/core/records/session-record.js';
import { startDashboard, type Dashboard } from '../../../src/cli/web/server.js';
import { CLI, openOuterTerminal, shellQuote, type OuterTerminal } from '../../helpers/pty-outer.js';

let root: string;
let dashboard: Dashboard | undefined;
let servers: ControlServer[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'aw-dashboard-'));
  mkdirSync(join(root, 'sessions'), { mode: 0o700 });
  mkdirSync(join(root, 'sockets'), { mode: 0o700 });
  servers = [];
});

afterEach(async () => {
  await dashboard?.close();
  dashboard = undefined;
  for (const server of servers) await server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(port: number, path: string, options: { host?: string; method?: string; origin?: string } = {}): Promise<Reply> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: options.host ?? `127.0.0.1:${port}`, ...(options.origin === undefined ? {} : { Origin: options.origin }) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Reads the event stream until `until` holds for what arrived, then closes it. */
function readStream(port: number, token: string, until: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/events?token=${token}` }, (res) => {
      let text = '';
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`stream: timed out; got ${text}`));
      }, timeoutMs);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (!until(text)) return;
        clearTimeout(timer);
        req.destroy();
        resolvePromise(text);
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
}

function putRecord(key: string, state: 'blocked' | 'working', control: string): void {
  const now = Date.now();
  const record = createSessionRecord({
    sourceCli: 'claude',
    sessionId: key.replace(/^claude-/, ''),
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/home/user/repo',
    startedAtMs: now - 60_000,
    updatedAtMs: now,
    state,
    stateSinceMs: now - 5_000,
    seen: false,
    stuck: false,
    winner: 'pack',
    ruleId: null,
    title: `<img src=x onerror=alert(1)> ${key}`,
    control,
  });
  const temp = join(root, 'sessions', `.${key}.tmp`);
  writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
  renameSync(temp, join(root, 'sessions', `${key}.json`));
}

async function fakeSession(key: string, state: 'blocked' | 'working'): Promise<void> {
  const control = join(root, 'sockets', `${key}.sock`);
  const now = Date.now();
  const handlers: ControlHandlers = {
    explain: () => ({}),
    capture: () => ({ snapshot: { screen: { cols: 20, rows: [`screen of ${key}`, ''], cursorRow: 0, cursorCol: 0, isAlternateScreen: false, revision: 1 }, title: { text: 'a title' } } }),
    ack: () => ({ changed: false }),
    report: () => ({}),
    subscribe: () => () => undefined,
    history: () => ({ since: now - 60_000, now, initial: null, transitions: [{ t: now - 50_000, to: 'working' }, { t: now - 5_000, to: state }] }),
  };
  servers.push(await startControlServer(control, handlers));
  putRecord(key, state, control);
}

describe('agentwrap dashboard server', () => {
  it('answers only with the token, only to its own Host, only GET, and never with CORS', async () => {
    dashboard = await startDashboard({ root, port: 0 });
    const { port, token } = dashboard;
    expect(dashboard.url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(token.length).toBeGreaterThanOrEqual(43);

    expect((await get(port, '/')).status).toBe(403);
    expect((await get(port, `/?token=${token.slice(0, -1)}`)).status).toBe(403);
    expect((await get(port, `/?token=${token}x`)).status).toBe(403);
    // DNS rebinding: a hostile name resolving to 127.0.0.1 still sends its own Host.
    expect((await get(port, `/?token=${token}`, { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get(port, `/?token=${token}`, { host: `127.0.0.1:${port + 1}` })).status).toBe(421);
    expect((await get(port, `/?token=${token}`, { method: 'POST' })).status).toBe(405);

    const page = await get(port, `/?token=${token}`, { host: `localhost:${port}`, origin: 'http://evil.example' });
    expect(page.status).toBe(200);
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    // Nothing from the network: no src/href to another origin anywhere in the page.
    expect(page.body).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(page.body).toContain(`<script nonce="${nonce ?? '?'}">`);
  });

  it('streams the status list sorted by urgency, and serves a session’s timeline and screen from its control socket', async () => {
    await fakeSession('claude-work', 'working');
    await fakeSession('claude-block', 'blocked');
    dashboard = await startDashboard({ root, port: 0 });
    const { port, token } = dashboard;

    const stream = await readStream(port, token, (text) => text.includes('event: sessions'));
    const data = JSON.parse(/data: (.*)\n/.exec(stream)?.[1] ?? 'null') as { sessions: { key: string; state: string }[] };
    expect(data.sessions.map((s) => [s.key, s.state])).toEqual([
      ['claude-block', 'blocked'],
      ['claude-work', 'working'],
    ]);

    const history = JSON.parse((await get(port, `/api/history?token=${token}&key=claude-block`)).body) as { transitions: { to: string }[]; svg: string };
    expect(history.transitions.map((t) => t.to)).toEqual(['working', 'blocked']);
    expect(history.svg).toMatch(/^<svg class="timeline"/);
    expect(history.svg).toContain('fill="#ef4444"'); // the blocked span, in the report's colour
    expect(history.svg).toContain('fill="#3b82f6"'); // the working span

    const screen = JSON.parse((await get(port, `/api/screen?token=${token}&key=claude-work`)).body) as { rows: string[] };
    expect(screen.rows[0]).toBe('screen of claude-work');
    // A key that is not a live session (or a path) is not looked up anywhere.
    expect((await get(port, `/api/screen?token=${token}&key=${encodeURIComponent('../../etc/passwd')}`)).status).toBe(404);
  });

  it('pushes a new list when a record changes', async () => {
    await fakeSession('claude-work', 'working');
    dashboard = await startDashboard({ root, port: 0 });
    const { port, token } = dashboard;
    const pending = readStream(port, token, (text) => text.split('event: sessions').length > 2);
    await new Promise((r) => setTimeout(r, 300));
    putRecord('claude-work', 'blocked', join(root, 'sockets', 'claude-work.sock'));
    const text = await pending;
    const last = text.split('event: sessions').at(-1) ?? '';
    expect(last).toContain('"state":"blocked"');
  });
});

// ── in headless Chromium, with real wrapped demo agents ────────────────────────────────────

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found !== '') return found;
  }
  return undefined;
}

const CHROMIUM = findChromium();
// --timeout, not --virtual-time-budget: the page holds its event stream open, and virtual time
// waits for open requests. Fifteen seconds: the page's first list, timelines and screen, with room for a loaded machine.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars', '--disable-dev-shm-usage', '--timeout=15000'];

/** Chromium, asynchronously: the dashboard serves from this very process, so it must not block. */
function chromium(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(CHROMIUM ?? 'chromium', [...CHROMIUM_FLAGS, ...args], { encoding: 'utf8', timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolvePromise({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}
/** Screenshots land here (printed by the test), outside the repository. */
const OUTPUT_DIR = join(tmpdir(), 'agentwrap-dashboard-test');

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(CHROMIUM === undefined)('agentwrap dashboard in headless Chromium (skipped: no chromium on PATH; apt-get install chromium)', () => {
  it('shows three wrapped demo agents with their states, timelines and the most urgent one’s screen', async () => {
    const env = { AGENT_STATUS_DIR: root, TERM: 'xterm-256color' };
    const demos: OuterTerminal[] = [];
    try {
      // The thinking one at a quarter speed (48 s): still working when Chromium looks.
      const prompts = [
        { prompt: 'run the tests', speed: '1' },
        { prompt: 'hello there', speed: '1' },
        { prompt: 'long thinking please', speed: '0.25' },
      ];
      // All three start at once (each is a Node start-up), then each gets its prompt once it shows its own.
      for (const { speed } of prompts) demos.push(openOuterTerminal(`exec node ${shellQuote(CLI)} demo --speed ${speed}`, { env, cols: 100, rows: 30 }));
      await Promise.all(
        demos.map(async (demo, i) => {
          const { prompt } = prompts[i] ?? { prompt: '' };
          await demo.waitFor('for shortcuts', 30_000);
          demo.pty.write(prompt);
          // Enter once the demo shows the typed prompt: pressed with it, it would be part of a paste.
          await demo.waitFor(prompt, 30_000);
          demo.pty.write('\r');
        }),
      );
      const states = (): string[] => readSessions(root, Date.now(), isPidAlive).map((s) => ('state' in s.record ? s.record.state : '-')).sort();
      // blocked (the dialog waits), working (12 s of thinking), done (answered, unseen).
      await until(() => states().join(',') === 'blocked,done,working', `blocked, done and working; saw ${states().join(',')}`);

      dashboard = await startDashboard({ root, port: 0 });
      mkdirSync(OUTPUT_DIR, { recursive: true });
      const shot = join(OUTPUT_DIR, 'dashboard.png');
      rmSync(shot, { force: true });
      // One Chromium start for both: the DOM once the page loaded, and a screenshot of it.
      const dom = await chromium(['--dump-dom', '--window-size=1400,760', `--screenshot=${shot}`, dashboard.url]);
      expect(dom.code, dom.stderr).toBe(0);
      const html = dom.stdout;
      const rows = [...html.matchAll(/<tr data-key="([^"]+)" data-state="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => ({ key: m[1], state: m[2], body: m[3] ?? '' }));
      expect(rows.map((r) => r.state)).toEqual(['blocked', 'done', 'working']);
      for (const row of rows) {
        expect(row.body).toContain('<td class="agent">demo</td>');
        expect(row.body).toContain('<svg class="timeline"'); // each row's last hour, fetched from its control socket
      }
      // The most urgent session is selected, and its screen is the demo's permission dialog.
      expect(html).toMatch(/<pre id="screen">[\s\S]*Do you want to run ls -la\?/);
      expect(html).toContain('rollup: blocked');
      expect(existsSync(shot)).toBe(true);
      process.stderr.write(`dashboard screenshot: ${shot}\n`);
    } finally {
      for (const demo of demos) demo.pty.kill('SIGTERM');
      await Promise.race([Promise.all(demos.map((d) => d.exited)), new Promise((r) => setTimeout(r, 5_000))]);
    }
  }, 180_000);
});
