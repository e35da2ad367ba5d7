/**
 * Record, then replay: the demo agent driven live with `--record`, then the recording replayed
 * through the same pipeline on a manual clock, with no flags. The recording is a user's: the
 * command is `node …/agent.js` (no pack names it) and the keys are not recorded, so replay must
 * take the pack from the header and the turns from the input markers. Replay must publish the
 * transitions the live run published, in the same order, with the same rules wherever both name one. How close in time the two land depends on
 * the machine's load (the live loop's timers jitter), so that is not asserted here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../helpers/cli.js';

interface Transition {
  t: number;
  state: string;
  rule_id: string | null;
}

describe('record then replay', () => {
  it('replays the demo recording to the transitions the live run published', () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'aw-record-'));
    const cast = join(dir, 'demo.cast');
    const env = { ...process.env, AGENT_STATUS_DIR: join(dir, 'status') };

    const live = spawnSync(process.execPath, [CLI, 'demo', '--auto', '--json', '--record', cast], { encoding: 'utf8', env, timeout: 60_000 });
    expect(live.status, live.stderr).toBe(0);
    const published = (JSON.parse(live.stdout) as { transitions: Transition[] }).transitions;
    const replay = spawnSync(process.execPath, [CLI, 'replay', cast, '--json'], { encoding: 'utf8', env, timeout: 60_000 });
    expect(replay.status, replay.stderr).toBe(0);
    // Replay also prints the `unknown` it starts from; the live run reports changes after it.
    const replayed = replay.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Transition)
      .filter((t, i) => !(i === 0 && t.state === 'unknown'));

    expect(replayed.map((t) => t.state)).toEqual(published.map((t) => t.state));
    // The same rule wherever both name one. A working without a rule is the agent's CPU seen
    // before its spinner: under load the live tick can read the screen a moment behind its output
    // (seen beside two busy loops: live working from CPU, replay's tick already on the spinner).
    const bothNamed = published.map((t, i) => [t.rule_id, replayed[i]?.rule_id]).filter(([live, again]) => live !== null && again !== null);
    expect(bothNamed.length).toBeGreaterThanOrEqual(published.length - 1);
    for (const [live, again] of bothNamed) expect(again).toBe(live);
    // Replay's moments come from the recording's timestamps: in order, and inside the recording.
    const times = replayed.map((t) => t.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThanOrEqual(0);
    expect(published.map((t) => t.state)).toContain('done');
    // The header names the pack the live session used; the keys typed are not in the file; it is private.
    const text = readFileSync(cast, 'utf8');
    const header = JSON.parse(text.split('\n')[0] ?? '{}') as { version: number; command: string; agentwrap: { agent: string } };
    expect(header).toMatchObject({ version: 2, agentwrap: { agent: 'demo' } });
    expect(header.command).toMatch(/agent\.js$/);
    const codes = text.trim().split('\n').slice(1).map((line) => (JSON.parse(line) as unknown[])[1]);
    expect(codes).not.toContain('i');
    expect(text).toContain('"agentwrap.input"');
    expect(statSync(cast).mode & 0o777).toBe(0o600);
    const timeline = spawnSync(process.execPath, [CLI, 'replay', cast, '--timeline'], { encoding: 'utf8', env, timeout: 60_000 });
    expect(timeline.stdout).toContain('pack: demo (recorded pack)');
  });
});
