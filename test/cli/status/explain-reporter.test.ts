/** `status explain <session>` says when the session runs without its agent's reporter (OpenCode by default). */
import { describe, expect, it } from 'vitest';
import { OPENCODE_ABSENCE } from '../../../src/app/reporters/hooks.js';
import { initialSessionState } from '../../../src/core/detector/session-state.js';
import { renderSessionExplain, type ExplainPayload } from '../../../src/cli/session-explain.js';

function payload(reporterNote: string | null | undefined): ExplainPayload {
  return {
    key: 'opencode-1', agent: 'opencode', clock_start_ms: 0, now_ms: 3000, pack: null, agent_version: null, version_note: null, pack_notes: [],
    ...(reporterNote === undefined ? {} : { reporter_note: reporterNote }),
    state: initialSessionState(0), screen: { rows: 24, title: null, progress: null }, rules: [], ticks: [],
  };
}

describe('status explain and a session without a reporter', () => {
  it('has a reporter line, and the note in its JSON', () => {
    expect(renderSessionExplain(payload(OPENCODE_ABSENCE), 10, false).split('\n')).toContain(`reporter: ${OPENCODE_ABSENCE}`);
    expect(JSON.parse(renderSessionExplain(payload(OPENCODE_ABSENCE), 10, true)).reporter_note).toBe(OPENCODE_ABSENCE);
  });

  it('has no such line for a session with its reporter, or from an older agentwrap', () => {
    for (const note of [null, undefined]) {
      expect(renderSessionExplain(payload(note), 10, false)).not.toMatch(/^reporter: /m);
      expect(JSON.parse(renderSessionExplain(payload(note), 10, true)).reporter_note).toBeNull();
    }
  });
});
