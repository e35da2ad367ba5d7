import { describe, expect, it } from 'vitest';
import { parseDialogField } from '../../../src/core/records/dialog-field.js';
import { createSessionRecord, parseRecord, type SessionRecordInput } from '../../../src/core/records/session-record.js';

const INPUT: SessionRecordInput = {
  ...{ sourceCli: 'demo', sessionId: 's', pid: 10, wrapperPid: 11, cwd: '/w', startedAtMs: 1, updatedAtMs: 2 },
  ...{ state: 'blocked', stateSinceMs: 2, seen: false, stuck: false, winner: 'pack', ruleId: 'permission-dialog', control: '/s.sock' },
};
const DIALOG = { question: 'Do you want to run ls -la?', options: ['Yes', 'No'], digest: '0123456789abcdef' };

describe("the record's dialog", () => {
  it('is written and read back as it was', () => {
    const record = createSessionRecord({ ...INPUT, dialog: DIALOG });

    expect(parseRecord(JSON.parse(JSON.stringify(record)))?.dialog).toEqual(DIALOG);
  });

  it('read from a file another program wrote: escape sequences removed, text bounded', () => {
    const hostile = { ...DIALOG, question: `\u001b]52;c;cHduZWQ=\u0007Approve?${'x'.repeat(1000)}`, options: ['\u009b31mYes', 'No\u202e'] };

    const read = parseRecord({ ...createSessionRecord(INPUT), dialog: hostile })?.dialog;

    expect(read?.question.startsWith('Approve?x')).toBe(true);
    expect(read?.question.length).toBe(300);
    expect(read?.options).toEqual(['Yes', 'No']);
  });

  it.each([
    ['a digest that is not 16 hex digits', { ...DIALOG, digest: 'nope' }],
    ['no options', { ...DIALOG, options: [] }],
    ['an option that is not text', { ...DIALOG, options: ['Yes', 2] }],
    ['ten options', { ...DIALOG, options: Array.from({ length: 10 }, (_, i) => `o${i}`) }],
    ['not an object', 'Yes or No?'],
  ])('%s is dropped, and the record kept', (_what, dialog) => {
    expect(parseDialogField(dialog)).toBeUndefined();
    expect(parseRecord({ ...createSessionRecord(INPUT), dialog })?.state).toBe('blocked');
  });
});
