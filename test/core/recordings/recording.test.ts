import { describe, expect, it } from 'vitest';
import {
  RecordingFormatError,
  commandBasename,
  createCastEncoder,
  createUtf8StreamDecoder,
  decodeRecording,
  encodeEvent,
  encodeHeader,
  formatCommand,
  parseResize,
  pickRecordedEnv,
  recordingDuration,
} from '../../../src/core/recordings/recording.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

const HEADER = {
  cols: 100,
  rows: 30,
  timestamp: 1_790_000_000.75,
  command: 'claude --model opus',
  env: { TERM: 'xterm-256color' },
};

describe('encodeHeader', () => {
  it('writes a v2 header line with size, whole-second timestamp, command and env', () => {
    const line = encodeHeader({ ...HEADER, title: 'demo' });

    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      version: 2,
      width: 100,
      height: 30,
      timestamp: 1_790_000_000,
      command: 'claude --model opus',
      title: 'demo',
      env: { TERM: 'xterm-256color' },
    });
  });

  it('leaves the title out when there is none', () => {
    expect(JSON.parse(encodeHeader(HEADER))).not.toHaveProperty('title');
  });

  it('names the pack the session used under "agentwrap", and reads it back', () => {
    const line = encodeHeader({ ...HEADER, pack: { agent: 'demo', digest: '095388d21f182969' } });

    expect(JSON.parse(line)).toMatchObject({ agentwrap: { agent: 'demo', pack_digest: '095388d21f182969' } });
    expect(decodeRecording(line).header.pack).toEqual({ agent: 'demo', digest: '095388d21f182969' });
    expect(decodeRecording(encodeHeader({ ...HEADER, pack: { agent: 'demo' } })).header.pack).toEqual({ agent: 'demo' });
  });

  it('ignores an unusable "agentwrap" header field, as it would any unknown field', () => {
    for (const agentwrap of [3, {}, { agent: '' }, { agent: 7 }]) {
      const line = `${JSON.stringify({ version: 2, width: 80, height: 24, agentwrap })}\n`;
      expect(decodeRecording(line).header).not.toHaveProperty('pack');
    }
  });
});

describe('encodeEvent', () => {
  it('writes seconds with exactly six decimals', () => {
    expect(encodeEvent(1.5, 'o', 'hi')).toBe('[1.500000, "o", "hi"]\n');
    expect(encodeEvent(0.1234567, 'm', 'x')).toBe('[0.123457, "m", "x"]\n');
  });
});

describe('v2 round trip', () => {
  it('decodes exactly what the encoder wrote, control characters and odd text included', () => {
    const encoder = createCastEncoder();
    const tricky = 'esc \u001b[31mred\u001b[0m, tab\t, nul \u0000, quote " backslash \\, emoji 😀, lone \ud800 surrogate';
    const text =
      encoder.header(HEADER) +
      encoder.output(0.25, bytes('hello\r\n')) +
      encoder.input(0.5, bytes('y')) +
      encoder.resize(1, 120, 40) +
      encoder.marker(1.000001, 'turn 2') +
      encodeEvent(2, 'o', tricky);

    const recording = decodeRecording(text, 'a.cast');

    expect(recording.notes).toEqual([]);
    expect(recording.header).toEqual({
      version: 2,
      cols: 100,
      rows: 30,
      timestamp: 1_790_000_000,
      command: 'claude --model opus',
      env: { TERM: 'xterm-256color' },
    });
    expect(recording.events).toEqual([
      { t: 0.25, kind: 'o', data: 'hello\r\n' },
      { t: 0.5, kind: 'i', data: 'y' },
      { t: 1, kind: 'r', data: '120x40' },
      { t: 1.000001, kind: 'm', data: 'turn 2' },
      { t: 2, kind: 'o', data: tricky },
    ]);
    expect(recordingDuration(recording)).toBe(2);
  });

  it('never writes a time earlier than the one before it', () => {
    const encoder = createCastEncoder();

    const lines = [encoder.marker(2, 'a'), encoder.marker(1.5, 'b'), encoder.marker(Number.NaN, 'c'), encoder.marker(3, 'd')];

    expect(lines.map((line) => (JSON.parse(line) as unknown[])[0])).toEqual([2, 2, 2, 3]);
  });
});

describe('the writer-side UTF-8 decoder', () => {
  it('carries a character split across chunks to the next event instead of mangling it', () => {
    const encoder = createCastEncoder();
    const whole = bytes('a€b😀c');
    // '€' is 3 bytes (1..3), '😀' is 4 bytes (5..8): split inside both.
    const chunks = [whole.slice(0, 2), whole.slice(2, 6), whole.slice(6, 7), whole.slice(7)];

    const lines = chunks.map((chunk, index) => encoder.output(index, chunk));
    const recording = decodeRecording(encoder.header(HEADER) + lines.join(''));

    expect(recording.events.map((event) => event.data)).toEqual(['a', '€b', '😀c']);
    expect(recording.events.map((event) => event.t)).toEqual([0, 1, 3]);
    expect(lines[2]).toBe('');
  });

  it('turns bytes still held back at the end into U+FFFD when finished', () => {
    const encoder = createCastEncoder();
    const first = encoder.output(0, new Uint8Array([0x41, 0xe2, 0x82]));

    const tail = encoder.finish(1);

    expect(JSON.parse(first)).toEqual([0, 'o', 'A']);
    expect(JSON.parse(tail)).toEqual([1, 'o', '\ufffd']);
  });

  it('decodes each chunk on its own stream so input bytes never complete an output character', () => {
    const decoder = createUtf8StreamDecoder();

    expect(decoder.decode(new Uint8Array([0xf0, 0x9f]))).toBe('');
    expect(decoder.decode(new Uint8Array([0x98, 0x80]))).toBe('😀');
    expect(decoder.flush()).toBe('');
  });
});

describe('v3 decoding', () => {
  it('sums intervals into absolute times and keeps x, skips comments and unknown codes', () => {
    const text = [
      '{"version":3,"term":{"cols":80,"rows":24,"type":"xterm-256color"},"timestamp":1700000000,"command":"codex"}',
      '# a comment line',
      '[0.1, "o", "a"]',
      '[0.2, "o", "b"]',
      '[0.05, "z", "from the future"]',
      '[0.3, "r", "90x30"]',
      '[1.0, "x", "0"]',
      '',
    ].join('\n');

    const recording = decodeRecording(text, 'v3.cast');

    expect(recording.header).toEqual({
      version: 3,
      cols: 80,
      rows: 24,
      timestamp: 1_700_000_000,
      command: 'codex',
      env: { TERM: 'xterm-256color' },
    });
    expect(recording.events).toEqual([
      { t: 0.1, kind: 'o', data: 'a' },
      { t: 0.3, kind: 'o', data: 'b' },
      { t: 0.65, kind: 'r', data: '90x30' },
      { t: 1.65, kind: 'x', data: '0' },
    ]);
    expect(recording.notes).toEqual([]);
  });

  it('treats a negative interval as zero, with a note', () => {
    const recording = decodeRecording('{"version":3,"term":{"cols":80,"rows":24}}\n[1, "o", "a"]\n[-2, "o", "b"]\n');

    expect(recording.events.map((event) => event.t)).toEqual([1, 1]);
    expect(recording.notes).toEqual([{ line: 3, message: 'negative interval -2 treated as 0' }]);
  });
});

describe('damaged recordings', () => {
  it('keeps every event before a truncated last line and notes the line', () => {
    const text = `${encodeHeader(HEADER)}[0.100000, "o", "one"]\n[0.200000, "o", "two"]\n[0.30000`;

    const recording = decodeRecording(text, 'crash.cast');

    expect(recording.events.map((event) => event.data)).toEqual(['one', 'two']);
    expect(recording.notes).toHaveLength(1);
    expect(recording.notes[0]?.line).toBe(4);
    expect(recording.notes[0]?.message).toMatch(/^truncated last line ignored/);
  });

  it('skips a bad line in the middle with a note naming its line', () => {
    const text = `${encodeHeader(HEADER)}[0.1, "o", "one"]\nnot json\n[0.2, "o"]\n[0.3, 5, "x"]\n[0.4, "o", "four"]\n`;

    const recording = decodeRecording(text);

    expect(recording.events.map((event) => event.data)).toEqual(['one', 'four']);
    expect(recording.notes.map((note) => note.line)).toEqual([3, 4, 5]);
    expect(recording.notes.every((note) => note.message.endsWith('line ignored'))).toBe(true);
  });

  it('clamps a v2 time that goes backwards, with a note', () => {
    const recording = decodeRecording(`${encodeHeader(HEADER)}[2, "o", "a"]\n[1, "o", "b"]\n`);

    expect(recording.events.map((event) => event.t)).toEqual([2, 2]);
    expect(recording.notes[0]).toEqual({ line: 3, message: 'time 1 goes backwards; clamped to 2' });
  });

  it.each([
    ['', 'empty file'],
    ['{"version":2,"width":80', 'header is not JSON'],
    ['[1, "o", "x"]', 'header is not a JSON object'],
    ['{"version":1,"width":80,"height":24}', 'unsupported asciicast version 1'],
    ['{"version":2,"width":0,"height":24}', 'header "width"/"height" must be positive integers'],
    ['{"version":3,"cols":80}', 'v3 header has no "term" object'],
  ])('rejects the unusable header %j with an error naming the file and line', (text, problem) => {
    expect(() => decodeRecording(text, 'bad.cast')).toThrow(RecordingFormatError);
    expect(() => decodeRecording(text, 'bad.cast')).toThrow(`bad.cast:1: ${problem}`);
  });
});

describe('helpers', () => {
  it.each([
    ['claude', 'claude'],
    ['/usr/local/bin/codex exec --full-auto', 'codex'],
    ["'/opt/my tools/gemini' -p hi", 'gemini'],
    ['   ', undefined],
  ])('commandBasename(%j) is %j', (command, expected) => {
    expect(commandBasename(command)).toBe(expected);
  });

  it('formats argv so the basename survives and spaces are quoted', () => {
    const command = formatCommand(['/opt/my tools/claude', '--append', "it's"]);

    expect(command).toBe(`'/opt/my tools/claude' --append 'it'\\''s'`);
    expect(commandBasename(command)).toBe('claude');
  });

  it('parses resize data and rejects nonsense', () => {
    expect(parseResize('120x40')).toEqual({ cols: 120, rows: 40 });
    expect(parseResize('0x40')).toBeUndefined();
    expect(parseResize('wide')).toBeUndefined();
  });

  it('keeps only terminal identity from the environment', () => {
    expect(pickRecordedEnv({ TERM: 'xterm', SHELL: '/bin/zsh', API_KEY: 'secret', HOME: '/root' })).toEqual({
      TERM: 'xterm',
      SHELL: '/bin/zsh',
    });
  });
});
