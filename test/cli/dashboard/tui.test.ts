/**
 * The dashboard's pure parts: urgency order, what each key does, key decoding, and the frame
 * laid out for a terminal size. Rows are built the way cli/commands/status/dashboard.ts builds them from
 * records; the preview screen is the demo agent's permission dialog as the mirror holds it
 * (drawn by src/demo/view.ts, captured from a live session through `status --watch`).
 */
import { describe, expect, it } from 'vitest';
import { decodeKeys } from '../../../src/cli/dashboard/keys.js';
import { frameUpdate, msUntilAgesChange, previewRows, renderFrame } from '../../../src/cli/dashboard/layout.js';
import { applyKey, initialState, selectedRow, sortRows, visibleRows, withRows, type DashboardRow, type DashboardState } from '../../../src/cli/dashboard/model.js';
import type { ScreenPreview } from '../../../src/app/control/socket.js';

const NOW = 1_800_000_000_000;

function row(key: string, state: DashboardRow['state'], sinceAgoMs: number, extra: Partial<DashboardRow> = {}): DashboardRow {
  return {
    id: extra.host === undefined ? key : `${extra.host}/${key}`,
    host: undefined,
    key,
    agent: 'claude',
    state,
    stateSinceMs: state === undefined ? undefined : NOW - sinceAgoMs,
    stuck: false,
    title: '',
    cwd: '/home/ann/src',
    control: `/run/s/${key}.sock`,
    tmux: { socket: '/tmp/tmux-1000/default', pane: '%1' },
    ...extra,
  };
}

const ROWS = [
  row('idle-1', 'idle', 5_000),
  row('work-new', 'working', 1_000),
  row('other', undefined, 0, { control: undefined, tmux: undefined }),
  row('blocked-1', 'blocked', 2_000),
  row('done-1', 'done', 9_000),
  row('work-old', 'working', 60_000, { stuck: true, title: 'Refactoring' }),
  row('blocked-far', 'blocked', 30_000, { host: 'ann@box', control: undefined, tmux: undefined }),
];

function loaded(): DashboardState {
  return withRows(initialState(), ROWS, [{ host: 'ann@box', reachable: true, error: undefined }]);
}

function press(state: DashboardState, ...keys: Parameters<typeof applyKey>[1][]): DashboardState {
  return keys.reduce((s, key) => applyKey(s, key).state, state);
}

describe('dashboard model', () => {
  it('sorts by urgency, the longest waiting first within a state, other tools last', () => {
    expect(sortRows(ROWS).map((r) => r.key)).toEqual(['blocked-far', 'blocked-1', 'done-1', 'work-old', 'work-new', 'idle-1', 'other']);
  });

  it('keeps the most urgent session selected until a key moves the selection, then follows that session', () => {
    let state = loaded();
    expect(selectedRow(state)?.key).toBe('blocked-far');
    state = press(state, 'down', 'down');
    expect(selectedRow(state)?.key).toBe('done-1');
    // done-1 is acked (idle now): the selection stays on it at its new place.
    state = withRows(state, ROWS.map((r) => (r.key === 'done-1' ? { ...r, state: 'idle' as const, stateSinceMs: NOW } : r)), state.hosts);
    expect(selectedRow(state)?.key).toBe('done-1');
    expect(visibleRows(state).map((r) => r.key).indexOf('done-1')).toBe(5);
    // It ends: the row now at its old place is selected, not the first one.
    state = withRows(state, ROWS.filter((r) => r.key !== 'done-1'), state.hosts);
    expect(selectedRow(state)?.key).toBe('other');
  });

  it('moves within bounds with up/down/top/bottom', () => {
    const state = loaded();
    expect(selectedRow(press(state, 'up'))?.key).toBe('blocked-far');
    expect(selectedRow(press(state, 'bottom'))?.key).toBe('other');
    expect(selectedRow(press(state, 'bottom', 'down'))?.key).toBe('other');
    expect(selectedRow(press(state, 'bottom', 'top'))?.key).toBe('blocked-far');
  });

  it('filters by state in a cycle, selecting within the filter', () => {
    let state = press(loaded(), 'filter');
    expect(state.filter).toBe('blocked');
    expect(visibleRows(state).map((r) => r.key)).toEqual(['blocked-far', 'blocked-1']);
    state = press(state, 'filter', 'filter');
    expect(state.filter).toBe('working');
    expect(selectedRow(state)?.key).toBe('work-old');
    state = press(state, 'filter', 'filter', 'filter');
    expect(state.filter).toBe('all');
  });

  it('turns Enter and a into actions on the selected session, q and Ctrl-C into quit', () => {
    const state = press(loaded(), 'down');
    expect(applyKey(state, 'jump').action).toEqual({ kind: 'jump', row: expect.objectContaining({ key: 'blocked-1' }) });
    expect(applyKey(state, 'ack').action).toEqual({ kind: 'ack', row: expect.objectContaining({ key: 'blocked-1' }) });
    expect(applyKey(state, 'quit').action).toEqual({ kind: 'quit' });
    expect(applyKey(state, 'interrupt').action).toEqual({ kind: 'quit' });
    expect(applyKey(withRows(initialState(), [], []), 'jump')).toEqual({ state: expect.objectContaining({ message: 'no session selected' }), action: { kind: 'none' } });
  });

  it('closes help with any key, without acting on it', () => {
    const help = press(loaded(), 'help');
    expect(help.isHelpShown).toBe(true);
    const result = applyKey(help, 'jump');
    expect(result.state.isHelpShown).toBe(false);
    expect(result.action).toEqual({ kind: 'none' });
    // q too closes the help rather than the dashboard (docs/publishing.md: any key); Ctrl-C quits.
    expect(applyKey(help, 'quit')).toEqual({ state: expect.objectContaining({ isHelpShown: false }), action: { kind: 'none' } });
    expect(applyKey(help, 'interrupt').action).toEqual({ kind: 'quit' });
  });
});

describe('dashboard keys', () => {
  it('decodes arrows (CSI and SS3), vi keys, Enter, and several keys in one read', () => {
    expect(decodeKeys('\u001b[A\u001b[BjkgG')).toEqual(['up', 'down', 'down', 'up', 'top', 'bottom']);
    expect(decodeKeys('\u001bOA\u001bOB\r')).toEqual(['up', 'down', 'jump']);
    expect(decodeKeys('af?q\u0003')).toEqual(['ack', 'filter', 'help', 'quit', 'interrupt']);
  });

  it('swallows other escape sequences whole instead of reading their bytes as keys', () => {
    // F5 is ESC [ 1 5 ~ : its "1" and "5" must not become keys; nor a focus report's "I".
    expect(decodeKeys('\u001b[15~j\u001b[Iq')).toEqual(['other', 'down', 'other', 'quit']);
  });
});

/** The demo agent's permission dialog, bottom of a 100x16 screen, as the mirror holds it. */
const DIALOG: ScreenPreview = {
  cols: 100,
  cursorRow: 12,
  cursorCol: 0,
  rows: [
    '> please run the tests',
    '',
    '╭────────────────────────────────────────────────╮',
    '│ Bash command                                   │',
    '│   ls -la                                       │',
    '│ Do you want to run ls -la?                     │',
    '│ ❯ 1. Yes                                       │',
    "│   2. Yes, and don't ask again for ls commands  │",
    '│   3. No, and tell me what to do differently    │',
    '╰────────────────────────────────────────────────╯',
    '  Esc to cancel',
    '',
    '',
    '',
    '',
    '',
  ],
};

describe('dashboard layout', () => {
  it('shows a session\'s cause after its overlay, with the reset time when known', () => {
    const until = NOW + 3_600_000;
    const at = new Date(until);
    const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    const state = withRows(initialState(), [row('limited', 'done', 60_000, { reason: 'usage-limit', until, title: 'Fix tests' }), row('login', 'blocked', 5_000, { reason: 'auth' })], []);

    const frame = renderFrame({ state, preview: 'no screen', width: 120, height: 20, nowMs: NOW, home: '/home/ann' });

    expect(frame.lines.find((l) => l.includes('limited'))).toMatch(new RegExp(`\\(usage-limit until ${hhmm}\\) Fix tests$`));
    expect(frame.lines.find((l) => l.includes('login'))).toMatch(/ \(auth\)$/);
  });

  it('fills exactly the terminal: summary, list, the selected session, its screen, keys', () => {
    const frame = renderFrame({ state: loaded(), preview: DIALOG, width: 100, height: 30, nowMs: NOW, home: '/home/ann' });
    expect(frame.lines).toHaveLength(30);
    for (const line of frame.lines) expect([...line].length).toBeLessThanOrEqual(100);
    expect(frame.lines[0]).toBe('agentwrap · 7 sessions: 2 blocked, 1 done, 2 working, 1 idle · filter: all');
    expect(frame.lines[1]).toMatch(/^ {2}STATE +FOR +HOST +AGENT +SESSION +CWD +TITLE$/);
    expect(frame.lines[2]).toMatch(/^› blocked +30s +ann@box +claude +blocked-far +\/home\/ann\/src$/);
    expect(frame.selectedLine).toBe(2);
    expect(frame.lines.find((l) => l.includes('work-old'))).toMatch(/working +1m +local +claude +work-old +~\/src +\(stuck\) Refactoring$/);
    const title = frame.lines.findIndex((l) => l.startsWith('── ann@box:blocked-far · blocked '));
    expect(title).toBeGreaterThan(2);
    // The preview is the screen's bottom with content: trailing blank rows are dropped.
    expect(frame.lines.slice(title + 1, title + 12)).toEqual(previewRows(DIALOG, 100));
    expect(frame.lines.at(-1)).toBe('↑↓ select · Enter jump · a ack · 1-9 answer · p prompt · f filter · ? help · q quit');
  });

  it('scrolls the list to keep the selection in view on a short terminal', () => {
    const state = press(loaded(), 'bottom');
    const frame = renderFrame({ state, preview: 'no preview', width: 80, height: 8, nowMs: NOW, home: undefined });
    expect(frame.lines).toHaveLength(8);
    expect(frame.selectedLine).toBeDefined();
    expect(frame.lines[frame.selectedLine ?? 0]).toMatch(/^› - +- .* other/);
  });

  it('lists a host that does not answer as unreachable, and never as an empty machine', () => {
    const state = withRows(initialState(), [row('here', 'idle', 1_000)], [{ host: 'ann@gone', reachable: false, error: 'ssh: connect to host gone port 22: Connection timed out' }]);
    const frame = renderFrame({ state, preview: 'x', width: 100, height: 20, nowMs: NOW, home: undefined });
    expect(frame.lines[0]).toContain('1 host unreachable');
    expect(frame.lines).toContain('! ann@gone: unreachable (ssh: connect to host gone port 22: Connection timed out)');
  });

  it('keeps the bottom of a tall preview, where an agent draws its prompt or dialog', () => {
    expect(previewRows(DIALOG, 3)).toEqual(['│   3. No, and tell me what to do differently    │', '╰────────────────────────────────────────────────╯', '  Esc to cancel']);
  });

  it('wakes up for ages only when a cell on screen would read differently', () => {
    const at = (ages: number[]): number =>
      msUntilAgesChange(withRows(initialState(), ages.map((age, i) => row(`r${i}`, 'idle', age)), []), NOW);
    expect(at([12_300])).toBe(1_000); // 12s → 13s, drawn at the clock's next whole second (NOW is one)
    expect(at([125_000])).toBe(55_000); // 2m → 3m
    expect(at([125_000, 7_200_000 + 5_000])).toBe(55_000);
    expect(at([7_200_000 + 5_000])).toBe(3_595_000); // 2h → 3h
    expect(msUntilAgesChange(withRows(initialState(), [row('x', undefined, 0)], []), NOW)).toBe(Number.POSITIVE_INFINITY);
  });

  it('redraws ages in seconds once a second however many rows, at the clock\'s whole seconds', () => {
    // Twenty rows whose seconds turn over at twenty different moments of the coming second.
    const rows = Array.from({ length: 20 }, (_, i) => row(`r${i}`, 'idle', 5_000 + i * 47));
    const state = withRows(initialState(), rows, []);
    const wakes: number[] = [];
    for (let t = NOW + 1; t < NOW + 3_000; t += msUntilAgesChange(state, t)) wakes.push(t);
    expect(wakes).toEqual([NOW + 1, NOW + 1_000, NOW + 2_000]);
  });

  it('rewrites only the lines that changed, and the ones whose highlight moved', () => {
    const first = { lines: ['top', 'a', 'b', 'keys'], selectedLine: 1 };
    expect(frameUpdate(undefined, first)).toBe('\u001b[1;1Htop\u001b[K\u001b[2;1H\u001b[7ma\u001b[K\u001b[0m\u001b[3;1Hb\u001b[K\u001b[4;1Hkeys\u001b[K');
    expect(frameUpdate(first, first)).toBe('');
    expect(frameUpdate(first, { lines: ['top 2', 'a', 'b', 'keys'], selectedLine: 2 })).toBe(
      '\u001b[1;1Htop 2\u001b[K\u001b[2;1Ha\u001b[K\u001b[3;1H\u001b[7mb\u001b[K\u001b[0m',
    );
  });
});
