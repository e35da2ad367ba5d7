/**
 * The OSC 7501 probe through the whole launcher, on both relays (the native thread and the
 * event loop): an agent that probes the way Claude Code does (test/helpers/probe-agent.mjs)
 * hears agentwrap's answer before its DA1 reply in a real tmux pane, which answers DA1 but not
 * 7501, and its 7501 output then never reaches the pane; behind a terminal that answers 7501
 * itself, that answer reaches the agent and so does the agent's 7501 output reach the terminal.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, openOuterTerminal, REPO_ROOT, shellQuote } from '../helpers/pty-outer.js';

const PROBE_AGENT = join(REPO_ROOT, 'test', 'helpers', 'probe-agent.mjs');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const RELAYS = [
  ['the native relay', ''],
  ['the event-loop relay', 'AGENTWRAP_RELAY=js'],
] as const;

interface ProbeResult {
  readonly answeredFirst: boolean;
  readonly replies: number;
  readonly da1: boolean;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentwrap-probe-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The wrapped probe agent as a shell command line. */
function wrappedProbeAgent(dir: string, relayEnv: string): string {
  return `env ${relayEnv} AGENT_STATUS_DIR=${shellQuote(join(dir, 'state'))} ${shellQuote(process.execPath)} ${shellQuote(CLI)} run --no-hooks -- ${shellQuote(process.execPath)} ${shellQuote(PROBE_AGENT)} ${shellQuote(join(dir, 'result.json'))}`;
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!hasTmux)('the 7501 probe in a tmux pane (skipped: tmux is not installed)', () => {
  it.each(RELAYS)('answers before tmux answers DA1 and keeps the 7501 output from the pane, with %s', async (_name, relayEnv) => {
    const dir = scratch();
    const socket = `so-probe-${process.pid}-${relayEnv === '' ? 'n' : 'j'}`;
    const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    cleanups.push(() => void tmux('kill-server'));
    // The program waits for Enter until the pipe is attached, so the pipe sees every byte.
    writeFileSync(join(dir, 'start.sh'), `stty -echo; read _go; stty echo; exec ${wrappedProbeAgent(dir, relayEnv)}\n`);
    expect(tmux('new-session', '-d', '-x', '100', '-y', '30', `sh ${shellQuote(join(dir, 'start.sh'))}`).status).toBe(0);
    expect(tmux('pipe-pane', '-O', `cat > ${shellQuote(join(dir, 'pipe'))}`).status).toBe(0);
    tmux('send-keys', 'Enter');

    await until(() => existsSync(join(dir, 'result.json')), 'the probe agent to report');
    await until(() => existsSync(join(dir, 'pipe')) && readFileSync(join(dir, 'pipe'), 'latin1').includes('probe agent done'), 'the pane to show the end');

    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ProbeResult;
    expect(result).toEqual({ answeredFirst: true, replies: 1, da1: true });
    const pane = readFileSync(join(dir, 'pipe'), 'latin1');
    expect(pane).toContain('probe agent working');
    // The probe itself goes out (a terminal that understands must be able to answer); no status does.
    expect(pane).not.toMatch(/\x1b\]7501;[^?]/);
  });
});

describe('the 7501 probe behind a terminal that answers it', () => {
  it.each(RELAYS)("passes the terminal's answer to the agent and the agent's 7501 output to the terminal, with %s", async (_name, relayEnv) => {
    const dir = scratch();
    const outer = openOuterTerminal(`${wrappedProbeAgent(dir, relayEnv)}; echo END`);
    cleanups.push(() => outer.pty.kill());
    // The terminal answers in the order it reads: the 7501 probe, then DA1.
    let seen = '';
    let answeredTo = 0;
    outer.pty.onData((data: string | Buffer) => {
      seen += typeof data === 'string' ? data : data.toString('latin1');
      const queries = /\x1b\]7501;\?(?:\x07|\x1b\\)|\x1b\[c/g;
      queries.lastIndex = answeredTo;
      for (let match = queries.exec(seen); match !== null; match = queries.exec(seen)) {
        outer.pty.write(match[0] === '\x1b[c' ? '\x1b[?62;22c' : '\x1b]7501;?1\x1b\\');
        answeredTo = queries.lastIndex;
      }
    });

    const output = await outer.waitFor('END');

    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ProbeResult;
    // agentwrap's own probe (before the spawn) and the agent's reached the terminal; the answer to
    // agentwrap's was kept, and once the terminal had said it understands, agentwrap left the
    // agent's probe to it: the agent got the terminal's one answer, before DA1.
    // Under load the agent may probe before the terminal's answer to agentwrap's own probe was
    // read: agentwrap then answers the agent too, and the terminal's own answer still passes
    // (a second reply). Either way the first reply came before DA1's.
    expect(seen.split('\x1b]7501;?\x07').length - 1).toBe(2);
    expect(result).toMatchObject({ answeredFirst: true, da1: true });
    expect([1, 2]).toContain(result.replies);
    expect(output).toContain('\x1b]7501;state=working:app=probe-agent\x1b\\');
    expect(output).toContain('\x1b]7501;state=idle:app=probe-agent\x07');
  });
});

describe("agentwrap's own 7501 for an agent that does not probe (the demo)", () => {
  it.each(RELAYS)('probes the terminal once, and says the states to a terminal that answered, with %s', async (_name, relayEnv) => {
    const dir = scratch();
    const outer = openOuterTerminal(
      `env ${relayEnv} AGENT_STATUS_DIR=${shellQuote(join(dir, 'state'))} AGENTWRAP_DEMO_SPEED=4 ${shellQuote(process.execPath)} ${shellQuote(CLI)} demo; echo END`,
    );
    cleanups.push(() => outer.pty.kill());
    let seen = '';
    let probes = 0;
    outer.pty.onData((data: string | Buffer) => {
      seen += typeof data === 'string' ? data : data.toString('latin1');
      const count = seen.split('\x1b]7501;?\x07').length - 1;
      for (; probes < count; probes++) outer.pty.write('\x1b]7501;?1\x1b\\');
    });

    await outer.waitFor('\x1b]7501;state=idle:app=demo\x1b\\');
    outer.pty.write('hello');
    await outer.waitFor('hello');
    outer.pty.write('\r');
    await outer.waitFor('\x1b]7501;state=working:app=demo\x1b\\');
    await outer.waitFor('\x1b]7501;state=done:app=demo\x1b\\');
    outer.pty.write('/exit\r');
    await outer.waitFor('END');

    expect(probes).toBe(1);
    // The reply went to agentwrap, not to the demo's prompt.
    expect(seen).not.toContain('7501;?1');
    expect(seen).toContain('\x1b]7501;state=clear:app=demo\x1b\\');
  });
});
