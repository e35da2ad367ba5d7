/**
 * A live agentwrap session record for tests that read state directories: this test's pid (so it
 * counts as alive), a working codex session, written as writers must (temp file, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSessionRecord } from '../../src/core/records/session-record.js';

export function putLiveCodexSession(stateDir: string, key: string): void {
  const now = Date.now();
  const record = createSessionRecord({
    sourceCli: 'codex',
    sessionId: key.replace(/^codex-/, ''),
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/home/user/repo',
    startedAtMs: now - 1000,
    updatedAtMs: now,
    state: 'working',
    stateSinceMs: now - 1000,
    seen: true,
    stuck: false,
    winner: 'pack',
    ruleId: 'spinner',
    control: join(stateDir, 'sockets', `${key}.sock`),
  });
  const temp = join(stateDir, 'sessions', `.${key}.tmp`);
  writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
  renameSync(temp, join(stateDir, 'sessions', `${key}.json`));
}
