import { describe, expect, it } from 'vitest';
import { loadNativeRelay } from '../../../src/adapters/relay.js';
import { ModeTracker } from '../../../src/adapters/terminal/terminal.js';
import { openOuterTerminal, REPO_ROOT, shellQuote } from '../../helpers/pty-outer.js';

function resetAfter(...chunks: string[]): string {
  const tracker = new ModeTracker();
  for (const chunk of chunks) tracker.feed(Buffer.from(chunk, 'utf8'));
  return tracker.resetSequence();
}

describe('ModeTracker', () => {
  it('emits nothing for output that switched nothing on', () => {
    expect(resetAfter('plain text\r\n', '\x1b[1;31mred\x1b[0m \x1b[2J\x1b[H')).toBe('');
  });

  it('emits nothing when every mode switched on was switched off again', () => {
    expect(resetAfter('\x1b[?1049h\x1b[?2004h\x1b[?25l', 'work', '\x1b[?25h\x1b[?2004l\x1b[?1049l')).toBe('');
  });

  it('resets the modes left on, leaving the alternate screen last', () => {
    expect(resetAfter('\x1b[?1049h\x1b[?1000;1006h\x1b[?2004h\x1b[?25l\x1b[?1004h')).toBe(
      '\x1b[?25h\x1b[?1000l\x1b[?1004l\x1b[?1006l\x1b[?2004l\x1b[?1049l',
    );
  });

  it('follows sequences split across chunks, byte by byte', () => {
    const sequence = '\x1b[?1049h\x1b[?2004h';
    const tracker = new ModeTracker();
    for (const byte of Buffer.from(sequence)) tracker.feed(Buffer.from([byte]));

    expect(tracker.resetSequence()).toBe('\x1b[?2004l\x1b[?1049l');
  });

  it('ignores look-alike sequences inside OSC, DCS and APC strings', () => {
    expect(resetAfter('\x1b]0;title \x1b[?1049h? no\x07', '\x1bPq\x1b[?1000h\x1b\\', '\x1b_x[?25l\x1b\\')).toBe('');
  });

  it('ends an OSC string at BEL or ST split across chunks', () => {
    expect(resetAfter('\x1b]2;a title', ' more\x1b', '\\\x1b[?2004h')).toBe('\x1b[?2004l');
  });

  it('pops kitty keyboard modes that were pushed and not popped', () => {
    expect(resetAfter('\x1b[>1u\x1b[>3u\x1b[<u')).toBe('\x1b[<1u');
    expect(resetAfter('\x1b[>1u\x1b[<u')).toBe('');
    expect(resetAfter('\x1b[=5;1u')).toBe('\x1b[=0;1u');
  });

  it('resets modifyOtherKeys, the application keypad and a dangling colour', () => {
    expect(resetAfter('\x1b[>4;2m\x1b=\x1b[38;5;196mred')).toBe('\x1b[0m\x1b[>4m\x1b>');
  });

  it('treats a full reset (RIS) as everything back to defaults', () => {
    expect(resetAfter('\x1b[?1049h\x1b[?25l\x1b[31m', '\x1bc')).toBe('');
  });

  it('ignores DEC modes it does not know and overlong parameter strings', () => {
    expect(resetAfter('\x1b[?9999h', `\x1b[?${'1;'.repeat(80)}1049h`)).toBe('');
  });
});

describe('processTerminal in a real terminal', () => {
  it('turns output post-processing off in raw mode, unlike plain setRawMode, and restores it all', async () => {
    const probe = `
      import { processTerminal } from ${JSON.stringify(`${REPO_ROOT}/dist/src/adapters/terminal/terminal.js`)};
      import { execFileSync } from 'node:child_process';
      const modes = () => execFileSync('stty', ['-a'], { stdio: [0, 'pipe', 'pipe'] }).toString().match(/-?(opost|icanon|echo|isig|ixon|iexten)\\b/g).join(' ');
      const terminal = processTerminal();
      terminal.enterRaw();
      const raw = modes();
      terminal.restore();
      process.stdout.write('RAW[' + raw + '] COOKED[' + modes() + ']\\n');
    `;
    const outer = openOuterTerminal(`${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(probe)}; echo END`);

    const output = await outer.waitFor('END');

    expect(output).toContain('RAW[-ixon -opost -isig -icanon -iexten -echo]');
    expect(output).toContain('COOKED[ixon opost isig icanon iexten echo]');
  });

  it('enters raw mode in two steps for a launch: raw input (and raw output where the addon does it in one ioctl) first, the rest when told, then restores it all', async () => {
    const probe = `
      import { processTerminal } from ${JSON.stringify(`${REPO_ROOT}/dist/src/adapters/terminal/terminal.js`)};
      import { execFileSync } from 'node:child_process';
      const modes = () => execFileSync('stty', ['-a'], { stdio: [0, 'pipe', 'pipe'] }).toString().match(/-?(opost|icanon|echo|isig|ixon|iexten)\\b/g).join(' ');
      const terminal = processTerminal();
      const completeRaw = terminal.enterRawInputFirst();
      const inputOnly = modes();
      completeRaw();
      const raw = modes();
      terminal.restore();
      process.stdout.write('INPUT[' + inputOnly + '] RAW[' + raw + '] COOKED[' + modes() + ']\\n');
    `;
    const outer = openOuterTerminal(`${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(probe)}; echo END`);

    const output = await outer.waitFor('END');

    // With the native addon OPOST goes off with raw input, before the agent is spawned; without
    // it, by `stty -opost` when told.
    const outputRawAtOnce = typeof (loadNativeRelay() as { module?: { outputRaw?: unknown } }).module?.outputRaw === 'function';
    expect(output).toContain(`INPUT[-ixon ${outputRawAtOnce ? '-opost' : 'opost'} -isig -icanon -iexten -echo]`);
    expect(output).toContain('RAW[-ixon -opost -isig -icanon -iexten -echo]');
    expect(output).toContain('COOKED[ixon opost isig icanon iexten echo]');
  });
  const hasModeSnapshot = process.platform === 'linux' && typeof (loadNativeRelay() as { module?: { modeSnapshot?: unknown } }).module?.modeSnapshot === 'function';
  it.skipIf(!hasModeSnapshot)('reads the settings as `stty -g` prints them with one tcgetattr (the addon), cooked and raw, and stty takes them back', async () => {
    const probe = `
      import { loadNativeRelay } from ${JSON.stringify(`${REPO_ROOT}/dist/src/adapters/relay.js`)};
      import { execFileSync } from 'node:child_process';
      const stty = (...args) => execFileSync('stty', args, { stdio: [0, 'pipe', 'pipe'] }).toString().trim();
      const relay = loadNativeRelay().module;
      const cooked = relay.modeSnapshot(0);
      const sameCooked = cooked === stty('-g');
      stty('raw', '-echo', 'intr', '^K');
      const sameRaw = relay.modeSnapshot(0) === stty('-g') && relay.modeSnapshot(0) !== cooked;
      stty(cooked);
      process.stdout.write('COOKED[' + sameCooked + '] RAW[' + sameRaw + '] BACK[' + (stty('-g') === cooked) + '] PIPE[' + relay.modeSnapshot(99) + ']\\n');
    `;
    const outer = openOuterTerminal(`${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(probe)}; echo END`);

    const output = await outer.waitFor('END');

    expect(output).toContain('COOKED[true] RAW[true] BACK[true] PIPE[null]');
  });
});
