/**
 * End to end: `notify_url` in the config file, the built CLI in a real outer pty, a real HTTP
 * server on loopback. The transitions reach the server; a server that is gone costs one
 * warning at exit and changes nothing else (the exit code passes on).
 */
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, openOuterTerminal, shellQuote } from '../helpers/pty-outer.js';

const WRAP = `${shellQuote(process.execPath)} ${shellQuote(CLI)}`;

function configWith(url: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'aw-notify-url-'));
  mkdirSync(join(home, 'config', 'agentwrap'), { recursive: true });
  mkdirSync(join(home, 'state'), { mode: 0o700 });
  writeFileSync(join(home, 'config', 'agentwrap', 'config.toml'), `notify_url = "${url}"\n`);
  return { XDG_CONFIG_HOME: join(home, 'config'), AGENT_STATUS_DIR: join(home, 'state') };
}

describe('notify_url in a wrapped session', () => {
  it('POSTs the published transitions of a real session to the webhook', async () => {
    const bodies: Record<string, unknown>[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/topic`;
      const outer = openOuterTerminal(`${WRAP} sh -c 'echo hi; sleep 1; exit 3'; echo "rc=$?"; echo END`, { env: configWith(url) });

      const output = await outer.waitFor('END', 30_000);

      expect(output).toContain('rc=3');
      expect(output).not.toContain('notify_url');
      expect(bodies.length).toBeGreaterThan(0);
      expect(bodies[0]).toMatchObject({ agent: 'sh', previous: null, host: expect.any(String) });
    } finally {
      server.close();
    }
  });

  it('a webhook that is down: one warning at exit naming its origin only, and the exit code unchanged', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const outer = openOuterTerminal(`${WRAP} sh -c 'echo hi; exit 3'; echo "rc=$?"; echo END`, { env: configWith(`http://127.0.0.1:${port}/secret-topic`) });

    const output = await outer.waitFor('END', 30_000);

    expect(output).toContain('rc=3');
    expect(output.match(/notify_url/g)).toHaveLength(1);
    expect(output).toContain(`notify_url http://127.0.0.1:${port}/…: 1 notification was not delivered before agentwrap exited (ECONNREFUSED)`);
    expect(output).not.toContain('secret-topic');
  });
});
