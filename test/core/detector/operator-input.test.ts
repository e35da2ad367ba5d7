import { describe, expect, it } from 'vitest';
import { inputSource, isInterruptKey, isOperatorInput } from '../../../src/core/detector/operator-input.js';

const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

describe('operator input vs terminal replies', () => {
  // What tmux 3.3a answers to the queries Codex sends at start (recordings/codex/startup-*.cast
  // header: CSI c, CSI 6n, OSC 10/11 ?, CSI ? u, DECRQM 1007), and what it reports on its own.
  it.each([
    ['DA1', '\x1b[?1;2c'],
    ['DA2', '\x1b[>84;0;0c'],
    ['cursor position', '\x1b[12;1R'],
    ['OSC 10 colour (ST)', '\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\'],
    ['OSC 11 colour (BEL)', '\x1b]11;rgb:0000/0000/0000\x07'],
    ['kitty keyboard flags', '\x1b[?0u'],
    ['DECRPM', '\x1b[?1007;2$y'],
    ['XTVERSION', '\x1bP>|tmux 3.3a\x1b\\'],
    ['window size', '\x1b[8;24;80t'],
    ['focus in', '\x1b[I'],
    ['focus out', '\x1b[O'],
    ['SGR mouse motion', '\x1b[<35;10;5M'],
    ['several replies in one read', '\x1b[?1;2c\x1b[12;1R\x1b]11;rgb:0000/0000/0000\x07'],
  ])('%s is not typing', (_name, reply) => {
    expect(isOperatorInput(bytes(reply))).toBe(false);
  });

  it.each([
    ['a letter', 'h'],
    ['Enter', '\r'],
    ['Ctrl-C', '\x03'],
    ['Escape', '\x1b'],
    ['an arrow key', '\x1b[A'],
    ['application-mode arrow', '\x1bOB'],
    ['Delete', '\x1b[3~'],
    ['a bracketed paste', '\x1b[200~fix the tests\x1b[201~'],
    ['a kitty-encoded key', '\x1b[97;5u'],
    ['a reply followed by a key', '\x1b[I' + 'y'],
  ])('%s is typing', (_name, key) => {
    expect(isOperatorInput(bytes(key))).toBe(true);
  });
});

describe('input source: typed, presence, terminal', () => {
  it.each([
    ['a key', 'y', 'typed'],
    ['a reply then a key', '\x1b[?1;2cy', 'typed'],
    ['focus in', '\x1b[I', 'presence'],
    ['SGR mouse press', '\x1b[<0;10;5M', 'presence'],
    ['a reply then focus in', '\x1b[12;1R\x1b[I', 'presence'],
    ['focus out', '\x1b[O', 'terminal'],
    ['DA1 and a colour reply', '\x1b[?1;2c\x1b]11;rgb:0000/0000/0000\x07', 'terminal'],
    ['XTVERSION', '\x1bP>|tmux 3.3a\x1b\\', 'terminal'],
  ])('%s is %s', (_name, input, source) => {
    expect(inputSource(bytes(input))).toBe(source);
  });
});

describe('interrupt keys', () => {
  const bytes = (s: string) => Buffer.from(s, 'latin1');

  it('knows a bare Esc and Ctrl-C, also as the kitty keyboard protocol sends them', () => {
    for (const key of ['\x1b', '\x03', '\x1b[27u', '\x1b[27;1:1u', '\x1b[99;5u', '\x1b[99;5:1u']) expect(isInterruptKey(bytes(key))).toBe(true);
  });

  it('does not take typing, arrows, Enter, a pasted escape or a key release for one', () => {
    for (const key of ['a', '\r', '\x1b[A', '\x1bx', 'hello\x1b', '\x1b[27;1:3u', '\x1b[99;5:3u']) expect(isInterruptKey(bytes(key))).toBe(false);
  });
});
