/**
 * Hostile text: strings from another process, file or host that carry escape sequences (OSC 0
 * sets the window title, OSC 52 writes the clipboard, `ESC[?1049l` leaves the dashboard's
 * alternate screen), C1 CSI (U+009B) and bidi overrides, one surface at a time: a session's
 * control socket (a fake one, in this process) under `status --watch` and `events`; a remote
 * agentwrap (a fake ssh) under `status`, a piped `status --watch` and the dashboard's ack; a
 * crafted `.cast` header under `replay` and `eval`; `status explain`'s title; notify-send's body;
 * and a CJK title against the dashboard's widths. Each output is scanned for raw control bytes
 * after removing the sequences the program itself draws with.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notifySendArgs } from '../../src/app/notify/desktop-notifier.js';
import { renderFrame } from '../../src/cli/dashboard/layout.js';
import { initialState, withRows, type DashboardRow } from '../../src/cli/dashboard/model.js';
import { createSessionRecord, type SessionRecordInput } from '../../src/core/records/session-record.js';
import { cellWidth } from '../../src/core/text/cells.js';
import { CLI, openCliTerminal, runCliAsync, stateRoots, waitUntil } from './harness.js';

const { make, cleanups } = stateRoots('aw-hostile-text-');

/** What every hostile string carries; `label` stays visible once the rest is removed. */
function hostile(label: string): string {
  return `${label}:\u001b]0;PWNED\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[?1049l\u009b2J\u202e!`;
}

/** The dashboard's and the piped watch's own sequences: cursor moves, clears, reverse video, modes. */
const OWN_SEQUENCES = /\u001b\[(?:\?1049[hl]|\?25[hl]|[0-9]*J|[0-9]+;1H|H|K|7m|0m)/g;

/** Raw bytes a terminal would act on (tab, LF and CR aside), and bidi controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function rawControls(output: string): string[] {
  const rest = output.replace(OWN_SEQUENCES, '');
  return [...rest.matchAll(new RegExp(RAW_CONTROL.source, 'g'))].map((m) => `U+${(m[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')} at ${m.index}`);
}

function writeRecord(root: string, key: string, overrides: Partial<SessionRecordInput>): void {
  const value = createSessionRecord({
    sourceCli: 'claude',
    sessionId: key.replace(/^claude-/, ''),
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/srv/repo',
    startedAtMs: Date.now() - 60_000,
    updatedAtMs: Date.now(),
    ttlMs: 600_000,
    state: 'done',
    stateSinceMs: Date.now() - 30_000,
    seen: false,
    stuck: false,
    winner: 'pack',
    ruleId: 'prompt',
    control: '',
    ...overrides,
  });
  mkdirSync(join(root, 'sessions'), { recursive: true, mode: 0o700 });
  const temp = join(root, 'sessions', `.${key}.tmp`);
  writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
  renameSync(temp, join(root, 'sessions', `${key}.json`));
}

interface FakeSession {
  readonly path: string;
  /** Methods asked so far, in order. */
  readonly asked: string[];
  /** True once the hostile transition was written to a subscriber. */
  eventSent: boolean;
}

/**
 * A control socket that answers like a hostile session: `subscribe` is accepted and followed by
 * `event` (a state change), every other method is refused with `refusal(method)` as the message.
 */
async function fakeSession(path: string, event: Record<string, unknown>, refusal: (method: string) => string): Promise<FakeSession> {
  const session: FakeSession = { path, asked: [], eventSent: false };
  const server: Server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const request = JSON.parse(pending.slice(0, newline)) as { id: number; method: string };
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
        session.asked.push(request.method);
        if (request.method === 'subscribe') {
          socket.write(`${JSON.stringify({ id: request.id, ok: true, result: {} })}\n`);
          socket.write(`${JSON.stringify({ event: 'state', data: event })}\n`);
          session.eventSent = true;
        } else {
          socket.write(`${JSON.stringify({ id: request.id, ok: false, error: { code: 'failed', message: refusal(request.method) } })}\n`);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => server.close());
  return session;
}

/** A fake ssh: `status --json` prints `statusJson`; `ack` writes `stderr` and fails like a refused ssh. */
function fakeSsh(dir: string, statusJson: unknown, stderr: string): string {
  const script = join(dir, 'fake-ssh');
  const json = join(dir, 'remote-status.json');
  const err = join(dir, 'remote-stderr.txt');
  writeFileSync(json, JSON.stringify(statusJson));
  writeFileSync(err, stderr);
  // The remote command is the last argument ("agentwrap status --json", "agentwrap ack KEY").
  writeFileSync(
    script,
    `#!/bin/sh\nfor last; do :; done\ncase "$last" in\n  *"status --json"*) cat '${json}' ;;\n  *) cat '${err}' >&2; exit 255 ;;\nesac\n`,
  );
  chmodSync(script, 0o755);
  return script;
}

function remoteStatus(sessions: readonly { key: string; state: SessionRecordInput['state'] }[]): unknown {
  return {
    version: 1,
    now: Date.now(),
    root: '/remote/state',
    rollup: null,
    counts: {},
    warnings: [hostile('remote-warning')],
    sessions: sessions.map(({ key, state }) => ({
      key,
      agentwrap: true,
      state,
      state_age_ms: 5_000,
      record: createSessionRecord({
        sourceCli: 'claude', sessionId: key.replace(/^claude-/, ''), pid: 4242, wrapperPid: 4241, cwd: '/srv/far', startedAtMs: Date.now(),
        updatedAtMs: Date.now(), state, stateSinceMs: Date.now(), seen: false, stuck: false, winner: null, ruleId: null, control: '/far.sock',
      }),
    })),
  };
}

describe('a hostile session behind a control socket', () => {
  it('cannot drive the terminal through status --watch: refusals (preview, ack) and a transition\'s state', async () => {
    const state = make();
    const key = 'claude-evil';
    const socket = join(state.dir, 'evil.sock');
    const session = await fakeSession(
      socket,
      { t: Date.now(), session: key, agent: 'claude', from: 'done', to: hostile('event-to'), winner: null, rule_id: null },
      (method) => hostile(`${method}-refusal`),
    );
    writeRecord(state.root, key, { control: socket });

    const terminal = openCliTerminal(['status', '--watch'], state.env, { cols: 120, rows: 30 });
    await terminal.waitFor('screen-refusal:');
    await waitUntil(() => session.eventSent, 10_000, 'the hostile transition to be sent');
    terminal.pty.write('a');
    await terminal.waitFor('ack-refusal:');
    const shown = terminal.text();
    terminal.pty.write('q');
    await terminal.exited;

    expect(rawControls(shown)).toEqual([]);
    expect(session.asked).toEqual(expect.arrayContaining(['subscribe', 'screen', 'ack']));
    expect(shown).not.toContain('PWNED');
    expect(shown).not.toContain('\u001b]');
    // Entered once, left only when q was pressed.
    expect(shown.split('\u001b[?1049l').length - 1).toBe(0);
    // A transition to something that is not a state is not one: the row still says done.
    expect(shown).not.toContain('event-to');
    expect(shown).toMatch(/› done /);
  });

  it('cannot pass C1 or bidi controls through events\' JSON lines', async () => {
    const state = make();
    const key = 'claude-evil';
    const socket = join(state.dir, 'evil.sock');
    const ruleId = 'rule\u009b2J\u202eevil';
    await fakeSession(socket, { t: Date.now(), session: key, agent: 'claude', from: 'done', to: 'blocked', winner: 'pack', rule_id: ruleId }, () => 'no');
    writeRecord(state.root, key, { control: socket });

    const child = spawn(process.execPath, [CLI, 'events'], { env: { ...process.env, ...state.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      await waitUntil(() => out.includes('"to":"blocked"'), 15_000, 'the hostile transition on events\' output');
    } finally {
      child.kill();
    }

    expect(rawControls(out)).toEqual([]);
    expect(out).toContain('rule\\u009b2J\\u202eevil');
    const line = out.split('\n').find((l) => l.includes('"to":"blocked"')) ?? '';
    expect((JSON.parse(line) as { rule_id: string }).rule_id).toBe(ruleId);
  });
});

describe('a hostile remote host', () => {
  it('cannot drive the terminal through status\'s warnings; status --json escapes C1 and bidi controls', async () => {
    const state = make();
    const ssh = fakeSsh(state.dir, remoteStatus([]), hostile('ssh-stderr'));
    const env = { ...state.env, AGENTWRAP_SSH_COMMAND: ssh };

    const text = await runCliAsync(['status', '--host', 'box'], env);
    const json = await runCliAsync(['status', '--json', '--host', 'box'], env);

    expect(rawControls(text.stderr)).toEqual([]);
    expect(text.stderr).toContain('warning: box: remote-warning:!');
    expect(rawControls(text.stdout)).toEqual([]);
    expect(rawControls(json.stdout)).toEqual([]);
    expect(json.stdout).toContain('\\u009b2J\\u202e!');
    expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toEqual([`box: ${hostile('remote-warning')}`]);
  });

  it('cannot drive the terminal through a piped status --watch', async () => {
    const state = make();
    const ssh = fakeSsh(state.dir, remoteStatus([]), hostile('ssh-stderr'));
    const child = spawn(process.execPath, [CLI, 'status', '--watch', '--host', 'box'], {
      env: { ...process.env, ...state.env, AGENTWRAP_SSH_COMMAND: ssh },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    try {
      await waitUntil(() => out.includes('remote-warning:'), 15_000, 'the remote warning on the watch');
    } finally {
      child.kill();
    }

    expect(rawControls(out)).toEqual([]);
    expect(out).toContain('warning: box: remote-warning:!');
  });

  it('cannot drive the terminal through ssh\'s stderr when the dashboard acks a remote session', async () => {
    const state = make();
    const ssh = fakeSsh(state.dir, remoteStatus([{ key: 'claude-far', state: 'blocked' }]), `Warning: something\n${hostile('ssh-stderr')}\n`);

    const terminal = openCliTerminal(['status', '--watch', '--host', 'box'], { ...state.env, AGENTWRAP_SSH_COMMAND: ssh }, { cols: 120, rows: 30 });
    await terminal.waitFor('claude-far');
    terminal.pty.write('a');
    await terminal.waitFor('ssh-stderr:');
    const shown = terminal.text();
    terminal.pty.write('q');
    await terminal.exited;

    expect(rawControls(shown)).toEqual([]);
    expect(shown).toContain('cannot ack claude-far on box: ssh-stderr:!');
    expect(shown.split('\u001b[?1049l').length - 1).toBe(0);
  });
});

describe('a crafted .cast header', () => {
  const header = `\u001b[3J\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u009b2J\u202e{"version": 2}`;

  it.each([['replay'], ['eval']])('is named in %s\'s error without its bytes reaching the terminal', async (command) => {
    const state = make();
    const file = join(state.dir, 'crafted.cast');
    writeFileSync(file, `${header}\n[0.1, "o", "hi"]\n`);

    const result = await runCliAsync([command, file], state.env);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${file}:1: header is not JSON`);
    expect(rawControls(result.stderr)).toEqual([]);
  });
});

describe('status explain', () => {
  it('prints a title without its bidi override, and --json escapes it', async () => {
    const state = make();
    const screen = join(state.dir, 'screen.txt');
    writeFileSync(screen, 'Do you want to proceed?\n❯ 1. Yes\n  2. No\n');
    const title = 'fix\u202etxt.exe\u009b2J';

    const text = await runCliAsync(['status', 'explain', '--file', screen, '--agent', 'claude', '--title', title], state.env);
    const json = await runCliAsync(['status', 'explain', '--file', screen, '--agent', 'claude', '--title', title, '--json'], state.env);

    expect(text.status).toBe(0);
    expect(rawControls(text.stdout)).toEqual([]);
    expect(text.stdout).toContain('fixtxt.exe');
    expect(rawControls(json.stdout)).toEqual([]);
    expect(json.stdout).toContain('fix\\u202etxt.exe\\u009b2J');
  });
});

describe('a desktop notification', () => {
  it('escapes the markup notify-send reads in its body, and drops controls', () => {
    const args = notifySendArgs({ agent: 'claude', state: 'done', cwd: '/srv/<b>x</b>&<a href="http://e">y</a>\u202e', session: 'claude-1\u001b]0;t\u0007' }, '/home/u');
    const body = args.at(-1) ?? '';

    expect(body).toBe('/srv/&lt;b&gt;x&lt;/b&gt;&amp;&lt;a href="http://e"&gt;y&lt;/a&gt;\nclaude-1');
  });
});

describe('a CJK title in the dashboard', () => {
  it('keeps every line within the terminal\'s width in cells, and the preview\'s rule whole', () => {
    const title = '日本語のタイトルがとても長い場合の表示テスト'.repeat(3);
    const rows: DashboardRow[] = [
      { id: 'claude-cjk', host: undefined, key: 'claude-cjk', agent: 'claude', state: 'working', stateSinceMs: 0, stuck: false, title, cwd: '/srv/項目', control: '/s', tmux: undefined },
      { id: 'claude-b', host: undefined, key: 'claude-b', agent: 'claude', state: 'idle', stateSinceMs: 0, stuck: false, title: 'plain', cwd: '/srv/b', control: '/s', tmux: undefined },
    ];
    const frame = renderFrame({ state: withRows(initialState(), rows, []), preview: { rows: ['漢字'.repeat(60)], cols: 120, cursorRow: 0, cursorCol: 0 }, width: 100, height: 24, nowMs: 1_000, home: undefined });

    expect(frame.lines.map((line) => cellWidth(line)).filter((cells) => cells > 100)).toEqual([]);
    const rule = frame.lines.find((line) => line.startsWith('── claude-cjk'));
    expect(rule === undefined ? 0 : cellWidth(rule)).toBe(100);
    // The two rows' titles start in the same cell, whatever the wide cwd took.
    const titleCell = (line: string, text: string): number => cellWidth(line.slice(0, line.indexOf(text)));
    const [cjk, plain] = [frame.lines.find((l) => l.includes('claude-cjk') && !l.startsWith('──')) ?? '', frame.lines.find((l) => l.includes('claude-b')) ?? ''];
    expect(titleCell(cjk, '日本語')).toBe(titleCell(plain, 'plain'));
  });
});
