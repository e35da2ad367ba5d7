import { describe, expect, it } from 'vitest';
import { forHtml, forJson, forMarkup, forTerminal, toJson } from '../../../src/core/text/sanitize.js';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('forTerminal', () => {
  it('removes escape sequences whole, payload included', () => {
    expect(forTerminal('a\u001b]52;c;aGVsbG8=\u0007b')).toBe('ab');
    expect(forTerminal('a\u001b]0;pwned\u001b\\b')).toBe('ab');
    expect(forTerminal('a\u001b[?1049lb')).toBe('ab');
    expect(forTerminal('a\u009b31mb')).toBe('ab');
    expect(forTerminal('a\u001b[3J\u001b[2Jb')).toBe('ab');
  });

  it('removes C0, DEL, C1 and bidi controls; line breaks become spaces', () => {
    const out = forTerminal('x\u0007\u007f\u0085\u202eevil\u2066y\nz\tw');
    expect(out).not.toMatch(CONTROL);
    expect(out).toBe('x evily z w');
  });

  it('keeps line breaks when asked', () => {
    expect(forTerminal('one\u001b[2J\r\ntwo\u0007', { multiline: true })).toBe('one\ntwo');
  });

  it('leaves plain and wide text alone', () => {
    expect(forTerminal('plain text')).toBe('plain text');
    expect(forTerminal('漢字 café')).toBe('漢字 café');
  });
});

describe('forJson', () => {
  it('writes C1, DEL and bidi controls as escapes that read back the same', () => {
    const value = { title: 'a\u009b2Jb\u202ec\u2066d\u007fe\u2028' };
    const text = toJson(value);
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('\\u009b');
    expect(text).toContain('\\u202e');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('changes nothing in plain JSON', () => {
    const text = JSON.stringify({ a: 'b', c: [1, '漢'] }, null, 2);
    expect(forJson(text)).toBe(text);
  });
});

describe('forHtml', () => {
  it('escapes markup characters and drops controls', () => {
    expect(forHtml('<b a="1">&\u202e\u0007</b>')).toBe('&#60;b a=&#34;1&#34;&#62;&#38;&#60;/b&#62;');
  });
});

describe('forMarkup', () => {
  it('escapes what notify-send reads as markup and drops controls', () => {
    expect(forMarkup('<a href="x">click</a> & \u001b]0;t\u0007\u202e')).toBe('&lt;a href="x"&gt;click&lt;/a&gt; &amp; ');
  });
});
