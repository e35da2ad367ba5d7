/**
 * The config file's `[hooks]` accepts exactly the agents planHooks installs hooks for: a
 * `[hooks] gemini = false` must be an error (there is nothing to turn off), and an agent that
 * gains hooks must become configurable. This keeps core/config/schema.ts's HOOK_AGENTS and
 * app/reporters/hooks.ts in step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../../../src/adapters/pty/environment.js';
import { planHooks, type HookPlan } from '../../../src/app/reporters/hooks.js';
import { HOOK_AGENTS } from '../../../src/core/config/schema.js';

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'aw-hook-agents-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** OpenCode gets a reporter only when the user starts its server: follow that one. */
const ARGS: Readonly<Record<string, readonly string[]>> = { opencode: ['--port', '4096'] };

async function planFor(agent: string): Promise<HookPlan> {
  const plan = await planHooks({ agent, args: ARGS[agent] ?? [], env: { HOME: join(tmp, 'home'), CODEX_HOME: join(tmp, 'codex-home') }, reportCommand: ['/usr/bin/true'], tmpRoot: tmp });
  plan.dispose();
  return plan;
}

async function installs(agent: string): Promise<boolean> {
  return (await planFor(agent)).installed;
}

describe('HOOK_AGENTS', () => {
  it('is exactly the agents planHooks installs hooks for', async () => {
    const candidates = ['claude', 'codex', 'gemini', 'opencode', 'amp', 'grok', 'kimi', 'pi', 'qwen', 'copilot', 'demo'];

    const installed: string[] = [];
    for (const agent of candidates) if (await installs(agent)) installed.push(agent);
    expect(installed).toEqual([...HOOK_AGENTS]);
  });

  it('sets only variables the launcher lets through to the agent (anything else would end the launch)', async () => {
    for (const agent of HOOK_AGENTS) {
      const plan = await planFor(agent);

      expect(() => childEnvironment({}, plan.env), agent).not.toThrow();
    }
  });
});
