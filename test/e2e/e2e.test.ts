/** Offline tests of the e2e run's pure parts (the run itself is `npm run e2e`, never `npm test`). */
import { describe, expect, it } from 'vitest';
import { compareLiveReplay, crashSigns, eventsToTransitions, firstScreenOrder, median } from './compare.mjs';
import { judgeCell, judgeOpenCodeStart, renderE2eMarkdown, renderKills, renderOpenCodeStart, summarizeOpenCodeStart } from './report.mjs';

const START = 1_796_000_000_000;
const ev = (dt: number, from: string | null, to: string, winner = 'pack') => ({ t: START + dt, session: 'claude-x', agent: 'claude', from, to, winner, rule_id: null });

describe('eventsToTransitions', () => {
  it('puts published events on the cast clock, in time order', () => {
    const out = eventsToTransitions([ev(3200, 'idle', 'working'), ev(900, null, 'idle')], START);
    expect(out).toEqual([
      { t: 0.9, state: 'idle', stuck: false, winner: 'pack', rule_id: null },
      { t: 3.2, state: 'working', stuck: false, winner: 'pack', rule_id: null },
    ]);
  });
});

describe('firstScreenOrder', () => {
  it('runs every mode once a round and puts each mode in every place of the round once', () => {
    const order = firstScreenOrder(3);
    expect(order).toHaveLength(9);
    const rounds = [0, 1, 2].map((i) => order.filter((o) => o.index === i).map((o) => o.mode));
    for (const round of rounds) expect([...round].sort()).toEqual(['bare', 'hooks-off', 'hooks-on']);
    for (let place = 0; place < 3; place++) expect(new Set(rounds.map((round) => round[place])).size).toBe(3);
  });
});

describe('compareLiveReplay', () => {
  const tr = (t: number, state: string) => ({ t, state, stuck: false });
  const live = [tr(0.9, 'idle'), tr(3.2, 'working'), tr(8, 'blocked'), tr(12, 'done')];

  it('accepts the same changes within 250 ms, ignoring a leading unknown and what follows the exit', () => {
    const replay = [tr(0, 'unknown'), tr(1.0, 'idle'), tr(3.3, 'working'), tr(7.8, 'blocked')];
    expect(compareLiveReplay(live, replay, 11)).toMatchObject({ ok: true, maxOffsetMs: 200 });
  });

  it('ends before the exit keystroke: the change it causes lands on either side of it by clock skew', () => {
    // Claude run of 2026-12-02 (tmux, hooks on, approve): the exit key is at 21.018 s in the cast,
    // replay went done → idle on it at 21.02 s, live 0.5 s later.
    const withExit = [tr(0.9, 'idle'), tr(3.2, 'working'), tr(16.2, 'done')];
    expect(compareLiveReplay(withExit, [...withExit, tr(21.018, 'idle')], 21.018)).toMatchObject({ ok: true });
  });

  it('names a change that differs, one that is missing, and one too far apart', () => {
    expect(compareLiveReplay(live, [tr(1, 'idle'), tr(3.2, 'blocked')], 11).problem).toBe('change 2: live working at 3.20s, replay blocked at 3.20s');
    expect(compareLiveReplay(live, [tr(1, 'idle'), tr(3.2, 'working')], 11).problem).toBe('3 live changes, 2 replayed: live has blocked at 8.00s');
    expect(compareLiveReplay(live, [tr(1, 'idle'), tr(3.2, 'working'), tr(8.4, 'blocked')], 11)).toMatchObject({ ok: false, maxOffsetMs: 400 });
  });
});

describe('crashSigns', () => {
  it('finds the exit crash of issue 14 and not a warning', () => {
    const crash = [
      'node:events:497',
      '      throw er; // Unhandled \'error\' event',
      'Error: write EIO',
      '    at afterWriteDispatched (node:internal/stream_base_commons:161:15)',
    ].join('\n');
    expect(crashSigns(crash, 1)).toEqual(['stack trace', 'error: Error: write EIO']);
    expect(crashSigns("agentwrap: could not turn off output post-processing (stty: 'standard input': Input/output error)\n", 0)).toEqual([]);
    expect(crashSigns('', 134)).toEqual(['exit 134']);
  });
});

describe('E2E.md', () => {
  const score = (accuracy: number, missed: number) => ({ accuracy, missed, spurious_transitions: 0, latency_ms: { p50: 300, p95: 800, max: 900 }, per_state: { blocked: { recall: 1 } } });
  const cell = {
    agent: 'claude', habitat: 'tmux', hooks: 'on', version: '2.1.332', date: '2026-12-01T22:00:00Z', command: 'npm run e2e -- --agent claude', tmux: 'tmux 3.3a', node: 'v22',
    total: score(0.991, 0),
    firstScreen: { bareMs: 1000, wrappedMs: 1450, runs: 3, timedOut: 0, all: [] },
    scenarios: [{ scenario: 'simple', ok: true, crash: [], stderr: '', score: score(0.991, 0), replay: { ok: true, maxOffsetMs: 40 }, evidenceLines: 12 }],
  };

  it('judges each goal of a cell', () => {
    expect(judgeCell(cell)).toMatchObject({ accuracy: true, blockedRecall: true, missed: true, p95: true, crashOk: true, delta: 450, firstScreen: false, replaySame: 1, replayTotal: 1 });
  });

  it('judges the first screen by the difference of the medians, and shows the paired median and the load beside it', () => {
    // Medians 1000 → 1250 (+250), while round by round the wrapped CLI was 320 ms later.
    const paired = { ...cell, firstScreen: { ...cell.firstScreen, wrappedMs: 1250, pairedDeltaMs: 320, load: { min: 2.1, median: 2.5, max: 3.4 } } };
    expect(judgeCell(paired)).toMatchObject({ delta: 250, firstScreen: true });
    expect(renderE2eMarkdown([paired])).toContain('| 1000 → 1250 ms (+250 ms; paired +320 ms, 3 runs, load 2.1–3.4) ✓ |');
  });

  it('writes one row per cell with the date, versions and command', () => {
    const md = renderE2eMarkdown([cell]);
    expect(md).toContain('| claude | tmux | on | 1/1 | 99.1% ✓ | 100.0% ✓ | 0 ✓ | 0 ✓ | 800 ms ✓ | 0 ✓ | 1000 → 1450 ms (+450 ms, 3 runs) ✗ | 1/1 ✓ |');
    expect(md).toContain('claude 2.1.332');
    expect(md).toContain('`npm run e2e -- --agent claude`');
  });

  it('takes the middle value as the median', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('E2E.md crashes', () => {
  it('tells crashes at a killed terminal from crashes in a run', () => {
    const cell = {
      agent: 'codex', habitat: 'tmux', hooks: 'on', version: '0.171.0', date: '2026-12-01T22:00:00Z', command: 'npm run e2e', tmux: 'tmux 3.3a', node: 'v22',
      total: null,
      firstScreen: { bareMs: 500, wrappedMs: 700, runs: 2, timedOut: 0, all: [{ mode: 'bare', crash: ['node assertion'] }, { mode: 'hooks-on', crash: ['node assertion'] }, { mode: 'hooks-on', crash: [] }] },
      scenarios: [{ scenario: 'simple', ok: false, error: 'boom', crash: [], stderr: '' }],
    };
    expect(judgeCell(cell)).toMatchObject({ runCrashes: 0, killCrashes: 1, crashOk: false, failedRuns: 1 });
    expect(renderE2eMarkdown([cell])).toContain('| 0 + 1 at kill ✗ |');
  });
});

describe('E2E.md kill-server section', () => {
  const run = (index: number, agent: string, phase: string, extra: object = {}) => ({
    index, agent, phase, reached: true, before: 'idle', exitCode: 129, agentwrapGone: true, endedMs: 200 + index, crash: [], stderr: '', leftProcesses: [], leftRecords: [], leftSockets: [], listedAfterTtl: 0, ...extra,
  });
  const kills = (runs: ReturnType<typeof run>[], summary: object) => ({
    date: '2026-12-02T01:00:00Z', command: 'node test/e2e/kill-server.mjs --runs 2', versions: { claude: '2.1.332', codex: '0.171.0' }, tmux: 'tmux 3.3a', node: 'v20', netns: true,
    summary: { runs: runs.length, byAgent: { claude: 1, codex: 1 }, byPhase: { starting: 1, ready: 1, working: 0 }, reached: 2, crashes: 0, stderrNonEmpty: 0, notGone: 0, leftProcesses: 0, leftRecords: 0, leftSockets: 0, listedAfterTtl: 0, exitCodes: { 129: 2 }, endedMs: [201, 202], ...summary },
    runs,
  });

  it('states the counts against the goal and lists every run', () => {
    const md = renderKills(kills([run(1, 'claude', 'starting'), run(2, 'codex', 'ready')], {})).join('\n');
    expect(md).toContain('**2 kills in a row** (claude 1, codex 1; killed while starting 1, at the ready prompt 1, in a turn 0');
    expect(md).toContain("**0 records left** (0 control sockets) once agentwrap was gone, **0 sessions listed** by `agentwrap status --json` after the records' TTL ✓");
    expect(md).toContain('- Exit status: 129 ×2');
    expect(md).toContain('| 2 | codex | at the ready prompt (idle published) | idle | 129 | 202 ms |  | – |');
  });

  it('marks a crash or a record left behind as a miss, naming them in the run', () => {
    const bad = run(1, 'codex', 'working', { crash: ['node assertion'], leftRecords: ['codex-x.json'], exitCode: 134 });
    const md = renderKills(kills([bad], { crashes: 1, leftRecords: 1, exitCodes: { 134: 1 } })).join('\n');
    expect(md).toContain('**1 crashes**');
    expect(md).toContain("after the records' TTL ✗");
    expect(md).toContain('| CRASH: node assertion | record codex-x.json |');
  });
});

describe("E2E.md OpenCode start section", () => {
  // Shaped as test/e2e/opencode-start.mjs stores its runs; the paths are what OpenCode 1.18.33
  // itself added to a new user's ~/.config/opencode online (bare, 2026-12-02 21:25 UTC).
  const own = ['opencode/.gitignore', 'opencode/node_modules/', 'opencode/package.json'];
  const run = (mode: string, round: number, readyMs: number, idleMs: number | null, extra: object = {}) => ({
    mode, round, readyMs, idleMs, published: idleMs === null ? [] : [{ state: 'unknown', ms: idleMs - 100 }, { state: 'idle', ms: idleMs }],
    settledMs: 11000, configAdded: own, homeNamesAgentwrap: [], crash: [], stderr: '', ...extra,
  });

  it("judges wrapped against the same rounds' bare runs: the ready prompt, idle after it, what ~/.config gained", () => {
    const runs = [
      run('bare', 0, 7000, null), run('hooks-on', 0, 7200, 7900), run('hooks-off', 0, 7100, 7800),
      run('bare', 1, 7400, null), run('hooks-on', 1, 7500, 8200), run('hooks-off', 1, 8700, 10200, { configAdded: [...own, 'opencode/plugin/'] }),
    ];
    const summary = summarizeOpenCodeStart(runs);
    expect(summary['hooks-on']).toMatchObject({ readyMs: 7350, deltaMs: 150, pairedDeltaMs: 150, idleAfterReadyMs: [700, 700], beforeIdle: ['unknown'], configAddedByAgentwrap: [] });
    expect(judgeOpenCodeStart(summary['hooks-on'])).toEqual({ ready: true, idle: true, beforeIdle: true, config: true, crashes: true });
    // 1.5 s late in one round, idle 1.5 s after its prompt, and a folder bare OpenCode did not make.
    expect(summary['hooks-off']).toMatchObject({ idleAfterReadyMs: [700, 1500], configAddedByAgentwrap: ['opencode/plugin/'] });
    expect(judgeOpenCodeStart(summary['hooks-off'])).toMatchObject({ idle: false, config: false });

    const md = renderOpenCodeStart({ registry: { date: '2026-12-02T22:00:00Z', rounds: 2, runs } }).join('\n');
    expect(md).toContain('| npm registry reachable (2026-12-02T22:00:00Z, 2 rounds) | hooks on | 7200 → 7350 ms (+150 ms; paired +150 ms) ✓ | 700, 700 ms ✓ | unknown ✓ | nothing (opencode/.gitignore, opencode/node_modules/, opencode/package.json) ✓ | 0 ✓ |');
    expect(md).toContain('| opencode/plugin/ (opencode/.gitignore, opencode/node_modules/, opencode/package.json) ✗ |');
  });

  it('counts a run that never published idle, or published working at the start, as a miss', () => {
    const summary = summarizeOpenCodeStart([
      run('bare', 0, 7000, null), run('hooks-on', 0, 7200, null), run('hooks-off', 0, 7100, 7800, { published: [{ state: 'working', ms: 4000 }, { state: 'idle', ms: 7800 }] }),
    ]);
    expect(judgeOpenCodeStart(summary['hooks-on'])).toMatchObject({ idle: false });
    expect(summary['hooks-on'].notIdle).toBe(1);
    expect(judgeOpenCodeStart(summary['hooks-off'])).toMatchObject({ idle: true, beforeIdle: false });
  });

  it('takes the states before the first idle record, whatever its time says', () => {
    // As stored by a run of 2026-12-03 (offline, hooks off, round 1): the idle record was seen 1 ms before idleMs was taken.
    const published = [{ state: 'unknown', ms: 10904 }, { state: 'idle', ms: 11004 }];
    const summary = summarizeOpenCodeStart([run('bare', 1, 7693, null), run('hooks-off', 1, 10703, 11005, { published })]);
    expect(summary['hooks-off'].beforeIdle).toEqual(['unknown']);
  });
});
