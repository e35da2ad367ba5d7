import { describe, expect, it } from 'vitest';
import { GuardianUpdates } from '../../../src/app/launch/guardian-updates.js';

describe('GuardianUpdates', () => {
  it('tells the guardian a changed reset at once, then waits before telling it again', () => {
    const modes = { revision: 0, reset: '' , resetSequence(): string { return this.reset; } };
    const told: string[] = [];
    const guardian = new GuardianUpdates(modes, (reset) => told.push(reset));

    modes.revision = 1;
    modes.reset = '\x1b[?1049l';
    guardian.noteOutput();
    modes.revision = 2;
    modes.reset = '\x1b[?1049l\x1b[?2004l';
    guardian.noteOutput();
    guardian.dispose();

    expect(told).toEqual(['\x1b[?1049l']);
  });

  it('says nothing when the revision did not move', () => {
    const told: string[] = [];
    const guardian = new GuardianUpdates({ revision: 5, resetSequence: () => 'x' }, (reset) => told.push(reset));

    guardian.noteOutput();

    expect(told).toEqual([]);
  });
});
