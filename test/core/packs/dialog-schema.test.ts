import { describe, expect, it } from 'vitest';
import { packErrors, packToml, validPack } from '../../helpers/pack-toml.js';

const BLOCKED = `[[rule]]
id = "dialog"
state = "blocked"
priority = 900
region = "screen"
strength = "strong"
requires_all = ["do you want"]

[[rule]]
id = "spinner"
state = "working"
priority = 100
region = "screen"
strength = "weak"
requires_all = ["esc to interrupt"]
`;

function dialogTable(lines: string): string {
  return `${BLOCKED}\n[[dialog]]\n${lines}\n`;
}

const GOOD = `id = "permission"
rules = ["dialog"]
question = '^(.*\\?)$'
option = '^(?P<key>[1-9])\\. (?P<label>.+)$'`;

describe('[[dialog]] tables', () => {
  it('a valid table is kept with its defaults (whole screen, the key group as the keys)', () => {
    const pack = validPack(packToml(dialogTable(GOOD)));

    expect(pack.dialogs).toEqual([
      expect.objectContaining({ id: 'permission', rules: ['dialog'], region: { kind: 'screen' }, keys: '{key}' }),
    ]);
  });

  it.each([
    ['an option regex without a label group', GOOD.replace('(?P<label>.+)', '(.+)'), /needs a \(\?P<label>…\) group/],
    ['a regex RE2 refuses', GOOD.replace("'^(.*\\?)$'", "'(?=x)'"), /look-ahead/],
    ['a rule that is not blocked', GOOD.replace('["dialog"]', '["spinner"]'), /rule "spinner" is not a blocked rule/],
    ['a rule the pack lacks', GOOD.replace('["dialog"]', '["nope"]'), /no rule "nope" in this pack/],
    ['an unknown key name', `${GOOD}\nkeys = "<escape>"`, /unknown key <escape>/],
    ['an unknown template field', `${GOOD}\nkeys = "{label}"`, /unknown field \{label\}/],
    ['a misspelt key', `${GOOD}\nquestoin = "x"`, /questoin/],
    ['a missing question', GOOD.replace(/question = .*\n/, ''), /dialog needs question/],
  ])('%s is an error naming the dialog and its line', (_what, table, message) => {
    const errors = packErrors(packToml(dialogTable(table)));

    expect(errors.join('\n')).toMatch(message);
    expect(errors.join('\n')).toMatch(/test\.toml:2\d: rule permission:|test\.toml:2\d:/);
  });
});
