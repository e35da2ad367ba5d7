import { describe, expect, it } from 'vitest';
import { programStatusSequence, progressSequence, signalWord, tmuxSetArgs, tmuxUnsetArgs } from '../../../src/core/records/outward-signals.js';

describe('the state as said to the terminal and to tmux', () => {
  it('keeps an agent name to a word that cannot break `key=value:…` or carry a control byte', () => {
    expect(signalWord('claude')).toBe('claude');
    expect(signalWord('my:agent=x\x1b]0;y\x07')).toBe('my-agent-x-0-y-');
    expect(signalWord('')).toBe('agent');
  });

  it('writes OSC 7501 with ST, and unknown as clear', () => {
    expect(programStatusSequence('blocked', 'gemini')).toBe('\x1b]7501;state=blocked:app=gemini\x1b\\');
    expect(programStatusSequence('unknown', 'gemini')).toBe('\x1b]7501;state=clear:app=gemini\x1b\\');
  });

  it('maps states to OSC 9;4 progress', () => {
    expect(['working', 'blocked', 'done', 'idle', 'clear'].map((state) => progressSequence(state as 'working'))).toEqual([
      '\x1b]9;4;3\x1b\\',
      '\x1b]9;4;4;100\x1b\\',
      '\x1b]9;4;0\x1b\\',
      '\x1b]9;4;0\x1b\\',
      '\x1b]9;4;0\x1b\\',
    ]);
  });

  it('sets and unsets the four pane options in one tmux command line, @agent_reason unset when there is none', () => {
    expect(tmuxSetArgs('%3', { state: 'done', name: 'codex', sinceMs: 1_800_000_000_999 }).join(' ')).toBe(
      'set-option -p -t %3 @agent_state done ; set-option -p -t %3 @agent_name codex ; set-option -p -t %3 @agent_since 1800000000 ; set-option -p -u -t %3 @agent_reason',
    );
    expect(tmuxSetArgs('%3', { state: 'blocked', name: 'claude', sinceMs: 1_800_000_000_000, reason: 'permission' }).slice(-7).join(' ')).toBe(
      '; set-option -p -t %3 @agent_reason permission',
    );
    expect(tmuxUnsetArgs('%3').join(' ')).toBe(
      'set-option -p -u -t %3 @agent_state ; set-option -p -u -t %3 @agent_name ; set-option -p -u -t %3 @agent_since ; set-option -p -u -t %3 @agent_reason',
    );
  });

  it('keeps a reason to one bounded word: no tmux format, separator or control byte gets through', () => {
    const reason = (text: string): string | undefined => tmuxSetArgs('%1', { state: 'blocked', name: 'x', sinceMs: 0, reason: text }).at(-1);

    expect(reason('#{pane_id};#(rm -rf ~)\x1b[31m')).toBe('-pane_id-rm--rf-31m');
    expect(reason('x'.repeat(300))).toHaveLength(64);
    expect(reason('   ')).toBe('@agent_reason');
  });
});
