import { describe, expect, it } from 'vitest';
import {
  decodeInputMarker,
  decodeProcessSample,
  decodeReport,
  encodeInputMarker,
  encodeProcessSample,
  encodeReport,
  INPUT_MARKER_CODE,
  PROCESS_SAMPLE_CODE,
  REPORT_CODE,
} from '../../../src/core/recordings/recorded-evidence.js';
import { createCastEncoder, decodeRecording, encodeHeader } from '../../../src/core/recordings/recording.js';
import type { ProcessEvidence } from '../../../src/core/types.js';

const HEADER = encodeHeader({ cols: 80, rows: 24, timestamp: 1_790_000_000, command: 'claude', env: {} });

const BUSY: ProcessEvidence = {
  sampled: true,
  cpuRate: 0.437,
  children: [
    { pid: 15958, comm: 'timeout', state: 'S' },
    { pid: 15959, comm: 'sh', state: 'R' },
  ],
  agentState: 'S',
  isStopped: false,
  isZombie: false,
  isForeground: true,
  atMs: 3679.68,
};

describe('process sample lines', () => {
  it('round-trip through the cast encoder and decoder, the line time becoming atMs', () => {
    const encoder = createCastEncoder();
    const text = HEADER + encoder.evidence(3.67968, PROCESS_SAMPLE_CODE, encodeProcessSample(BUSY));
    const { events, notes } = decodeRecording(text, 'x.cast');

    expect(notes).toEqual([]);
    expect(events).toEqual([{ t: 3.67968, kind: PROCESS_SAMPLE_CODE, data: expect.any(String) }]);
    expect(decodeProcessSample(events[0]?.data ?? '', 3679.68)).toEqual(BUSY);
  });

  it('keep an unknown first rate, an unknown foreground and an unsampled tree', () => {
    const first: ProcessEvidence = { ...BUSY, cpuRate: undefined, isForeground: undefined, children: [] };
    expect(decodeProcessSample(encodeProcessSample(first), 3679.68)).toEqual(first);
    const absent: ProcessEvidence = { sampled: false, reason: 'agent pid not known yet' };
    expect(decodeProcessSample(encodeProcessSample(absent), 0)).toEqual(absent);
  });

  it('name what is wrong with a bad sample', () => {
    expect(decodeProcessSample('{"sampled":true,"cpuRate":-1}', 0)).toBe('process sample "cpuRate" is not a rate');
    expect(decodeProcessSample('{"sampled":"yes"}', 0)).toBe('process sample has no boolean "sampled"');
    expect(decodeProcessSample('[1]', 0)).toBe('evidence data is not a JSON object');
    expect(decodeProcessSample('{', 0)).toBe('evidence data is not valid JSON');
    const badChild = encodeProcessSample(BUSY).replace('[15958,"timeout","S"]', '[15958]');
    expect(decodeProcessSample(badChild, 0)).toBe('process sample child is not [pid, comm, state]');
  });
});

describe('report lines', () => {
  const params = { event: 'Notification', agent: 'claude', seq: 7, payload: { hook_event_name: 'Notification' }, sentAtMs: 1_790_000_001_000 };

  it('drop the wall-clock send time and keep how long delivery took', () => {
    const decoded = decodeReport(encodeReport(params, 1_790_000_001_466));
    expect(decoded).toEqual({ params: { event: 'Notification', agent: 'claude', seq: 7, payload: { hook_event_name: 'Notification' } }, deliveryMs: 466 });
  });

  it('have no delivery time when the request carried no send time', () => {
    const { sentAtMs: _sentAtMs, ...unsent } = params;
    expect(decodeReport(encodeReport(unsent, 5))).toEqual({ params: unsent });
  });

  it('name what is wrong with a bad report', () => {
    expect(decodeReport('{"deliveryMs":3}')).toBe('report has no "params" object');
    expect(decodeReport('{"params":{},"deliveryMs":-3}')).toBe('report "deliveryMs" is not a duration');
  });
});

describe('input marker lines', () => {
  const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

  it('keep the size and the kind of a read, never its content', () => {
    expect(JSON.parse(encodeInputMarker(bytes('hunter2\r')))).toEqual({ bytes: 8, source: 'typed', interrupt: false });
    expect(encodeInputMarker(bytes('hunter2\r'))).not.toContain('hunter2');
  });

  it('tell typed keys, an interrupt key, a focus-in and a terminal reply apart, as the detector does', () => {
    const kindOf = (text: string): unknown => decodeInputMarker(encodeInputMarker(bytes(text)));
    expect(kindOf('x')).toEqual({ source: 'typed', isInterrupt: false });
    expect(kindOf('\x1b')).toEqual({ source: 'typed', isInterrupt: true });
    expect(kindOf('\x03')).toEqual({ source: 'typed', isInterrupt: true });
    expect(kindOf('\x1b[I')).toEqual({ source: 'presence', isInterrupt: false });
    expect(kindOf('\x1b[12;40R')).toEqual({ source: 'terminal', isInterrupt: false });
  });

  it('name what is wrong with a bad marker', () => {
    expect(decodeInputMarker('{"bytes":1,"source":"keys","interrupt":false}')).toBe('input marker "source" is not typed, presence or terminal');
    expect(decodeInputMarker('{"bytes":1,"source":"typed"}')).toBe('input marker "interrupt" is not a boolean');
    const { events, notes } = decodeRecording(`${HEADER}[0.1, "${INPUT_MARKER_CODE}", "[]"]\n`, 'm.cast');
    expect(events).toEqual([]);
    expect(notes).toEqual([{ line: 2, message: `${INPUT_MARKER_CODE}: evidence data is not a JSON object; line ignored` }]);
  });
});

describe('decodeRecording with evidence lines', () => {
  it('skips bad evidence lines with their line numbers and keeps everything else', () => {
    const lines = [
      HEADER.trimEnd(),
      '[0.1, "o", "hi"]',
      `[0.2, "${PROCESS_SAMPLE_CODE}", "not json"]`,
      `[0.3, "${REPORT_CODE}", ${JSON.stringify(encodeReport({ event: 'Stop' }, 0))}]`,
      `[0.4, "${REPORT_CODE}", "{\\"params\\":3}"]`,
      '[0.5, "o", "there"]',
    ];
    const { events, notes } = decodeRecording(lines.join('\n') + '\n', 'run.cast');

    expect(events.map((e) => e.kind)).toEqual(['o', REPORT_CODE, 'o']);
    expect(notes).toEqual([
      { line: 3, message: `${PROCESS_SAMPLE_CODE}: evidence data is not valid JSON; line ignored` },
      { line: 5, message: `${REPORT_CODE}: report has no "params" object; line ignored` },
    ]);
  });

  it('never throws on damage to an evidence line, and keeps only samples that decode', () => {
    const good = `[0.2, "${PROCESS_SAMPLE_CODE}", ${JSON.stringify(encodeProcessSample(BUSY))}]`;
    for (let cut = 0; cut < good.length; cut += 3) {
      const damaged = `${good.slice(0, cut)}${good.slice(cut + 2)}`;
      const { events, notes } = decodeRecording(`${HEADER}${damaged}\n[0.3, "o", "x"]\n`, 'd.cast');
      expect(events.at(-1)).toEqual({ t: 0.3, kind: 'o', data: 'x' });
      for (const event of events.filter((e) => e.kind === PROCESS_SAMPLE_CODE)) expect(typeof decodeProcessSample(event.data, 0)).toBe('object');
      // A damaged code is an unknown code (ignored, as asciicast says); any other damage is noted.
      const isCodeIntact = damaged.includes(`"${PROCESS_SAMPLE_CODE}"`);
      if (isCodeIntact && events.length === 1) expect(notes.length).toBe(1);
    }
  });
});

describe('report lines keep only what gating reads', () => {
  it('drop a whole hook payload down to its identifying fields', () => {
    const full = { event: 'UserPromptSubmit', payload: { hook_event_name: 'UserPromptSubmit', prompt: 'my password is hunter2', session_id: 'abc' } };
    const data = encodeReport(full, 0);
    expect(data).not.toContain('hunter2');
    expect(decodeReport(data)).toEqual({ params: { event: 'UserPromptSubmit', payload: { hook_event_name: 'UserPromptSubmit', session_id: 'abc' } } });
  });
});
