/**
 * The hook spool's deliveries (app/reporters/hook-spool.ts): a failure while the agent runs is
 * said once; one after the agent exited (Claude Code's `SessionEnd` racing the session closing
 * its socket) is a normal ending, said only with AGENTWRAP_DEBUG=1 (the `debug` callback).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followSpool, type SpooledReport } from '../../../src/app/reporters/hook-spool.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-spool-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function spool(pid: number, event: string): void {
  writeFileSync(join(dir, `${pid}.${event}.json`), JSON.stringify({ hook_event_name: event }));
}

/** A session whose socket refuses every report once `close` is called, after `started` says a delivery began. */
function closingSession() {
  const begun: string[] = [];
  let close: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    close = resolve;
  });
  const deliver = async (report: SpooledReport): Promise<unknown> => {
    begun.push(report.event);
    await closed;
    throw new Error('connect ECONNREFUSED');
  };
  return { begun, close, deliver };
}

describe('followSpool', () => {
  it('says a failed delivery once while the agent runs', async () => {
    const warnings: string[] = [];
    const following = followSpool(dir, () => Promise.reject(new Error('connect ECONNREFUSED')), (m) => warnings.push(m));
    try {
      spool(101, 'UserPromptSubmit');
      spool(102, 'Stop');
      await expect.poll(() => warnings.length, { timeout: 5000, interval: 20 }).toBe(1);
      expect(warnings[0]).toMatch(/^a hook's UserPromptSubmit report did not reach the session: connect ECONNREFUSED$/);
    } finally {
      following.stop();
    }
  });

  it('says nothing when a report under way fails after the agent exited (SessionEnd racing the socket\'s close)', async () => {
    const session = closingSession();
    const warnings: string[] = [];
    const debug: string[] = [];
    const following = followSpool(dir, session.deliver, (m) => warnings.push(m), (m) => debug.push(m));
    spool(103, 'SessionEnd');
    await expect.poll(() => session.begun, { timeout: 5000, interval: 20 }).toEqual(['SessionEnd']);

    following.stop();
    session.close();
    await expect.poll(() => debug.length, { timeout: 5000, interval: 20 }).toBe(1);

    expect(warnings).toEqual([]);
    expect(debug[0]).toContain("a hook's SessionEnd report did not reach the session");
  });
});
