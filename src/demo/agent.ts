#!/usr/bin/env node
/**
 * The bundled demo agent: a small interactive TUI that looks and behaves like a coding agent
 * (an inline transcript, Claude Code's prompt box, a spinner line with "esc to interrupt",
 * a permission dialog, OSC titles and progress), so agentwrap has something real to wrap
 * without an API key. It shares no code with agentwrap (architecture test): it is the thing
 * being observed, not part of the observer.
 *
 * It draws inline like Claude Code: finished transcript lines are written once and scroll
 * away naturally; only the "live area" at the bottom (spinner, prompt box or dialog) is
 * redrawn, by moving the cursor back to its top and clearing to the end of the screen.
 * A resize clears the screen and redraws the transcript tail, because the terminal's reflow
 * makes the remembered live-area height meaningless.
 *
 * Usage: node dist/src/demo/agent.js [--help|--version]. Knobs: AGENTWRAP_DEMO_SPEED,
 * AGENTWRAP_DEMO_TITLE, AGENTWRAP_DEMO_PROGRESS, AGENTWRAP_DEMO_BELL (see docs/demo.md).
 */
import { KEYWORDS, planFor, VERBS, type Step, type ToolKind } from './script.js';
import { parseKeys, type Key } from './keys.js';
import { readOptions, USAGE, type Options } from './options.js';
import { InlineTranscript, type LiveArea, type LogicalLine } from './transcript.js';
import {
  ACCENT,
  DIM,
  USER_ECHO,
  dialogBox,
  promptBox,
  row,
  spinnerRow,
  titleSpinner,
  welcomeBox,
  type DialogContent,
  type Row,
} from './view.js';

export const DEMO_VERSION = '0.1.0';
const NAME = 'demo';

/** The spinner and title animate at ~10 Hz, like Claude Code's, whatever the speed. */
const FRAME_MS = 100;
/** A second Ctrl-C within this window exits; the hint disappears after it. */
const EXIT_ARM_MS = 2000;
const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
const HINT = '? for shortcuts';
const EXIT_HINT = 'Press Ctrl-C again to exit';

type Mode = 'idle' | 'working' | 'dialog';

class Interrupted extends Error {}

interface OpenDialog {
  readonly content: Omit<DialogContent, 'selected'>;
  selected: number;
  readonly resolve: (choice: number) => void;
}

class DemoAgent {
  private mode: Mode = 'idle';
  private input = '';
  private cursor = 0;
  private readonly transcript = new InlineTranscript();
  private frame = 0;
  private frameTimer: NodeJS.Timeout | undefined;
  private workAccumulatedMs = 0;
  private workStartedMs = 0;
  private verb: string = VERBS[0];
  private tokens = 0;
  private dialog: OpenDialog | undefined;
  private abort: AbortController | undefined;
  private exitArmedTimer: NodeJS.Timeout | undefined;
  private readonly allowed = new Set<ToolKind>();
  private turn = 0;
  private lastTitle = '';
  private exited = false;

  constructor(
    private readonly options: Options,
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
  ) {}

  start(): void {
    this.enterRawMode();
    this.stdin.setEncoding('utf8');
    this.stdin.on('data', (chunk: string) => this.onInput(chunk));
    this.stdin.on('end', () => this.exit());
    this.stdout.on('resize', () => this.redrawAll());
    process.on('SIGCONT', () => {
      this.enterRawMode();
      this.redrawAll();
    });
    for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
      process.on(signal, () => {
        this.restoreTerminal();
        process.exit(signal === 'SIGTERM' ? 143 : 129);
      });
    }
    this.commit(welcomeBox(DEMO_VERSION, this.cols()).map((r) => ({ text: r.text, sgr: r.sgr, indent: '' })));
    this.setTitle(`✳ ${NAME}`);
    this.render();
  }

  private cols(): number {
    return this.stdout.isTTY && this.stdout.columns > 0 ? this.stdout.columns : DEFAULT_COLS;
  }

  private rows(): number {
    return this.stdout.isTTY && this.stdout.rows > 0 ? this.stdout.rows : DEFAULT_ROWS;
  }

  private enterRawMode(): void {
    if (this.stdin.isTTY) this.stdin.setRawMode(true);
    this.stdin.resume();
    // Bracketed paste, as real agents enable it: a pasted newline must not submit the prompt.
    this.write('\x1b[?2004h');
  }

  private restoreTerminal(): void {
    this.stopFrames();
    this.write(this.transcript.clearLive());
    this.write('\x1b[?2004l\x1b[?25h');
    if (this.options.progress) this.write('\x1b]9;4;0;0\x07');
    if (this.stdin.isTTY) this.stdin.setRawMode(false);
  }

  private write(data: string): void {
    // After exit, a turn unwinding from its abort must not draw or retitle anything.
    if (data.length > 0 && !this.exited) this.stdout.write(data);
  }

  // ── input ────────────────────────────────────────────────────────────────────────────

  private onInput(chunk: string): void {
    for (const key of parseKeys(chunk)) {
      if (this.exited) return;
      this.onKey(key);
    }
    if (!this.exited) this.render();
  }

  private onKey(key: Key): void {
    if (key.name === 'ctrl-z') {
      this.suspend();
      return;
    }
    if (this.mode === 'dialog' && this.dialog !== undefined) {
      this.onDialogKey(key, this.dialog);
      return;
    }
    switch (key.name) {
      case 'char':
      case 'paste':
        this.insert(key.name === 'paste' ? key.text.replace(/[\r\n]+/g, ' ') : key.text);
        return;
      case 'backspace':
        if (this.cursor > 0) this.edit([...this.input].filter((_c, i) => i !== this.cursor - 1).join(''), this.cursor - 1);
        return;
      case 'delete':
        this.edit([...this.input].filter((_c, i) => i !== this.cursor).join(''), this.cursor);
        return;
      case 'left':
        this.cursor = Math.max(0, this.cursor - 1);
        return;
      case 'right':
        this.cursor = Math.min([...this.input].length, this.cursor + 1);
        return;
      case 'home':
        this.cursor = 0;
        return;
      case 'end':
        this.cursor = [...this.input].length;
        return;
      case 'ctrl-u':
        this.edit('', 0);
        return;
      case 'escape':
        if (this.mode === 'working') this.abort?.abort();
        return;
      case 'ctrl-c':
        this.onCtrlC();
        return;
      case 'ctrl-d':
        if (this.input === '') this.exit();
        return;
      case 'enter':
        // Like Claude Code, typing ahead is allowed while working, but a prompt is only taken when idle.
        if (this.mode === 'idle') this.submit();
        return;
      case 'up':
      case 'down':
      case 'ignored':
        return;
    }
  }

  private onDialogKey(key: Key, dialog: OpenDialog): void {
    const count = dialog.content.options.length;
    if (key.name === 'char' && /^[1-9]$/.test(key.text) && Number(key.text) <= count) {
      this.closeDialog(Number(key.text));
    } else if (key.name === 'up') {
      dialog.selected = (dialog.selected + count - 1) % count;
    } else if (key.name === 'down') {
      dialog.selected = (dialog.selected + 1) % count;
    } else if (key.name === 'enter') {
      this.closeDialog(dialog.selected + 1);
    } else if (key.name === 'escape') {
      this.closeDialog(count);
    } else if (key.name === 'ctrl-c') {
      this.closeDialog(count);
      this.armExit();
    }
  }

  private closeDialog(choice: number): void {
    const dialog = this.dialog;
    this.dialog = undefined;
    dialog?.resolve(choice);
  }

  private insert(text: string): void {
    const chars = [...this.input];
    chars.splice(this.cursor, 0, ...text);
    this.edit(chars.join(''), this.cursor + [...text].length);
  }

  private edit(input: string, cursor: number): void {
    this.input = input;
    this.cursor = cursor;
  }

  private onCtrlC(): void {
    if (this.exitArmedTimer !== undefined) {
      this.exit();
      return;
    }
    if (this.mode === 'working') this.abort?.abort();
    else if (this.input !== '') {
      // Claude Code's first Ctrl-C clears a typed prompt rather than arming exit.
      this.edit('', 0);
      return;
    }
    this.armExit();
  }

  private armExit(): void {
    clearTimeout(this.exitArmedTimer);
    this.exitArmedTimer = setTimeout(() => {
      this.exitArmedTimer = undefined;
      this.render();
    }, EXIT_ARM_MS);
  }

  private submit(): void {
    const prompt = this.input.trim();
    this.edit('', 0);
    if (prompt === '') return;
    if (prompt === '/exit' || prompt === '/quit') {
      this.exit();
      return;
    }
    this.commit([{ text: '', sgr: '', indent: '' }, { text: `> ${prompt}`, sgr: USER_ECHO, indent: '  ' }]);
    if (prompt === '/help') {
      this.commit(helpLines());
      return;
    }
    if (prompt === '/clear') {
      this.transcript.clear();
      this.write('\x1b[H\x1b[2J\x1b[3J');
      return;
    }
    void this.runTurn(prompt);
  }

  // ── a turn ───────────────────────────────────────────────────────────────────────────

  private async runTurn(prompt: string): Promise<void> {
    this.verb = VERBS[this.turn % VERBS.length] ?? 'Thinking';
    this.turn += 1;
    this.tokens = 0;
    this.workAccumulatedMs = 0;
    const abort = new AbortController();
    this.abort = abort;
    this.enterWorking();
    try {
      for (const step of planFor(prompt, this.allowed)) {
        const finished = await this.runStep(step, abort.signal);
        if (!finished) {
          this.commit([line('  ⎿  Interrupted · What should the demo agent do instead?', DIM)]);
          this.enterIdle();
          return;
        }
      }
      this.commit([line(''), line(`✻ Worked for ${this.workSeconds()}s`, DIM)]);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      this.commit([line('  ⎿  Interrupted by user', DIM)]);
    }
    this.enterIdle();
  }

  /** Runs one step; false when the user declined a permission dialog. */
  private async runStep(step: Step, signal: AbortSignal): Promise<boolean> {
    switch (step.kind) {
      case 'think':
        await this.sleep(step.ms, signal);
        return true;
      case 'permission': {
        const choice = await this.ask(step);
        if (choice === 3) return false;
        if (choice === 2) this.allowed.add(step.tool);
        this.enterWorking();
        return true;
      }
      case 'tool': {
        this.commit([line(''), line(`⏺ ${step.call}`, BOLD_LINE)]);
        await this.sleep(step.ms, signal);
        this.commit(step.output.map((text, i) => line(`${i === 0 ? '  ⎿  ' : '     '}${text}`, DIM, '     ')));
        return true;
      }
      case 'say':
        this.commit([line('')]);
        for (const text of step.lines) {
          this.commit([line(text, '', '  ')]);
          this.tokens += 40;
          await this.sleep(step.lineMs, signal);
        }
        return true;
    }
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(new Interrupted());
        return;
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms / this.options.speed);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new Interrupted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private ask(step: Extract<Step, { kind: 'permission' }>): Promise<number> {
    this.pauseWorkClock();
    this.stopFrames();
    this.mode = 'dialog';
    this.setTitle(`✋ ${NAME}`);
    if (this.options.progress) this.write('\x1b]9;4;0;0\x07');
    if (this.options.bell) this.write('\x07');
    return new Promise((resolve) => {
      this.dialog = {
        content: { heading: step.heading, detail: step.detail, question: step.question, options: step.options },
        selected: 0,
        resolve,
      };
      this.render();
    });
  }

  private enterWorking(): void {
    this.mode = 'working';
    this.workStartedMs = performance.now();
    if (this.options.progress) this.write('\x1b]9;4;3;0\x07');
    this.stopFrames();
    this.frameTimer = setInterval(() => {
      this.frame += 1;
      this.render();
    }, FRAME_MS);
    this.render();
  }

  private enterIdle(): void {
    this.stopFrames();
    this.abort = undefined;
    this.mode = 'idle';
    if (this.options.progress) this.write('\x1b]9;4;0;0\x07');
    this.setTitle(`✳ ${NAME}`);
    this.render();
  }

  private pauseWorkClock(): void {
    this.workAccumulatedMs += performance.now() - this.workStartedMs;
    this.workStartedMs = performance.now();
  }

  /** Seconds as the agent experiences them: wall time scaled by the speed knob. */
  private workSeconds(): number {
    const runningMs = this.mode === 'working' ? performance.now() - this.workStartedMs : 0;
    return Math.floor(((this.workAccumulatedMs + runningMs) * this.options.speed) / 1000);
  }

  private stopFrames(): void {
    clearInterval(this.frameTimer);
    this.frameTimer = undefined;
  }

  private setTitle(title: string): void {
    if (!this.options.titles || title === this.lastTitle) return;
    this.lastTitle = title;
    this.write(`\x1b]0;${title}\x07`);
  }

  // ── drawing ──────────────────────────────────────────────────────────────────────────

  private commit(lines: readonly LogicalLine[]): void {
    this.transcript.commit(lines);
  }

  /** The rows of the live area and where the cursor belongs (undefined: hidden). */
  private live(width: number): LiveArea {
    if (this.mode === 'dialog' && this.dialog !== undefined) {
      return { rows: [row(''), ...dialogBox({ ...this.dialog.content, selected: this.dialog.selected }, width)], cursor: undefined };
    }
    const hint = this.exitArmedTimer !== undefined ? EXIT_HINT : HINT;
    const box = promptBox({ width, input: this.input, cursor: this.cursor, hint });
    const top: Row[] = [row('')];
    if (this.mode === 'working') top.push(spinnerRow(this.frame, this.verb, this.workSeconds(), this.tokens, width), row(''));
    return { rows: [...top, ...box.rows], cursor: { row: top.length + box.inputIndex, col: box.cursorCol } };
  }

  private render(): void {
    if (this.exited) return;
    if (this.mode === 'working') this.setTitle(`${titleSpinner(this.frame)} ${NAME}`);
    this.write(this.transcript.render(this.cols(), this.rows(), (width) => this.live(width)));
  }

  private redrawAll(): void {
    if (this.exited) return;
    this.write(this.transcript.redrawAll(this.cols(), this.rows(), (width) => this.live(width)));
  }

  // ── leaving ──────────────────────────────────────────────────────────────────────────

  private suspend(): void {
    this.restoreTerminal();
    // Stop like a shell job would on Ctrl-Z; SIGCONT (fg) re-enters raw mode and redraws.
    process.kill(process.pid, 'SIGTSTP');
  }

  private exit(): void {
    if (this.exited) return;
    this.abort?.abort();
    this.render();
    this.restoreTerminal();
    if (this.options.titles) this.write(`\x1b]0;\x07`);
    this.exited = true;
    clearTimeout(this.exitArmedTimer);
    this.exitArmedTimer = undefined;
    this.stdin.removeAllListeners('data');
    this.stdin.pause();
    // Nothing else keeps the event loop alive now, so node exits with code 0 once stdout drains.
  }
}

const BOLD_LINE = '1';

function line(text: string, sgr = '', indent = ''): LogicalLine {
  return { text, sgr, indent };
}

function helpLines(): LogicalLine[] {
  return [
    line(''),
    line('⏺ Keywords in a prompt (whole words, any case):', ACCENT),
    ...Object.entries(KEYWORDS).map(([word, what]) => line(`  ${word.padEnd(7)} ${what}`, '', '          ')),
    line('  Esc interrupts work · Ctrl-C twice, Ctrl-D or /exit quits · /clear clears', DIM, '  '),
  ];
}

function main(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`${DEMO_VERSION}\n`);
    return;
  }
  new DemoAgent(readOptions(process.env), process.stdin, process.stdout).start();
}

main(process.argv.slice(2));
