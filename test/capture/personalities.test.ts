/**
 * Offline tests of the capture lab's terminal personalities: the answers the outer terminal
 * gives to the CLI's queries (answerer.mjs) and the environment it sets (personalities.mjs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { attachAnswerer, paletteHex, xtermRgb } from './answerer.mjs';
import { applyPersonalityEnv, DEFAULT_PERSONALITY, PERSONALITIES, PERSONALITY_NAMES, personality } from './personalities.mjs';
import { seed } from './seed.mjs';

const { Terminal } = xtermHeadless;
const ESC = '\x1b';
const ST = `${ESC}\\`;

/** A headless terminal of `cols`×`rows` answering as `name`; `send` feeds output chunks in order. */
function outer(name: string, cols = 80, rows = 24) {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  const answers: string[] = [];
  const answerer = attachAnswerer(term, personality(name).answers, (bytes) => answers.push(bytes));
  const send = async (...chunks: string[]): Promise<string[]> => {
    const before = answers.length;
    for (const chunk of chunks) {
      answerer.feed(chunk);
      await new Promise<void>((resolve) => term.write(chunk, resolve));
    }
    return answers.slice(before);
  };
  return { term, answerer, send };
}

/** Every query the pinned CLIs were seen to send, plus the other ones a personality answers. */
const BATTERY = [
  `${ESC}[c`, `${ESC}[>c`, `${ESC}[>0q`, `${ESC}[6n`, `${ESC}[5n`, `${ESC}]10;?${ST}`, `${ESC}]11;?\x07`, `${ESC}]4;0;?\x07`,
  `${ESC}[?2026$p`, `${ESC}[?u`, `${ESC}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA${ST}`, `${ESC}[14t`, `${ESC}[16t`, `${ESC}[18t`, `${ESC}P+q4d73${ST}`,
].join('');

describe('terminal personalities: answers', () => {
  it('answers as tmux 3.3a measured: DA1, DA2, XTVERSION, CPR, DSR and CSI 18 t with width and height swapped', async () => {
    const { send } = outer('tmux', 100, 30);

    const got = await send(`${ESC}[3;9H`, BATTERY);

    expect(got).toEqual([`${ESC}[?1;2c`, `${ESC}[>84;0;0c`, `${ESC}P>|tmux 3.3a${ST}`, `${ESC}[3;9R`, `${ESC}[0n`, `${ESC}[8;100;30t`]);
  });

  it('answers nothing at all as the default (silent) personality, the lab before personalities', async () => {
    expect(DEFAULT_PERSONALITY).toBe('silent');
    const { send } = outer('silent');

    expect(await send(BATTERY)).toEqual([]);
  });

  it('reports the cursor where the bytes before the query left it, query by query within one chunk', async () => {
    const { send } = outer('plain-256');

    const got = await send(`${ESC}[2;1Habc${ESC}[6n\r\n  x${ESC}[6n`);

    expect(got).toEqual([`${ESC}[2;4R`, `${ESC}[3;4R`]);
  });

  it('reports the size the terminal has when asked, after a resize', async () => {
    const { term, send } = outer('kitty', 80, 24);
    term.resize(110, 32);

    expect(await send(`${ESC}[18t${ESC}[14t`)).toEqual([`${ESC}[8;32;110t`, `${ESC}[4;${32 * 21};${110 * 10}t`]);
  });

  it('answers colour queries with the dark or light background, in the terminator the query used', async () => {
    const light = outer('xterm-light');
    const dark = outer('xterm-dark');

    expect(await light.send(`${ESC}]11;?\x07${ESC}]10;?${ST}`)).toEqual([`${ESC}]11;rgb:ffff/ffff/ffff\x07`, `${ESC}]10;rgb:0000/0000/0000${ST}`]);
    expect(await dark.send(`${ESC}]11;?${ST}`)).toEqual([`${ESC}]11;rgb:0000/0000/0000${ST}`]);
  });

  it('answers every colour of a multi-entry OSC 4 query from the 256-colour palette', async () => {
    const { send } = outer('xterm-dark');

    const got = await send(`${ESC}]4;1;?;196;?;232;?\x07`);

    expect(got).toEqual([`${ESC}]4;1;rgb:cdcd/0000/0000\x07`, `${ESC}]4;196;rgb:ffff/0000/0000\x07`, `${ESC}]4;232;rgb:0808/0808/0808\x07`]);
    expect(xtermRgb('1a8fff')).toBe('rgb:1a1a/8f8f/ffff');
    expect(paletteHex(PERSONALITIES['xterm-dark']!.answers.colors!.ansi, 16)).toBe('000000');
    expect(paletteHex(PERSONALITIES['xterm-dark']!.answers.colors!.ansi, 231)).toBe('ffffff');
  });

  it('answers DECRQM from the modes the CLI set, and 0 for modes the terminal does not know', async () => {
    const xterm = outer('xterm-light');
    const kitty = outer('kitty');
    const queries = `${ESC}[?2004$p${ESC}[?25$p${ESC}[?2026$p`;

    expect(await xterm.send(queries)).toEqual([`${ESC}[?2004;2$y`, `${ESC}[?25;1$y`, `${ESC}[?2026;0$y`]);
    expect(await xterm.send(`${ESC}[?2004h${ESC}[?25l`, queries)).toEqual([`${ESC}[?2004;1$y`, `${ESC}[?25;2$y`, `${ESC}[?2026;0$y`]);
    expect(await kitty.send(`${ESC}[?2026h`, queries)).toEqual([`${ESC}[?2004;2$y`, `${ESC}[?25;1$y`, `${ESC}[?2026;1$y`]);
  });

  it('keeps the kitty keyboard flag stack and sends the keys the pushed flags ask for', async () => {
    const { answerer, send } = outer('kitty');

    expect(await send(`${ESC}[?u`)).toEqual([`${ESC}[?0u`]);
    expect(answerer.encodeKey(ESC)).toBe(ESC);
    expect(await send(`${ESC}[>1u${ESC}[?u`)).toEqual([`${ESC}[?1u`]);
    expect(answerer.encodeKey(ESC)).toBe(`${ESC}[27u`);
    expect(answerer.encodeKey('\x03')).toBe(`${ESC}[99;5u`);
    expect(answerer.encodeKey('\r')).toBe('\r');
    expect(await send(`${ESC}[>7u${ESC}[?u`)).toEqual([`${ESC}[?7u`]);
    expect(answerer.encodeKey(ESC)).toBe(`${ESC}[27u${ESC}[27;1:3u`);
    expect(await send(`${ESC}[<2u${ESC}[?u`)).toEqual([`${ESC}[?0u`]);
  });

  it('answers a kitty graphics query split across output chunks, and only under kitty', async () => {
    const kitty = outer('kitty');
    const xterm = outer('xterm-dark');
    const query = [`${ESC}_Gi=31,s=1,v=1,a=q`, `,t=d,f=24;AAAA${ESC}`, `\\${ESC}[c`];

    expect(await kitty.send(...query)).toEqual([`${ESC}_Gi=31;OK${ST}`, `${ESC}[?62;c`]);
    expect(await xterm.send(...query)).toEqual([`${ESC}[?64;1;2;6;9;15;16;17;18;21;22;28c`]);
  });

  it('leaves the kitty keyboard query unanswered outside kitty, as xterm and tmux do', async () => {
    for (const name of ['tmux', 'xterm-dark', 'plain-256']) {
      const { send, answerer } = outer(name);
      expect(await send(`${ESC}[>7u${ESC}[?u`), name).toEqual([]);
      expect(answerer.encodeKey(ESC), name).toBe(ESC);
    }
  });
});

describe('terminal personalities: environment', () => {
  const base = { HOME: '/h', TERM: 'xterm-256color', COLORTERM: 'truecolor' };

  it('removes COLORTERM for tmux and plain-256 and keeps it for xterm and kitty', () => {
    expect(applyPersonalityEnv(base, 'tmux')).toMatchObject({ TERM: 'tmux-256color', TERM_PROGRAM: 'tmux', TMUX_PANE: '%0' });
    expect('COLORTERM' in applyPersonalityEnv(base, 'tmux')).toBe(false);
    expect('COLORTERM' in applyPersonalityEnv(base, 'plain-256')).toBe(false);
    expect(applyPersonalityEnv(base, 'xterm-light').COLORTERM).toBe('truecolor');
    expect(applyPersonalityEnv(base, 'kitty')).toMatchObject({ TERM: 'xterm-kitty', COLORTERM: 'truecolor' });
  });

  it('rejects an unknown personality naming the known ones', () => {
    expect(() => personality('konsole')).toThrow(/unknown personality konsole \(known: silent, tmux/);
    expect(PERSONALITY_NAMES).toEqual(expect.arrayContaining(['tmux', 'xterm-dark', 'xterm-light', 'plain-256', 'kitty']));
  });

  it('seeds the CLI environment from the personality, and the historic one by default', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'lab-personality-'));
    try {
      const tmux = seed('gemini', { runDir: join(runDir, 'a'), baseUrl: 'http://127.0.0.1:9', personality: 'tmux' }).env;
      const plain = seed('gemini', { runDir: join(runDir, 'b'), baseUrl: 'http://127.0.0.1:9' }).env;

      expect(tmux.TERM).toBe('tmux-256color');
      expect(tmux.COLORTERM).toBeUndefined();
      expect(tmux.GEMINI_API_KEY).toBeDefined();
      expect(plain).toMatchObject({ TERM: 'xterm-256color', COLORTERM: 'truecolor' });
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});
