import { describe, expect, it } from 'vitest';
import { hasCommandLinePrompt } from '../../../src/core/detector/initial-prompt.js';

describe('a prompt on the command line', () => {
  it.each([
    ['claude', ['fix the tests'], true],
    ['claude', ['--model', 'opus', 'fix the tests'], true],
    ['claude', ['--model=opus', 'fix'], true],
    ['claude', ['--model', 'opus'], false],
    ['claude', ['--resume'], false],
    ['claude', ['--continue'], false],
    ['claude', ['mcp', 'list'], false],
    ['claude', [], false],
    ['codex', ['explain this repo'], true],
    ['codex', ['-m', 'o3', 'explain'], true],
    ['codex', ['--no-daemon'], false],
    ['codex', ['resume'], false],
    ['codex', ['-c', 'model=o3'], false],
    ['gemini', ['-i', 'hello'], true],
    ['gemini', ['--prompt-interactive=hello'], true],
    ['gemini', ['-m', 'flash'], false],
    ['opencode', ['--prompt', 'hello'], true],
    ['opencode', ['/some/project'], false],
    ['vim', ['notes.md'], false],
  ] as const)('%s %j → %s', (agent, args, expected) => {
    expect(hasCommandLinePrompt(agent, args)).toBe(expected);
  });
});
