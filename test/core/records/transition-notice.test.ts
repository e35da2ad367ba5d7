import { describe, expect, it } from 'vitest';
import { transitionNoticeBody, WEBHOOK_BODY_MAX_BYTES, type TransitionNotice } from '../../../src/core/records/transition-notice.js';

const BASE: TransitionNotice = { agent: 'codex', session: 'codex-7', state: 'working', previous: 'idle', host: 'box', cwd: '/src/app', time: '2023-11-14T22:13:20.000Z' };

describe('transitionNoticeBody', () => {
  it('absent facts are null; text is the line a phone shows', () => {
    const body = JSON.parse(transitionNoticeBody({ ...BASE, state: 'blocked', reason: 'usage-limit', until: '2023-11-14T23:13:20.000Z', question: 'Run ls?', options: ['Yes', 'No'] }));
    expect(body).toMatchObject({ reason: 'usage-limit', until: '2023-11-14T23:13:20.000Z', question: 'Run ls?', options: ['Yes', 'No'], text: 'codex needs you (usage-limit): Run ls?' });
    expect(JSON.parse(transitionNoticeBody(BASE))).toMatchObject({ reason: null, until: null, question: null, options: null, text: 'codex is working' });
  });

  it('strips escape sequences and controls from what the agent drew', () => {
    const body = JSON.parse(transitionNoticeBody({ ...BASE, question: 'Allow\x1b]52;c;ZXZpbA==\x07 this?\nreally', options: ['\x9b31mYes'] }));
    expect(body.question).toBe('Allow this? really');
    expect(body.options).toEqual(['Yes']);
  });

  it('stays under WEBHOOK_BODY_MAX_BYTES with every field at its worst (4-byte characters, quotes, ten options)', () => {
    const worst = (n: number): string => '😀"\\'.repeat(n);
    const body = transitionNoticeBody({ ...BASE, agent: worst(500), session: worst(500), reason: worst(500), question: worst(5000), options: Array(20).fill(worst(500)), host: worst(500), cwd: worst(5000) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(WEBHOOK_BODY_MAX_BYTES);
    expect(JSON.parse(body).options).toHaveLength(9);
  });
});
