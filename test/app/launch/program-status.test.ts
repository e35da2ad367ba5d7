import { describe, expect, it } from 'vitest';
import { probeBeforeSpawn } from '../../../src/app/launch/program-status.js';

describe("agentwrap's own 7501 probe before the spawn", () => {
  const run = (isWanted: boolean, env: NodeJS.ProcessEnv) => {
    const written: string[] = [];
    const count = probeBeforeSpawn(isWanted, { write: (data) => void written.push(String(data)) }, env);
    return { count, written };
  };

  it('goes out once when asked for', () => {
    expect(run(true, { TERM: 'xterm-256color' })).toEqual({ count: 1, written: ['\x1b]7501;?\x07'] });
  });

  it('stays in when not asked for, and on the Linux console, which would print it', () => {
    expect(run(false, { TERM: 'xterm-256color' })).toEqual({ count: 0, written: [] });
    expect(run(true, { TERM: 'linux' })).toEqual({ count: 0, written: [] });
    expect(run(true, { TERM: 'dumb' })).toEqual({ count: 0, written: [] });
  });
});
