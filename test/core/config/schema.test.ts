import { describe, expect, it } from 'vitest';
import { formatConfigIssue, parseConfig, type ConfigParseResult } from '../../../src/core/config/schema.js';

const PATH = '/home/u/.config/agentwrap/config.toml';
const HOME = '/home/u';

function errorsOf(result: ConfigParseResult): string[] {
  return result.kind === 'invalid' ? result.errors.map(formatConfigIssue) : [];
}

describe('parseConfig', () => {
  it('reads every key, with the line each was set on and ~ expanded', () => {
    const text = `# agentwrap defaults
notify = true
on_state = "notify-send agentwrap"
notify_url = "https://ntfy.sh/my-agents"
state_dir = "/run/user/1000/agent-status"
record_dir = "~/agentwrap-recordings"
record_keep = 20

[hooks]
codex = false
claude = true
`;

    const result = parseConfig(text, PATH, HOME);

    expect(result).toEqual({
      kind: 'ok',
      config: {
        notify: { value: true, line: 2 },
        onState: { value: 'notify-send agentwrap', line: 3 },
        notifyUrl: { value: 'https://ntfy.sh/my-agents', line: 4 },
        stateDir: { value: '/run/user/1000/agent-status', line: 5 },
        recordDir: { value: '/home/u/agentwrap-recordings', line: 6 },
        recordKeep: { value: 20, line: 7 },
        hooks: { codex: { value: false, line: 10 }, claude: { value: true, line: 11 } },
      },
    });
  });

  it.each([
    ['notify_url = "ftp://example.com/x"', `${PATH}:1: notify_url must be an http:// or https:// URL, got ftp:`],
    ['notify_url = "ntfy.sh/topic"', `${PATH}:1: notify_url is not a URL (write it in full: https://ntfy.sh/your-topic)`],
    ['notify_url = 3', `${PATH}:1: notify_url must be a string (an http:// or https:// URL), got an integer`],
    ['notify_url = "file:///etc/passwd"', `${PATH}:1: notify_url must be an http:// or https:// URL, got file:`],
    [`notify_url = "https://a.example/${'x'.repeat(2048)}"`, `${PATH}:1: notify_url is 2066 characters, more than the limit of 2048`],
  ])('refuses a notify_url that is not an http(s) URL: %s', (text, expected) => {
    expect(errorsOf(parseConfig(text, PATH, HOME))).toEqual([expected]);
  });

  it('an empty file is valid and sets nothing', () => {
    expect(parseConfig('', PATH, HOME)).toEqual({ kind: 'ok', config: { notify: undefined, onState: undefined, stateDir: undefined, recordDir: undefined, recordKeep: undefined, hooks: {} } });
  });

  it('finds dotted hook keys at top level', () => {
    const result = parseConfig('notify = false\nhooks.opencode = false\n', PATH, HOME);

    expect(result.kind === 'ok' && result.config.hooks['opencode']).toEqual({ value: false, line: 2 });
  });

  it.each([
    ['notfy = true', `${PATH}:1: unknown key "notfy" (did you mean "notify"?)`],
    ['\n\ncolour = "red"', `${PATH}:3: unknown key "colour" (known: notify, on_state, notify_url, state_dir, record_dir, record_keep, hooks)`],
    ['notify = "yes"', `${PATH}:1: notify must be true or false, got a string`],
    ['on_state = ""', `${PATH}:1: on_state is empty (leave it out to run nothing)`],
    ['on_state = 3', `${PATH}:1: on_state must be a string (a shell command), got an integer`],
    ['record_dir = "recordings"', `${PATH}:1: record_dir "recordings" must be an absolute path or start with ~/`],
    ['state_dir = ["/tmp"]', `${PATH}:1: state_dir must be a string (a directory), got an array`],
    ['record_dir = "/r"\nrecord_keep = 0', `${PATH}:2: record_keep must be a positive integer (recordings kept), got an integer 0`],
    ['record_keep = 5', `${PATH}:1: record_keep without record_dir does nothing (set record_dir too)`],
    ['hooks = true', `${PATH}:1: hooks must be a table of agent = true|false ([hooks] claude = false), got a boolean`],
    ['[hooks]\namp = false', `${PATH}:2: [hooks] names "amp", which has no reporter hooks (agentwrap has hooks for claude, codex, gemini, opencode, qwen)`],
    ['[hooks]\nclaude = "off"', `${PATH}:2: hooks.claude must be true or false, got a string`],
    ['[notify]\nx = 1', `${PATH}:1: notify must be true or false, got a table`],
    ['notify = true\nnotify = false', `${PATH}:2: TOML syntax error at column 1: trying to redefine an already defined value`],
    ['notify = true\non_state = "notify-send done\n', `${PATH}:2: TOML syntax error at column 12: unterminated string (no closing quote before the end of the line)`],
  ])('%j → %s', (text, message) => {
    const errors = errorsOf(parseConfig(text, PATH, HOME));

    expect(errors[0]?.replace(/column \d+: trying to redefine.*/, 'column 1: trying to redefine an already defined value')).toBe(message);
  });

  it('reports every problem, not only the first', () => {
    expect(errorsOf(parseConfig('notfy = true\nrecord_dir = "x"\n[hooks]\nkimi = true', PATH, HOME))).toHaveLength(3);
  });

  it('refuses ~ when there is no home', () => {
    expect(errorsOf(parseConfig('record_dir = "~/r"', PATH, undefined))).toEqual([`${PATH}:1: record_dir "~/r" starts with ~ but HOME is not set`]);
  });
});
