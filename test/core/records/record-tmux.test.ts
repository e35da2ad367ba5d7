/** The additive `tmux` field of agentwrap's records: read from the environment, written, read back. */
import { describe, expect, it } from 'vitest';
import { createSessionRecord, parseRecord, tmuxPaneFromEnv, type SessionRecordInput } from '../../../src/core/records/session-record.js';

const INPUT: SessionRecordInput = {
  sourceCli: 'claude',
  sessionId: 's1',
  pid: 10,
  wrapperPid: 11,
  cwd: '/srv',
  startedAtMs: 1,
  updatedAtMs: 2,
  state: 'idle',
  stateSinceMs: 1,
  seen: true,
  stuck: false,
  winner: null,
  ruleId: null,
  control: '/run/s.sock',
};

describe('tmux pane of a session', () => {
  it('comes from $TMUX (socket path, first field) and $TMUX_PANE', () => {
    expect(tmuxPaneFromEnv({ TMUX: '/tmp/tmux-1000/default,4242,0', TMUX_PANE: '%7' })).toEqual({ socket: '/tmp/tmux-1000/default', pane: '%7' });
    expect(tmuxPaneFromEnv({ TMUX_PANE: '%7' })).toBeUndefined();
    expect(tmuxPaneFromEnv({ TMUX: '/tmp/tmux-1000/default,4242,0' })).toBeUndefined();
    expect(tmuxPaneFromEnv({ TMUX: 'relative,1,0', TMUX_PANE: '%7' })).toBeUndefined();
    expect(tmuxPaneFromEnv({ TMUX: '/tmp/t,1,0', TMUX_PANE: '7; rm -rf /' })).toBeUndefined();
  });

  it('round-trips through the record, and a malformed one is dropped without dropping the record', () => {
    const written = createSessionRecord({ ...INPUT, tmux: { socket: '/tmp/tmux-0/x', pane: '%3' } });
    expect(parseRecord(JSON.parse(JSON.stringify(written)))?.tmux).toEqual({ socket: '/tmp/tmux-0/x', pane: '%3' });
    const bad = parseRecord({ ...createSessionRecord(INPUT), tmux: { socket: '/tmp/x', pane: '-t evil' } });
    expect(bad).toBeDefined();
    expect(bad?.tmux).toBeUndefined();
    expect('tmux' in createSessionRecord(INPUT)).toBe(false);
  });
});
