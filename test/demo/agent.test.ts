/**
 * The demo agent, built (dist/src/demo/agent.js), driven by keystrokes in a real PTY, its output
 * parsed by @xterm/headless exactly as agentwrap's mirror would see it. Speed 10 keeps each turn
 * a few hundred milliseconds; assertions wait for screens, never for fixed times, except where
 * "still waiting after a while" is the behaviour under test.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import xtermHeadless from '@xterm/headless';
import type { Terminal as XtermTerminal } from '@xterm/headless';
import * as pty from 'node-pty';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// @xterm/headless is CommonJS without an exports map: take the class off the default export.
const { Terminal } = xtermHeadless;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const AGENT = join(ROOT, 'dist/src/demo/agent.js');
const WAIT_MS = 8000;
const POLL_MS = 20;
const SPINNER_LINE = /^[·✢✳✶✻✽] \S+… \(\d+s.*esc to interrupt\)$/m;

interface Exit {
  readonly exitCode: number;
  readonly signal: number | undefined;
}

class DemoUnderTest {
  readonly titles: string[] = [];
  readonly progress: string[] = [];
  bells = 0;
  hasExited = false;
  readonly exited: Promise<Exit>;
  private parsed: Promise<void> = Promise.resolve();
  private readonly term: XtermTerminal;
  private readonly proc: pty.IPty;

  constructor(cols: number, rows: number, env: Record<string, string>) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true });
    this.term.onTitleChange((title) => this.titles.push(title));
    this.term.onBell(() => {
      this.bells += 1;
    });
    this.term.parser.registerOscHandler(9, (data) => {
      if (data.startsWith('4;')) this.progress.push(data.slice(2));
      return true;
    });
    this.proc = pty.spawn(process.execPath, [AGENT], {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: ROOT,
      env: { ...process.env, AGENTWRAP_DEMO_SPEED: '10', ...env },
    });
    this.proc.onData((data) => {
      this.parsed = this.parsed.then(() => new Promise<void>((done) => this.term.write(data, done)));
    });
    this.exited = new Promise((done) =>
      this.proc.onExit(({ exitCode, signal }) => {
        this.hasExited = true;
        done({ exitCode, signal });
      }),
    );
  }

  /** The live viewport rows, right-trimmed, joined by newlines. */
  async screen(): Promise<string> {
    await this.parsed;
    const buffer = this.term.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < this.term.rows; i++) rows.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
    return rows.join('\n');
  }

  async waitFor(what: string, predicate: (screen: string) => boolean): Promise<string> {
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
      const screen = await this.screen();
      if (predicate(screen)) return screen;
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
      await sleep(POLL_MS);
    }
  }

  waitForText(text: string): Promise<string> {
    return this.waitFor(JSON.stringify(text), (screen) => screen.includes(text));
  }

  /** The idle prompt box is the live bottom area: rule, `>` line, rule, hint, no spinner line. */
  waitForIdle(): Promise<string> {
    return this.waitFor('the idle prompt box', (screen) => isIdle(screen));
  }

  type(data: string): void {
    this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    this.proc.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  kill(): void {
    try {
      this.proc.kill();
    } catch (error) {
      // Already exited: nothing to clean up.
      void error;
    }
    this.term.dispose();
  }
}

function isIdle(screen: string): boolean {
  const rows = screen.split('\n').filter((row) => row.trim() !== '');
  const bottom = rows.slice(-4);
  return (
    /^─{10,}$/.test(bottom[0] ?? '') &&
    /^>( |$)/.test(bottom[1] ?? '') &&
    /^─{10,}$/.test(bottom[2] ?? '') &&
    /\? for shortcuts|Press Ctrl-C again to exit/.test(bottom[3] ?? '') &&
    !SPINNER_LINE.test(screen)
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

const running: DemoUnderTest[] = [];

function startDemo(cols = 80, rows = 24, env: Record<string, string> = {}): DemoUnderTest {
  const demo = new DemoUnderTest(cols, rows, env);
  running.push(demo);
  return demo;
}

beforeAll(() => {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: build first (npx tsc -p tsconfig.json)`);
});

afterEach(() => {
  for (const demo of running.splice(0)) demo.kill();
});

describe('the demo agent', () => {
  it('starts idle: a prompt box between rules, the hint under it, and an idle title', async () => {
    const demo = startDemo();

    const screen = await demo.waitForIdle();

    expect(screen).toContain('Welcome to the agentwrap demo agent');
    expect(demo.titles.at(-1)).toBe('✳ demo');
  });

  it('shows an animated spinner line with "esc to interrupt" while working, then an answer and idle again', async () => {
    const demo = startDemo();
    await demo.waitForIdle();

    demo.type('tell me a long story\r');
    const working = await demo.waitFor('the spinner line', (screen) => SPINNER_LINE.test(screen));
    const spinnerLines = new Set<string>();
    while (spinnerLines.size < 3) {
      const line = SPINNER_LINE.exec(await demo.screen())?.[0];
      if (line === undefined) break;
      spinnerLines.add(line);
      await sleep(50);
    }
    const done = await demo.waitForText('Worked for');
    await demo.waitForIdle();

    expect(working).toContain('> tell me a long story');
    expect(spinnerLines.size, 'the spinner line animates').toBeGreaterThanOrEqual(3);
    expect(done).toContain('⏺ I am the demo agent');
    const brailleTitles = new Set(demo.titles.filter((title) => /^[\u2800-\u28ff] demo$/.test(title)));
    expect(brailleTitles.size, 'the title spinner animates').toBeGreaterThanOrEqual(2);
    expect(demo.titles.at(-1)).toBe('✳ demo');
    expect(demo.progress).toContain('3;0');
    expect(demo.progress.at(-1)).toBe('0;0');
  });

  it('waits on the permission dialog with an attention title and one bell until a key is pressed', async () => {
    const demo = startDemo();
    await demo.waitForIdle();

    demo.type('please run the tests\r');
    await demo.waitForText('Do you want to run ls -la?');
    await sleep(700); // 7 s of demo time: far longer than any working phase
    const stillWaiting = await demo.screen();
    const titleWhileWaiting = demo.titles.at(-1);
    const bellsWhileWaiting = demo.bells;
    demo.type('1');
    const answered = await demo.waitForText('Worked for');

    expect(stillWaiting).toMatch(/│ ❯ 1\. Yes\s+│/);
    expect(stillWaiting).toContain('3. No, and tell me what to do differently (esc)');
    expect(stillWaiting).toMatch(/^ {2}Esc to cancel$/m);
    expect(stillWaiting).not.toMatch(SPINNER_LINE);
    expect(titleWhileWaiting).toBe('✋ demo');
    expect(bellsWhileWaiting).toBe(1);
    expect(answered).toContain('⏺ Bash(ls -la)');
    expect(answered).not.toContain('Do you want to run');
  });

  it('skips the dialog for a tool the user said not to ask about again', async () => {
    const demo = startDemo();
    await demo.waitForIdle();
    demo.type('run it\r');
    await demo.waitForText('Do you want to run ls -la?');
    demo.type('2');
    await demo.waitForText('Worked for');
    await demo.waitForIdle();

    demo.type('run it again\r');
    await demo.waitFor('the second answer', (screen) => (screen.match(/Worked for/g) ?? []).length === 2);

    expect(demo.bells).toBe(1);
  });

  it('moves the dialog pointer with the arrow keys, and Esc declines', async () => {
    const demo = startDemo();
    await demo.waitForIdle();
    demo.type('edit the retry count\r');
    await demo.waitForText('Do you want to make this edit to app.ts?');

    demo.type('\x1b[B');
    const moved = await demo.waitForText('❯ 2.');
    demo.type('\x1b');
    const declined = await demo.waitForIdle();

    expect(moved).toMatch(/│ {3}1\. Yes/);
    expect(declined).toContain('Interrupted · What should the demo agent do instead?');
    expect(declined).not.toContain('Worked for');
  });

  it('stops working on Esc and says it was interrupted', async () => {
    const demo = startDemo();
    await demo.waitForIdle();
    demo.type('a long task\r');
    await demo.waitFor('the spinner line', (screen) => SPINNER_LINE.test(screen));

    demo.type('\x1b');
    const screen = await demo.waitForIdle();

    expect(screen).toContain('⎿  Interrupted by user');
    expect(screen).not.toContain('Worked for');
    expect(demo.titles.at(-1)).toBe('✳ demo');
  });

  it('puts the trap answer above an idle prompt box, with no live spinner or dialog', async () => {
    const demo = startDemo();
    await demo.waitForIdle();

    demo.type('show me a trap\r');
    await demo.waitForText('Worked for');
    const screen = await demo.waitForIdle();

    expect(screen).toContain('esc to interrupt');
    expect(screen).toContain('Do you want to proceed?');
    expect(screen).not.toMatch(SPINNER_LINE);
    expect(screen).not.toMatch(/^ {2}Esc to cancel$/m);
  });

  it('redraws the prompt box at the new width after a resize', async () => {
    const demo = startDemo(80, 24);
    await demo.waitForIdle();
    demo.type('hello\r');
    await demo.waitForText('Worked for');
    await demo.waitForIdle();

    demo.resize(60, 20);
    const screen = await demo.waitFor('the idle box redrawn with 60-column rules', (s) => isIdle(s) && /^─{60}$/m.test(s));

    const ruleWidths = screen.split('\n').filter((row) => /^─+$/.test(row)).map((row) => row.length);
    expect(ruleWidths, 'no reflowed fragment of the old 80-column rules is left').toEqual([60, 60]);
    expect(screen).toContain('> hello');
    expect(screen).toContain('Worked for');
  });

  it('exits with code 0 on /exit', async () => {
    const demo = startDemo();
    await demo.waitForIdle();

    demo.type('/exit\r');

    expect(await demo.exited).toEqual({ exitCode: 0, signal: 0 });
  });

  it('exits with code 0 on the second Ctrl-C, after a hint on the first', async () => {
    const demo = startDemo();
    await demo.waitForIdle();

    demo.type('\x03');
    const hinted = await demo.waitForText('Press Ctrl-C again to exit');
    demo.type('\x03');

    expect(hinted).toContain('Press Ctrl-C again to exit');
    expect(await demo.exited).toEqual({ exitCode: 0, signal: 0 });
  });

  it('exits with code 0 on Ctrl-D at an empty prompt, but not while text is typed', async () => {
    const demo = startDemo();
    await demo.waitForIdle();
    demo.type('abc\x04');
    await demo.waitForText('> abc');
    await sleep(300);
    const exitedWithText = demo.hasExited;

    demo.type('\x15\x04');

    expect(exitedWithText).toBe(false);
    expect(await demo.exited).toEqual({ exitCode: 0, signal: 0 });
  });
});
