/**
 * Disagreement is news (docs/signals.md): a live session whose record carries a `disagreement`
 * (the agent's own OSC 7501 report against the pack's screen rules) makes `doctor` and
 * `packs list` mark that pack as possibly stale for the running release.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { livePackDisagreements } from '../../src/app/pack-disagreements.js';
import { createSessionRecord, parseRecord, type SessionRecordInput } from '../../src/core/records/session-record.js';
import { CLI, ensureBuilt } from '../helpers/cli.js';

let root: string;
const NOW = Date.now();

beforeAll(() => ensureBuilt());
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'aw-stale-'));
  mkdirSync(join(root, 'sessions'), { recursive: true, mode: 0o700 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function input(id: string, extra: Partial<SessionRecordInput> = {}): SessionRecordInput {
  return {
    sourceCli: 'codex',
    sessionId: id,
    pid: process.pid,
    wrapperPid: process.pid,
    cwd: '/tmp',
    startedAtMs: NOW - 60_000,
    updatedAtMs: NOW,
    state: 'working',
    stateSinceMs: NOW - 30_000,
    seen: false,
    stuck: false,
    winner: 'program-status',
    ruleId: null,
    agentVersion: '0.171.0',
    control: join(root, `${id}.sock`),
    ...extra,
  };
}

function publish(id: string, extra: Partial<SessionRecordInput> = {}): void {
  writeFileSync(join(root, 'sessions', `codex-${id}.json`), JSON.stringify(createSessionRecord(input(id, extra))), { mode: 0o600 });
}

const note = { reported: 'working', screen: 'idle', rule_id: 'composer-idle', since: NOW - 42_000 } as const;

describe('the disagreement note of a session record', () => {
  it('is written and read back; a malformed one is dropped, not the record', () => {
    const written = createSessionRecord(input('a', { disagreement: note }));
    const readBack = parseRecord(JSON.parse(JSON.stringify({ ...written, disagreement: { ...note, screen: 'dancing' } })));

    expect(parseRecord(JSON.parse(JSON.stringify(written)))?.disagreement).toEqual(note);
    expect(readBack).toBeDefined();
    expect(readBack?.disagreement).toBeUndefined();
  });

  it('of live sessions names the pack, the release and the session', () => {
    publish('quiet');
    publish('odd', { disagreement: note });

    const found = livePackDisagreements(root, NOW);

    expect(found).toEqual([{ agent: 'codex', session: 'codex-odd', agentVersion: '0.171.0', note }]);
  });
});

describe('doctor and packs list', () => {
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: root, AGENT_STATUS_DIR: root, LANG: 'C.UTF-8' });

  it('mark the pack of a session whose agent disagrees with its screen rules as possibly stale', () => {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    publish('odd', { disagreement: note });

    const doctor = spawnSync(process.execPath, [CLI, 'doctor'], { encoding: 'utf8', env: env(), timeout: 30_000 });
    const packs = spawnSync(process.execPath, [CLI, 'packs', 'list', '--json'], { encoding: 'utf8', env: env(), timeout: 30_000 });
    const codex = (JSON.parse(packs.stdout) as { packs: { agent: string; possibly_stale: string[] }[] }).packs.find((p) => p.agent === 'codex');

    expect(doctor.stdout).toMatch(/warn {2}pack: codex pack may be stale for the running release: codex 0\.171\.0 says working, its screen reads idle \(rule composer-idle\), for 4\ds in session codex-odd/);
    expect(codex?.possibly_stale).toEqual([expect.stringContaining('codex 0.171.0 says working, its screen reads idle (rule composer-idle)')]);
  });
});
