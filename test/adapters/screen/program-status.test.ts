import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/adapters/clock.js';
import {
  createScreen,
  parseProgramStatus,
  PROGRAM_STATUS_MAX_MSG_CHARS,
  PROGRAM_STATUS_MAX_VALUE_CHARS,
  type Screen,
} from '../../../src/adapters/screen/index.js';

const created: Screen[] = [];
afterEach(() => {
  for (const s of created.splice(0)) s.dispose();
});

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function report(data: string): ReturnType<typeof parseProgramStatus> & { kind: 'report' } {
  const parsed = parseProgramStatus(data, 7);
  if (parsed.kind !== 'report') throw new Error(`expected a report from ${JSON.stringify(data)}, got ${parsed.kind}`);
  return parsed;
}

describe('parseProgramStatus (OSC 7501, after "7501;")', () => {
  it('reads every key Codex and Claude Code send, msg decoded from base64', () => {
    const { status } = report(`state=blocked:app=claude-code:kind=permission:progress=40:msg=${b64('Run rm -rf build?')}:id=t-1`);

    expect(status).toEqual({ state: 'blocked', kind: 'permission', progress: 40, id: 't-1', app: 'claude-code', msg: 'Run rm -rf build?', atMs: 7 });
  });

  it('takes each state Codex 0.171.0 writes; clear is no report; a probe, a missing or unknown state says nothing', () => {
    for (const state of ['working', 'blocked', 'done', 'idle', 'error']) expect(report(`state=${state}:app=codex`).status.state).toBe(state);

    expect(parseProgramStatus('state=clear', 7)).toEqual({ kind: 'clear' });
    expect(parseProgramStatus('?', 7)).toEqual({ kind: 'ignored' });
    expect(parseProgramStatus('app=codex', 7)).toEqual({ kind: 'ignored' });
    expect(parseProgramStatus('state=dancing:app=codex', 7)).toEqual({ kind: 'ignored' });
    expect(parseProgramStatus('state=__proto__', 7)).toEqual({ kind: 'ignored' });
  });

  it('clamps progress to 0–100 and drops one that is not a number', () => {
    expect(report('state=working:progress=250').status.progress).toBe(100);
    expect(report('state=working:progress=-5').status.progress).toBe(0);
    expect(report('state=working:progress=12.5').status.progress).toBe(12);
    expect(report('state=working:progress=lots').status.progress).toBeUndefined();
    expect(report('state=working:progress=99999999999999').status.progress).toBeUndefined();
  });

  it('ignores unknown keys and keeps the first of a repeated key', () => {
    const { status } = report('colour=red:state=idle:state=working:app=codex:app=evil');

    expect(status).toMatchObject({ state: 'idle', app: 'codex' });
    expect(Object.keys(status)).not.toContain('colour');
  });

  it('bounds hostile values: control characters become spaces, overlong values are cut', () => {
    const escapes = report(`state=blocked:kind=perm\x1b[31mission\x07:msg=${b64(`Allow?\x1b]0;pwned\x07\r\n${'x'.repeat(1000)}`)}:app=${'a'.repeat(10_000)}`).status;

    expect(escapes.kind).toBe('perm [31mission');
    expect(escapes.app).toHaveLength(PROGRAM_STATUS_MAX_VALUE_CHARS);
    expect(escapes.msg?.startsWith('Allow? ]0;pwned x')).toBe(true);
    expect([...(escapes.msg ?? '')]).toHaveLength(PROGRAM_STATUS_MAX_MSG_CHARS);
    expect(escapes.msg).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('drops a msg that is not base64 and an empty value, and reads only the head of a megabyte sequence', () => {
    expect(report('state=blocked:msg=not base64!:kind=').status).toMatchObject({ msg: undefined, kind: undefined });
    const huge = report(`state=working:app=codex:junk=${'z'.repeat(1_000_000)}:progress=50`).status;

    expect(huge).toMatchObject({ state: 'working', app: 'codex', progress: undefined });
  });
});

describe('OSC 7501 through the mirror', () => {
  it('keeps the last report with its arrival time, replaces it on a repeat, and forgets it on state=clear', async () => {
    const clock = manualClock(1_000);
    const screen = createScreen({ cols: 40, rows: 10, clock });
    created.push(screen);

    await screen.write('\x1b]7501;state=working:app=codex\x1b\\');
    expect(screen.evidence().programStatus).toMatchObject({ state: 'working', app: 'codex', atMs: 1_000 });

    clock.advanceBy(250);
    await screen.write('\x1b]7501;state=working:app=codex\x07');
    expect(screen.evidence().programStatus?.atMs).toBe(1_250);

    await screen.write('\x1b]7501;?\x07\x1b]7501;state=bogus\x07');
    expect(screen.evidence().programStatus).toMatchObject({ state: 'working', atMs: 1_250 });

    await screen.write('\x1b]7501;state=clear\x1b\\');
    expect(screen.evidence().programStatus).toBeUndefined();
    expect(screen.view().rows.join('')).toBe('');
  });
});
