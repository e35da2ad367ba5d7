import { describe, expect, it } from 'vitest';
import { createSessionRecord } from '../../../src/core/records/session-record.js';
import type { ListedSession } from '../../../src/app/sessions/store.js';
import { cellWidth } from '../../../src/core/text/cells.js';
import { formatAge, renderStatusText, renderTmux, shortenPath, TMUX_STYLE, statusJson } from '../../../src/cli/render/status.js';

const NOW = 1_784_200_000_000;

function own(key: string, state: 'working' | 'blocked' | 'done' | 'idle' | 'unknown', extra: { title?: string; stuck?: boolean } = {}): ListedSession {
  const record = createSessionRecord({
    sourceCli: 'claude', sessionId: key, pid: 2, wrapperPid: 1, cwd: '/home/u/repo', startedAtMs: NOW, updatedAtMs: NOW,
    state, stateSinceMs: NOW - 90_000, seen: true, stuck: extra.stuck ?? false, winner: null, ruleId: null, control: '/s',
    ...(extra.title === undefined ? {} : { title: extra.title }),
  });
  return { kind: 'agentwrap', record, key, path: `/x/${key}.json` };
}

describe('formatAge', () => {
  it.each([
    [850, '0s'],
    [59_999, '59s'],
    [60_000, '1m'],
    [3_600_000, '1h'],
    [86_400_000 * 3, '3d'],
    [-5, '0s'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});

describe('text helpers', () => {
  it('shortens paths under home only', () => {
    expect([shortenPath('/home/u/repo', '/home/u'), shortenPath('/home/uu', '/home/u'), shortenPath('/home/u', '/home/u')]).toEqual(['~/repo', '/home/uu', '~']);
  });
});

describe('renderStatusText', () => {
  it('marks a stuck session and sanitizes a title read from a file', () => {
    const session = own('a', 'working', { stuck: true });
    const tampered = { ...session, record: { ...session.record, title: 'x\u001b[2Jy' } } as ListedSession;

    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions: [tampered], warnings: [] }, { home: '/home/u' });

    expect(lines[1]).toMatch(/^working +1m +claude +a +~\/repo +\(stuck\) xy$/);
    expect(lines[2]).toBe('rollup: working (1 working)');
  });

  it('shows the cause after the overlay, with the reset in local time when the agent showed one', () => {
    const limited = own('a', 'done');
    const until = new Date(NOW + 2 * 3_600_000);
    const hhmm = `${String(until.getHours()).padStart(2, '0')}:${String(until.getMinutes()).padStart(2, '0')}`;
    const sessions = [
      { ...limited, record: { ...limited.record, reason: 'usage-limit', until: until.getTime(), title: 'fix tests' } },
      { ...own('b', 'blocked'), record: { ...own('b', 'blocked').record, reason: 'auth' } },
    ] as ListedSession[];

    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions, warnings: [] }, { home: '/home/u' });

    expect(lines.find((l) => l.startsWith('blocked'))).toMatch(/ \(auth\)$/);
    // NOW is 11:06 UTC: two hours later is the same day in every zone from UTC-11 to UTC+10.
    expect(lines.find((l) => l.startsWith('done'))).toMatch(new RegExp(` \\(usage-limit until ${hhmm}\\) fix tests$`));
  });

  it("shows a blocked session's question and numbered options before its title: what `agentwrap answer` takes", () => {
    const session = own('a', 'blocked', { title: '✋ claude' });
    const blocked = { ...session, record: { ...session.record, dialog: { question: 'Do you want to proceed?', options: ['Yes', 'No'], digest: '0123456789abcdef' } } } as ListedSession;

    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions: [blocked], warnings: [] }, { home: '/home/u' });

    expect(lines[1]).toMatch(/^blocked +1m +claude +a +~\/repo +Do you want to proceed\? \[1 Yes \| 2 No\] ✋ claude$/);
  });

  it('never draws a line wider than the terminal', () => {
    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions: [own('a', 'idle', { title: 'z'.repeat(200) })], warnings: [] }, { width: 40 });

    expect(lines.every((line) => [...line].length <= 40)).toBe(true);
  });

  it('counts a wide title in terminal cells, so a CJK title does not wrap the line', () => {
    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions: [own('a', 'idle', { title: '漢字のタイトル'.repeat(10) })], warnings: [] }, { width: 80 });

    expect(lines[1]).toContain('漢字');
    expect(lines.map((line) => cellWidth(line))).toEqual(lines.map((line) => Math.min(cellWidth(line), 80)));
    expect(cellWidth(lines[1] ?? '')).toBeGreaterThan(76);
  });

  it('aligns columns in cells when a field is wide', () => {
    const plain = own('b', 'idle', { title: 'T' });
    const wide = { ...own('a', 'idle', { title: 'T' }), record: { ...plain.record, cwd: '/srv/漢字' } } as ListedSession;
    const lines = renderStatusText({ nowMs: NOW, root: '/r', sessions: [wide, plain], warnings: [] }, {});

    const column = (line: string, text: string): number => cellWidth(line.slice(0, line.lastIndexOf(text)));
    expect(lines[1]).toContain('漢字');
    expect([column(lines[1] ?? '', 'T'), column(lines[2] ?? '', 'T')]).toEqual([column(lines[0] ?? '', 'TITLE'), column(lines[0] ?? '', 'TITLE')]);
  });
});

describe('statusJson and renderTmux', () => {
  const view = { nowMs: NOW, root: '/r', sessions: [own('a', 'idle'), own('b', 'done'), own('c', 'done'), own('d', 'unknown')], warnings: [] };

  it('rolls up most urgent first and counts every state', () => {
    const json = statusJson(view);

    expect(json.rollup).toBe('done');
    expect(json.counts).toEqual({ blocked: 0, done: 2, working: 0, idle: 1, unknown: 1 });
    expect(json.sessions.map((s) => s.key)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('gives state_age_ms in whole milliseconds when state_since has a fraction', () => {
    const session = own('a', 'working');
    const fractional = { ...session, record: { ...session.record, state_since: NOW - 1234.5678 } } as ListedSession;

    expect(statusJson({ ...view, nowMs: NOW + 0.25, sessions: [fractional] }).sessions[0]?.state_age_ms).toBe(1235);
  });

  it('prints tmux counts in roll-up order', () => {
    expect(renderTmux(view)).toBe(
      '#[fg=colour231,bg=colour28,bold] 2 done #[default] #[fg=colour231,bg=colour242] 1 idle #[default] #[fg=colour252,bg=colour238] 1 unknown #[default]',
    );
  });

  // `1 done` in green text vanished into tmux's default green bar, `working` in yellow into a
  // light one: a badge carries its own background, so the bar's colour cannot hide its text.
  it('draws every state as a badge with its own text and background colour, never the bar green', () => {
    for (const style of Object.values(TMUX_STYLE)) {
      expect(style).toMatch(/(^|,)fg=colour\d+(,|$)/);
      expect(style).toMatch(/(^|,)bg=colour\d+(,|$)/);
      expect(style).not.toMatch(/bg=(green|colour2)(,|$)/);
    }
  });
});
