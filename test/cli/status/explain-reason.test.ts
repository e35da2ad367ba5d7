/** `status explain <session>` names the winning rule's reason (a turn that ended on an API error). */
import { describe, expect, it } from 'vitest';
import { initialSessionState, reduceSession } from '../../../src/core/detector/session-state.js';
import { renderSessionExplain, type ExplainPayload } from '../../../src/cli/session-explain.js';

function payload(reason: string | undefined): ExplainPayload {
  const working = reduceSession(initialSessionState(0), { raw: 'working', stuck: false, winner: 'screen-rule', ruleId: 'footer' }, 1000, 500);
  const state = reduceSession(working, { raw: 'idle', stuck: false, winner: 'screen-rule', ruleId: 'api-error-turn-end', reason }, 2000, 500);
  return { key: 'claude-1', agent: 'claude', clock_start_ms: 0, now_ms: 3000, pack: null, agent_version: null, version_note: null, pack_notes: [], state, screen: { rows: 24, title: null, progress: null }, rules: [], ticks: [] };
}

describe('status explain and the reason', () => {
  it('says the reason on its first line and in its JSON', () => {
    expect(renderSessionExplain(payload('api-error'), 10, false).split('\n')[0]).toBe('session claude-1 (claude): done for 1.0s — winner screen-rule, rule api-error-turn-end, reason api-error');
    expect(JSON.parse(renderSessionExplain(payload('api-error'), 10, true))).toMatchObject({ state: 'done', rule_id: 'api-error-turn-end', reason: 'api-error' });
  });

  it('says nothing of a reason when the rule has none', () => {
    expect(renderSessionExplain(payload(undefined), 10, false).split('\n')[0]).not.toContain('reason');
    expect(JSON.parse(renderSessionExplain(payload(undefined), 10, true)).reason).toBeNull();
  });
});
