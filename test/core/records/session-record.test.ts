import { describe, expect, it } from 'vitest';
import {
  createHeartbeat,
  createSessionRecord,
  DEFAULT_RECORD_TTL_MS,
  isLive,
  isRecordLive,
  KEY_MAX_CHARS,
  parseConventionRecord,
  parseHeartbeat,
  parsePublishedRecord,
  parseRecord,
  recordKey,
  refreshIntervalMs,
  sanitizeTitle,
  TITLE_MAX_UNITS,
  type SessionRecordInput,
} from '../../../src/core/records/session-record.js';

const NOW = 1_784_200_000_000;

function input(overrides: Partial<SessionRecordInput> = {}): SessionRecordInput {
  return {
    sourceCli: 'claude',
    sessionId: 'abc123',
    pid: 4321,
    wrapperPid: 4320,
    cwd: '/home/user/repo',
    startedAtMs: NOW - 60_000,
    updatedAtMs: NOW,
    state: 'working',
    stateSinceMs: NOW - 5_000,
    seen: true,
    stuck: false,
    winner: 'pack',
    ruleId: 'spinner',
    control: '/run/user/1000/agent-status/sockets/claude-abc123.sock',
    ...overrides,
  };
}

/** A record as it travels through a file. */
function roundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

describe('sanitizeTitle', () => {
  it.each([
    ['plain text stays', 'Fix the tests', 'Fix the tests'],
    ['C0 controls are removed', 'a\u0000b\u0007c\u007fd', 'abcd'],
    ['C1 controls are removed', 'a\u0080b\u0099c', 'abc'],
    ['line breaks and tabs become single spaces', 'one\r\ntwo\tthree', 'one two three'],
    ['CSI sequences are removed whole', 'red \u001b[31;1mtext\u001b[0m', 'red text'],
    ['OSC ended by BEL is removed whole', 'a\u001b]0;evil title\u0007b', 'ab'],
    ['OSC ended by ST is removed whole', 'a\u001b]8;;https://x.example\u001b\\link\u001b]8;;\u001b\\', 'alink'],
    ['an unterminated OSC swallows the rest', 'ok \u001b]52;c;SGVsbG8=', 'ok'],
    ['8-bit CSI is removed whole', 'a\u009b2Jb', 'ab'],
    ['DCS strings are removed whole', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['two-byte escapes are removed', 'a\u001bcb\u001b7c', 'abc'],
    ['bidi overrides and isolates are removed', 'abc\u202edcba\u202c \u2066x\u2069 \u200e\u200f\u061c', 'abcdcba x'],
    ['unpaired surrogates are removed', 'a\ud800b\udc00c', 'abc'],
    ['surrounding and repeated spaces collapse', '  a   b  ', 'a b'],
  ])('%s', (_name, raw, expected) => {
    expect(sanitizeTitle(raw)).toBe(expected);
  });

  it('bounds a long title to the limit', () => {
    const title = sanitizeTitle('x'.repeat(10_000));

    expect(title.length).toBe(TITLE_MAX_UNITS);
  });

  it('never splits a grapheme at the bound', () => {
    const family = '👨‍👩‍👧‍👦'; // 11 code units, one grapheme
    const raw = `${'a'.repeat(250)}${family}tail`;

    const title = sanitizeTitle(raw);

    expect(title).toBe('a'.repeat(250));
  });

  it('keeps a whole grapheme that fits and counts code units, not code points', () => {
    const raw = `${'a'.repeat(240)}${'é'.normalize('NFD')}${'🙂'.repeat(20)}`;

    const title = sanitizeTitle(raw);

    expect(title.length).toBeLessThanOrEqual(TITLE_MAX_UNITS);
    expect(title.startsWith(`${'a'.repeat(240)}e\u0301`)).toBe(true);
    expect(title.endsWith('🙂')).toBe(true);
  });

  it('takes a custom bound', () => {
    expect(sanitizeTitle('abcdef', 3)).toBe('abc');
  });
});

describe('recordKey', () => {
  it.each([
    ['session id', 'grok', 'abc123', 'grok-abc123'],
    ['pid fallback', 'claude', 4321, 'claude-pid4321'],
    ['path separators are replaced', 'claude', '../../etc/passwd', 'claude-.._.._etc_passwd'],
    ['spaces, unicode and colons are replaced', 'co dex', 'a:b/é', 'co_dex-a_b__'],
  ])('%s', (_name, cli, id, expected) => {
    expect(recordKey(cli, id)).toBe(expected);
  });

  it('bounds a long key and keeps two long ids distinct', () => {
    const a = recordKey('claude', `${'x'.repeat(300)}a`);
    const b = recordKey('claude', `${'x'.repeat(300)}b`);

    expect(a.length).toBeLessThanOrEqual(KEY_MAX_CHARS);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9._-]+$/);
  });
});

describe('createSessionRecord', () => {
  it('fills every required field of the convention and agentwrap additions', () => {
    const record = createSessionRecord(input({ title: 'Fixing \u001b[1mtests\u001b[0m\u202e' }));

    expect(record).toMatchObject({
      schema: 1,
      source_cli: 'claude',
      session_id: 'abc123',
      pid: 4321,
      model: 'unknown',
      model_source: 'unknown',
      written_by: 'agentwrap',
      updated_at: NOW,
      ttl_ms: DEFAULT_RECORD_TTL_MS,
      title: 'Fixing tests',
      wrapper_pid: 4320,
    });
  });

  it('omits an empty title instead of publishing an empty string', () => {
    expect('title' in createSessionRecord(input({ title: '\u001b]0;\u0007' }))).toBe(false);
  });

  it('publishes the winning rule\'s reason when it has one, and no reason field otherwise', () => {
    expect(createSessionRecord(input({ state: 'done', ruleId: 'api-error', reason: 'api-error' })).reason).toBe('api-error');
    expect('reason' in createSessionRecord(input())).toBe(false);
  });

  it('keeps the model and its source when one is known', () => {
    const record = createSessionRecord(input({ model: 'opus', modelSource: 'argv' }));

    expect([record.model, record.model_source]).toEqual(['opus', 'argv']);
  });
});

describe('parseRecord', () => {
  it('reads back what createSessionRecord wrote', () => {
    const record = createSessionRecord(input({ title: 'hello', agentVersion: '2.1.3' }));

    expect(parseRecord(roundTrip(record))).toEqual(record);
  });

  it.each([
    ['not an object', 'hello'],
    ['null', null],
    ['an array', [1, 2]],
    ['schema 2', { schema: 2 }],
    ['a missing state', { state: undefined }],
    ['an unknown state', { state: 'sleeping' }],
    ['a string pid', { pid: '4321' }],
    ['a negative ttl', { ttl_ms: -1 }],
    ['a missing control path', { control: undefined }],
    ['a numeric title', { title: 42 }],
    ['an unknown model source', { model_source: 'guess' }],
    ['a missing wrapper pid', { wrapper_pid: undefined }],
  ])('treats a record with %s as absent', (_name, patch) => {
    const base = roundTrip(createSessionRecord(input())) as Record<string, unknown>;
    const json = patch !== null && typeof patch === 'object' && !Array.isArray(patch) ? roundTrip({ ...base, ...patch }) : patch;

    expect(parseRecord(json)).toBeUndefined();
  });

  it('treats another writer’s record as not agentwrap’s', () => {
    const foreign = { ...(roundTrip(createSessionRecord(input())) as object), written_by: 'token-oracle' };

    expect(parseRecord(foreign)).toBeUndefined();
    expect(parsePublishedRecord(foreign)?.kind).toBe('other');
  });

  it('reads a reason back, and drops a malformed one without dropping the record', () => {
    const record = createSessionRecord(input({ reason: 'api-error' }));
    const base = roundTrip(record) as Record<string, unknown>;

    expect(parseRecord(base)?.reason).toBe('api-error');
    expect(parseRecord({ ...base, reason: 42 })).toMatchObject({ rule_id: 'spinner' });
    expect(parseRecord({ ...base, reason: 42 })?.reason).toBeUndefined();
    expect(parseRecord({ ...base, reason: 'a\u001b[2Jb' })?.reason).toBe('ab');
  });

  it('sanitizes a title again when reading a file it did not write', () => {
    const json = { ...(roundTrip(createSessionRecord(input())) as object), title: 'x\u001b[2Jy' };

    expect(parseRecord(json)?.title).toBe('xy');
  });
});

describe('parseConventionRecord', () => {
  const armory = {
    schema: 1,
    source_cli: 'grok',
    session_id: 'abc123',
    pid: 4321,
    cwd: '/home/user/repo',
    model: 'grok-4.5',
    effort: 'high',
    preset: 'grok-high',
    written_by: 'llm-armory',
    started_at: 1784200000000,
    updated_at: 1784200100000,
    ttl_ms: 60000,
  };

  it('reads the convention’s example record', () => {
    expect(parseConventionRecord(armory)).toEqual(armory);
  });

  it('ignores unknown fields (additive-only schema)', () => {
    expect(parseConventionRecord({ ...armory, future_field: [1] })).toEqual(armory);
  });

  it.each([
    ['schema 2 (schema-1 readers ignore it)', { schema: 2 }],
    ['no model', { model: undefined }],
    ['no written_by', { written_by: undefined }],
    ['no timestamp at all', { updated_at: undefined, started_at: undefined }],
    ['a non-numeric updated_at', { updated_at: 'now' }],
    ['a zero ttl', { ttl_ms: 0 }],
  ])('treats a record with %s as absent', (_name, patch) => {
    expect(parseConventionRecord(roundTrip({ ...armory, ...patch }))).toBeUndefined();
  });
});

describe('lease', () => {
  const record = { ...createSessionRecord(input({ updatedAtMs: NOW, ttlMs: 10_000 })) };

  it('is live strictly before updated_at + ttl_ms', () => {
    expect(isLive(record, NOW + 9_999)).toBe(true);
    expect(isLive(record, NOW + 10_000)).toBe(false);
  });

  it('counts a start in the future from the last write when known, else from now', () => {
    const yearAhead = { ...record, updated_at: NOW + 365 * 86_400_000 };

    expect(isLive(yearAhead, NOW + 9_999, NOW)).toBe(true);
    expect(isLive(yearAhead, NOW + 10_000, NOW)).toBe(false);
    expect(isLive(yearAhead, NOW + 10_000)).toBe(true);
    // A write stamped after now by this clock (a clock step) counts as now.
    expect(isLive(yearAhead, NOW, NOW + 60_000)).toBe(true);
  });

  it('falls back to ts, then started_at, when updated_at is missing', () => {
    const base = { schema: 1, source_cli: 'x', session_id: 's', model: 'm', written_by: 'w', ttl_ms: 1_000 } as const;

    expect(isLive({ ...base, ts: NOW }, NOW + 500)).toBe(true);
    expect(isLive({ ...base, started_at: NOW }, NOW + 1_500)).toBe(false);
  });

  it('drops a fresh agentwrap record whose wrapper is dead, and checks the wrapper, not the agent', () => {
    const published = parsePublishedRecord(roundTrip(record));
    if (published === undefined) throw new Error('record did not parse');
    const checked: number[] = [];

    const alive = isRecordLive(published, NOW, (pid) => {
      checked.push(pid);
      return false;
    });

    expect(alive).toBe(false);
    expect(checked).toEqual([4320]);
  });

  it('checks another writer’s pid, and skips the check when it has none', () => {
    const base = { schema: 1, source_cli: 'x', session_id: 's', model: 'm', written_by: 'w', ttl_ms: 1_000, updated_at: NOW } as const;

    expect(isRecordLive({ kind: 'other', record: { ...base, pid: 77 } }, NOW, (pid) => pid !== 77)).toBe(false);
    expect(isRecordLive({ kind: 'other', record: base }, NOW, () => false)).toBe(true);
  });

  it('refreshes three times per lease, inside the convention’s ttl/2', () => {
    expect(refreshIntervalMs(15_000)).toBe(5_000);
  });
});

describe('heartbeat', () => {
  it('round-trips with the convention’s fields', () => {
    const heartbeat = createHeartbeat(99, NOW, 30_000);

    expect(parseHeartbeat(roundTrip(heartbeat))).toEqual({ ...heartbeat, capabilities: [...(heartbeat.capabilities ?? [])] });
    expect(heartbeat).toMatchObject({ schema: 1, tool: 'agentwrap', pid: 99, ts: NOW, ttl_ms: 30_000 });
  });

  it('treats a heartbeat with non-string capabilities as absent', () => {
    expect(parseHeartbeat({ schema: 1, tool: 't', pid: 1, ts: NOW, ttl_ms: 1, capabilities: [1] })).toBeUndefined();
  });
});
