/**
 * Reading another machine's `status --json`: records validated again, ages moved onto this
 * clock, the remote's sockets and panes dropped; a document that is not one is an error. The
 * input is the document `agentwrap status --json` prints (render-status statusJson), built here.
 */
import { describe, expect, it } from 'vitest';
import { parseRemoteStatus } from '../../../src/app/sessions/remote-status.js';
import { statusJson } from '../../../src/cli/render/status.js';
import { createSessionRecord } from '../../../src/core/records/session-record.js';

const REMOTE_NOW = 1_800_000_000_000;
const LOCAL_NOW = REMOTE_NOW + 3_600_000; // this machine's clock is an hour ahead

function remoteDocument(): string {
  const record = createSessionRecord({
    sourceCli: 'codex',
    sessionId: 'c1',
    pid: 5,
    wrapperPid: 6,
    cwd: '/home/bob/api',
    startedAtMs: REMOTE_NOW - 90_000,
    updatedAtMs: REMOTE_NOW,
    state: 'blocked',
    stateSinceMs: REMOTE_NOW - 20_000,
    seen: false,
    stuck: false,
    winner: 'pack',
    ruleId: 'approval',
    control: '/run/user/1000/agent-status/sockets/codex-c1.sock',
    tmux: { socket: '/tmp/tmux-1000/default', pane: '%2' },
  });
  const other = { schema: 1 as const, source_cli: 'grok', session_id: 'g', model: 'grok-4.5', written_by: 'llm-armory', updated_at: REMOTE_NOW, ttl_ms: 60_000 };
  return JSON.stringify(
    statusJson({
      nowMs: REMOTE_NOW,
      root: '/run/user/1000/agent-status',
      warnings: ['refusing /x: a symlink'],
      sessions: [
        { kind: 'agentwrap', record, key: 'codex-c1', path: '/x' },
        { kind: 'other', record: other, key: 'grok-g', path: '/y' },
      ],
    }),
  );
}

describe('parseRemoteStatus', () => {
  it('keeps the sessions with their host, state times on the local clock, nothing that points into the remote machine', () => {
    const parsed = parseRemoteStatus(remoteDocument(), 'bob@box', LOCAL_NOW);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parsed.sessions.map((s) => [s.host, s.key, s.kind])).toEqual([
      ['bob@box', 'codex-c1', 'agentwrap'],
      ['bob@box', 'grok-g', 'other'],
    ]);
    const [codex] = parsed.sessions;
    if (codex?.kind !== 'agentwrap') throw new Error('expected agentwrap');
    expect(codex.record.state_since).toBe(LOCAL_NOW - 20_000);
    expect(codex.record.control).toBe('');
    expect(codex.record.tmux).toBeUndefined();
    expect(parsed.warnings).toEqual(['bob@box: refusing /x: a symlink']);
  });

  it('leaves out records that do not validate and keys that are not keys', () => {
    const doc = JSON.parse(remoteDocument()) as { sessions: { key: string; record: Record<string, unknown> }[] };
    doc.sessions[0] = { ...doc.sessions[0], key: '../../etc/passwd' } as never;
    const second = doc.sessions[1];
    if (second !== undefined) second.record = { ...second.record, ttl_ms: -1 };
    const parsed = parseRemoteStatus(JSON.stringify(doc), 'box', LOCAL_NOW);
    expect('error' in parsed ? parsed.error : parsed.sessions).toEqual([]);
  });

  it('says what is wrong with output that is not a status document', () => {
    expect(parseRemoteStatus('bash: agentwrap: command not found', 'box', LOCAL_NOW)).toEqual({ error: expect.stringMatching(/did not print JSON/) });
    expect(parseRemoteStatus('{"version":2,"sessions":[]}', 'box', LOCAL_NOW)).toEqual({ error: expect.stringMatching(/unknown status shape/) });
  });
});
