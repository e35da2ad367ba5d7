/**
 * Answering and prompting a real wrapped demo agent through its real control socket: the
 * record offers the blocked dialog, an answer for a dialog that is not the one showing is
 * refused and changes nothing, the right answer moves the agent on, a prompt is refused while
 * the agent is blocked and typed when it is idle, and every attempt is in explain's history.
 * The agent and its wrapper are real processes in a real terminal; the commands typed from
 * outside run in-process (helpers/cli-in-process.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPidAlive } from '../../../src/adapters/process/alive.js';
import { askerHere, requestAnswer, requestSend } from '../../../src/app/control/answer-client.js';
import { readSessions } from '../../../src/app/sessions/store.js';
import type { SessionRecord } from '../../../src/core/records/session-record.js';
import { CLI, ensureBuilt } from '../../helpers/cli.js';
import { runCliInProcess } from '../../helpers/cli-in-process.js';
import { openOuterTerminal, type OuterTerminal } from '../../helpers/pty-outer.js';

const opened: OuterTerminal[] = [];

afterEach(async () => {
  for (const term of opened.splice(0)) {
    term.pty.kill('SIGHUP');
    await Promise.race([term.exited, new Promise((r) => setTimeout(r, 3000))]);
  }
});

function record(env: Record<string, string>): SessionRecord | undefined {
  const found = readSessions(env['AGENT_STATUS_DIR'] ?? '', Date.now(), isPidAlive).find((s) => s.kind === 'agentwrap');
  return found?.kind === 'agentwrap' ? found.record : undefined;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('answer and send through a live session', () => {
  it('offers the dialog, refuses a stale answer, takes the right one, and notes who sent what', async () => {
    ensureBuilt();
    const env = { AGENT_STATUS_DIR: join(mkdtempSync(join(tmpdir(), 'aw-answer-')), 'status') };
    const term = openOuterTerminal(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} demo --speed 4`, { env });
    opened.push(term);
    await term.waitFor('? for shortcuts');
    const idle = await until('an idle record', () => (record(env)?.state === 'idle' ? record(env) : undefined));
    const cli = (args: readonly string[]) => runCliInProcess(args, { env: { ...process.env, ...env } });
    const key = (await until('the key', () => readSessions(env.AGENT_STATUS_DIR, Date.now(), isPidAlive)[0]))?.key ?? '';

    // A prompt typed from outside while idle reaches the agent, which asks permission.
    const sent = await cli(['send', key, 'run', 'the', 'tests']);
    expect(sent.code, sent.stderr).toBe(0);
    const blocked = await until('a blocked record with its dialog', () => {
      const r = record(env);
      return r?.state === 'blocked' && r.dialog !== undefined ? r : undefined;
    });
    expect(blocked.dialog?.question).toBe('Do you want to run ls -la?');
    expect(blocked.dialog?.options).toEqual(['Yes', "Yes, and don't ask again for ls commands", 'No, and tell me what to do differently (esc)']);
    const json = JSON.parse((await cli(['status', '--json'])).stdout) as { sessions: { record: SessionRecord }[] };
    expect(json.sessions[0]?.record.dialog?.digest).toBe(blocked.dialog?.digest);

    // An answer meant for another dialog: refused, saying what shows; the dialog stays.
    const stale = await requestAnswer(idle.control, 1, '0123456789abcdef', askerHere(process.env));
    expect(stale).toMatchObject({ sent: false, code: 'changed' });
    expect(stale.sent ? '' : stale.message).toContain('"Do you want to run ls -la?" 1. Yes');
    // A prompt while blocked is refused too (it would land in the dialog).
    const busy = await requestSend(idle.control, 'hello', false, askerHere(process.env));
    expect(busy).toMatchObject({ sent: false, code: 'busy' });
    expect(record(env)?.dialog?.digest).toBe(blocked.dialog?.digest);
    expect(term.output()).not.toContain('(No content)');

    // The right answer, by the option's text: the agent runs the tool and goes on working.
    const answered = await cli(['answer', key, 'yes,']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`answered ${key}: 2. Yes, and don't ask again for ls commands`);
    await until('working or done after the answer', () => (record(env)?.state === 'working' || record(env)?.state === 'done' ? true : undefined));
    await term.waitFor('ls -la');

    const explained = await cli(['status', 'explain', key, '--json']);
    const notes = (JSON.parse(explained.stdout) as { remote_input: { kind: string; sent: boolean; via: string; user: string; detail: string }[] }).remote_input;
    expect(notes.map((n) => [n.kind, n.sent])).toEqual([
      ['prompt', true],
      ['answer', false],
      ['prompt', false],
      ['answer', true],
    ]);
    expect(notes.every((n) => n.via === 'socket' && n.user !== '')).toBe(true);
    expect(notes[3]?.detail).toBe('option 2 "Yes, and don\'t ask again for ls commands"');
  });
});
