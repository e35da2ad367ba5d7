/**
 * `agentwrap report` as agent hooks really call it: the installed command (the shell front,
 * src/cli/bin/agentwrap), from inside a wrapped agent, whose environment names the session's
 * control socket. Outside a session it must answer without even starting Node.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, ensureBuilt } from '../helpers/cli.js';
import { openOuterTerminal, type OuterTerminal } from '../helpers/pty-outer.js';

const FRONT = join(ROOT, 'src', 'cli', 'bin', 'agentwrap');
const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGKILL');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

function withoutAgentwrapEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('AGENTWRAP_') && e[1] !== undefined));
}

describe('the agentwrap command front', () => {
  it('answers report with no session around without starting Node (node is not even on PATH)', () => {
    const env = { ...withoutAgentwrapEnv(), PATH: '/usr/bin/nonexistent' };

    const outside = spawnSync('/bin/sh', [FRONT, 'report', 'stop'], { encoding: 'utf8', env });
    const gone = spawnSync('/bin/sh', [FRONT, 'report-metadata', 'model=x'], {
      encoding: 'utf8',
      env: { ...env, AGENTWRAP_SESSION: 'aw1-x', AGENTWRAP_CONTROL: join(tmpdir(), 'no-such-socket.sock') },
    });

    expect([outside.status, outside.stdout, outside.stderr]).toEqual([0, '', '']);
    expect([gone.status, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });

  it('leaves --help to Node with no session around: a person asked for the usage', () => {
    const env = withoutAgentwrapEnv();
    ensureBuilt();

    const report = spawnSync('/bin/sh', [FRONT, 'report', '--help'], { encoding: 'utf8', env });
    const metadata = spawnSync('/bin/sh', [FRONT, 'report-metadata', '-h'], { encoding: 'utf8', env });

    expect([report.status, report.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(/^usage: agentwrap report <event>/)]);
    expect([metadata.status, metadata.stdout.split('\n')[0]]).toEqual([0, expect.stringMatching(/^usage: agentwrap report-metadata key=value/)]);
  });

  it('runs every other command through Node, with its arguments untouched', () => {
    ensureBuilt();
    const env = { ...withoutAgentwrapEnv(), PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` };

    const version = spawnSync('/bin/sh', [FRONT, '--version'], { encoding: 'utf8', env });

    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^agentwrap \d+\.\d+\.\d+/);
  });

  it("starts agentwrap's own Node without NODE_EXTRA_CA_CERTS and gives the agent the user's value back", async () => {
    ensureBuilt();
    const path = `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
    // What the agent sees, and whether agentwrap's own Node was started with it (its exec-time environment).
    const agent = 'echo "CA=[${NODE_EXTRA_CA_CERTS-unset}] HELD=[${AGENTWRAP_HELD_NODE_EXTRA_CA_CERTS-none}] OWN=$(tr "\\0" "\\n" < /proc/$AGENTWRAP_PID/environ | grep -c "^NODE_EXTRA_CA_CERTS=")"; sleep 30';
    const wrapped = (prefix: string, env: Record<string, string>): OuterTerminal => {
      const command = `exec ${prefix}/bin/sh ${JSON.stringify(FRONT)} run --no-hooks -- sh -c '${agent.replace(/'/g, `'\\''`)}'`;
      const term = openOuterTerminal(command, { env: { AGENT_STATUS_DIR: mkdtempSync(join(tmpdir(), 'aw-front-')), PATH: path, ...env } });
      opened.push(term);
      return term;
    };

    const seenWith = await wrapped('', { NODE_EXTRA_CA_CERTS: '/tmp/corp ca.pem' }).waitFor(/CA=.*OWN=\d/);
    const seenWithout = await wrapped('env -u NODE_EXTRA_CA_CERTS ', {}).waitFor(/CA=.*OWN=\d/);

    expect(seenWith).toContain('CA=[/tmp/corp ca.pem] HELD=[none] OWN=0');
    expect(seenWithout).toContain('CA=[unset] HELD=[none] OWN=0');
  });

  it('delivers a hook report from inside a wrapped agent to its session', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-front-')), 'status'), PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}` };
    const agent = `sleep 1; ${FRONT} report notification --json '{"notification_type":"permission_prompt"}'; echo SENT=$?; sleep 30`;
    const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run -- sh -c ${JSON.stringify(agent)}`, { env });
    opened.push(term);
    await term.waitFor('SENT=0');

    // The report came before the session was listed (an agent that draws nothing is published
    // FIRST_SCREEN_WAIT_MAX_MS after its start): the socket kept it for the session.
    const listedKey = (): string => {
      const listed = spawnSync(process.execPath, [CLI, 'status', '--json'], { encoding: 'utf8', env: { ...process.env, ...env } });
      return (JSON.parse(listed.stdout) as { sessions: { key: string }[] }).sessions[0]?.key ?? '';
    };
    await expect.poll(listedKey, { timeout: 15_000, interval: 200 }).not.toBe('');
    const key = listedKey();
    const explained = spawnSync(process.execPath, [CLI, 'status', 'explain', key], { encoding: 'utf8', env: { ...process.env, ...env } });

    expect(explained.status, explained.stderr).toBe(0);
    expect(explained.stdout).toMatch(/reporter \S+ \(\S+\): last notification /);
  });
});
