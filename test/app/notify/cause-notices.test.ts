import { mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAUSE_MARKER_STALE_MS, createCauseNotices, type CauseNotice } from '../../../src/app/notify/cause-notices.js';
import type { StateChangeEvent } from '../../../src/app/control/protocol.js';
import type { SessionRecord } from '../../../src/core/records/session-record.js';
import type { AgentState } from '../../../src/core/types.js';

/** A session of `agent` sharing `root` with the others; what it announced, as "cause" or "cause lifted". */
function session(root: string, key: string, agent = 'claude') {
  const said: string[] = [];
  const warnings: string[] = [];
  const onTransition = createCauseNotices({ stateRoot: root, agent, warn: (m) => warnings.push(m), announce: (n: CauseNotice) => said.push(n.lifted ? `${n.cause} lifted` : n.cause) });
  let last: AgentState | null = null;
  const publish = (to: AgentState, reason?: string, t = 1_000): void => {
    const event: StateChangeEvent = { t, session: key, agent, from: last, to, winner: null, rule_id: null, reason: reason ?? null };
    last = to;
    onTransition(event, { cwd: '/w', ...(reason === undefined ? {} : { reason }) } as unknown as SessionRecord);
  };
  return { said, warnings, publish };
}

describe('causes said once per account', () => {
  it('three sessions hitting the same usage limit: said once; the first turn that goes through again says it lifted, once', () => {
    const root = mkdtempSync(join(tmpdir(), 'aw-causes-'));
    const [a, b, c] = [session(root, 'claude-a'), session(root, 'claude-b'), session(root, 'claude-c')];

    for (const s of [a, b, c]) {
      s.publish('working');
      s.publish('done', 'usage-limit');
    }
    expect([a.said, b.said, c.said]).toEqual([['usage-limit'], [], []]);

    b.publish('working');
    b.publish('done');
    a.publish('working');
    a.publish('done');
    expect([a.said, b.said, c.said]).toEqual([['usage-limit'], ['usage-limit lifted'], []]);
    expect(readdirSync(join(root, 'causes'))).toEqual([]);
  });

  it('a cause flickering while the agent retries is said once; api-error (one turn\'s) is never an account cause', () => {
    const root = mkdtempSync(join(tmpdir(), 'aw-causes-'));
    const a = session(root, 'claude-a');

    a.publish('working', 'rate-limited');
    a.publish('working');
    a.publish('working', 'rate-limited');
    a.publish('done', 'api-error');

    expect(a.said).toEqual(['rate-limited']);
  });

  it('another agent\'s cause is its own account', () => {
    const root = mkdtempSync(join(tmpdir(), 'aw-causes-'));
    const [claude, codex] = [session(root, 'claude-a', 'claude'), session(root, 'codex-a', 'codex')];

    claude.publish('blocked', 'auth');
    codex.publish('blocked', 'auth');

    expect([claude.said, codex.said]).toEqual([['auth'], ['auth']]);
  });

  it('a marker left by a session that ended before its cause lifted is claimed afresh once stale', () => {
    const root = mkdtempSync(join(tmpdir(), 'aw-causes-'));
    session(root, 'claude-old').publish('done', 'usage-limit', 1_000);
    const old = (Date.now() - CAUSE_MARKER_STALE_MS - 60_000) / 1000;
    utimesSync(join(root, 'causes', 'claude.usage-limit'), old, old);

    const fresh = session(root, 'claude-new');
    fresh.publish('done', 'usage-limit', Date.now());

    expect(fresh.said).toEqual(['usage-limit']);
  });

  it('a state directory it cannot write: one warning, and the session says its own causes', () => {
    const a = session('/proc/agentwrap-no-such-dir', 'claude-a');

    a.publish('done', 'usage-limit');
    a.publish('blocked', 'auth');

    expect(a.said).toEqual(['usage-limit', 'auth']);
    expect(a.warnings).toHaveLength(1);
  });
});
