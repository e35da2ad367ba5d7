/**
 * Pure drawing helpers for the demo agent: word wrap, the prompt box, the spinner line and the
 * permission dialog, each returned as plain rows (no escapes) plus an optional SGR style.
 *
 * Every glyph used here (─ │ ╭ ╮ ╰ ╯ ❯ ⏺ ⎿ ✻ ✽ ✶ ✳ ✢ · …) is one cell wide in xterm, tmux and
 * @xterm/headless, so a row's width is its code-point count. Text a user types is measured the
 * same way; a wide character there only makes the box ragged, never breaks the redraw, because
 * the live area is always redrawn from its remembered height.
 */

/** One screen row: the text and the SGR parameters to draw it with ('' = default). */
export interface Row {
  readonly text: string;
  readonly sgr: string;
}

export const DIM = '2';
export const BOLD = '1';
export const ACCENT = '38;5;209';
export const USER_ECHO = '38;5;246';

export function row(text: string, sgr = ''): Row {
  return { text, sgr };
}

export function cellsOf(text: string): number {
  return [...text].length;
}

/** Cuts a row to `width` cells, marking the cut with an ellipsis. */
export function clip(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, Math.max(0, width)).join('');
  return chars.slice(0, width - 1).join('') + '…';
}

export function padTo(text: string, width: number): string {
  const missing = width - cellsOf(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/**
 * Word-wraps one logical line to `width` cells; continuation rows get `indent` (Claude Code
 * indents an answer's continuation under its ⏺ bullet). Words longer than a row are split.
 */
export function wrap(text: string, width: number, indent = ''): string[] {
  const usable = Math.max(1, width);
  if (cellsOf(text) <= usable) return [text];
  const rows: string[] = [];
  let current = '';
  const words = text.split(/(\s+)/).filter((part) => part.length > 0);
  for (const word of words) {
    const candidate = current + word;
    if (cellsOf(candidate) <= usable) {
      current = candidate;
      continue;
    }
    if (current.trim().length > 0) rows.push(current.trimEnd());
    current = word.trim().length === 0 ? indent : indent + word;
    while (cellsOf(current) > usable) {
      const chars = [...current];
      rows.push(chars.slice(0, usable).join(''));
      current = indent + chars.slice(usable).join('');
    }
  }
  if (current.trim().length > 0) rows.push(current.trimEnd());
  return rows.length > 0 ? rows : [''];
}

/** The horizontal rule above and below the input line, full width like Claude Code's. */
export function ruleRow(width: number): Row {
  return row('─'.repeat(Math.max(1, width)), DIM);
}

/**
 * The input line: `> ` then the visible slice of what the user typed. Returns the row and the
 * cursor column (0-based) so the caller can park the terminal cursor there.
 */
export function inputRow(input: string, cursor: number, width: number): { row: Row; cursorCol: number } {
  const caret = '> ';
  const room = Math.max(1, width - cellsOf(caret) - 1);
  const chars = [...input];
  // Scroll horizontally so the cursor stays visible; the box keeps a fixed height.
  const start = Math.max(0, cursor - room);
  const visible = chars.slice(start, start + room).join('');
  return { row: row(caret + visible), cursorCol: cellsOf(caret) + (cursor - start) };
}

export interface PromptBoxOptions {
  readonly width: number;
  readonly input: string;
  readonly cursor: number;
  readonly hint: string;
}

/** Rule, input line, rule, hint line. `inputIndex` is the input line's index in `rows`. */
export function promptBox(options: PromptBoxOptions): { rows: Row[]; inputIndex: number; cursorCol: number } {
  const input = inputRow(options.input, options.cursor, options.width);
  return {
    rows: [ruleRow(options.width), input.row, ruleRow(options.width), row(clip(`  ${options.hint}`, options.width), DIM)],
    inputIndex: 1,
    cursorCol: input.cursorCol,
  };
}

/** Claude Code's spinner glyphs: they grow and shrink, so the cycle runs forward then back. */
export const SPINNER_GLYPHS = ['·', '✢', '✳', '✶', '✻', '✽', '✽', '✻', '✶', '✳', '✢', '·'] as const;

/** The braille spinner Claude Code and Codex put in front of the terminal title while busy. */
export const TITLE_SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

export function spinnerGlyph(frame: number): string {
  return SPINNER_GLYPHS[frame % SPINNER_GLYPHS.length] ?? '✻';
}

export function titleSpinner(frame: number): string {
  return TITLE_SPINNER[frame % TITLE_SPINNER.length] ?? '⠋';
}

/** `✻ Thinking… (3s · esc to interrupt)`, with a token count once the answer streams. */
export function spinnerRow(frame: number, verb: string, seconds: number, tokens: number, width: number): Row {
  const middle = tokens > 0 ? ` · ↓ ${tokens} tokens` : '';
  return row(clip(`${spinnerGlyph(frame)} ${verb}… (${seconds}s${middle} · esc to interrupt)`, width), ACCENT);
}

export interface DialogContent {
  readonly heading: string;
  readonly detail: readonly string[];
  readonly question: string;
  readonly options: readonly string[];
  readonly selected: number;
}

/** The bordered permission dialog, then its footer. Rows never exceed `width`. */
export function dialogBox(dialog: DialogContent, width: number): Row[] {
  const inner = Math.max(4, width - 4);
  const line = (text: string, sgr = ''): Row => row(`│ ${padTo(clip(text, inner), inner)} │`, sgr);
  const rows: Row[] = [row(`╭${'─'.repeat(inner + 2)}╮`, ACCENT), line(dialog.heading, BOLD), line('')];
  for (const detail of dialog.detail) rows.push(line(`  ${detail}`));
  rows.push(line(''), line(dialog.question));
  dialog.options.forEach((option, index) => {
    const pointer = index === dialog.selected ? '❯' : ' ';
    rows.push(line(`${pointer} ${index + 1}. ${option}`, index === dialog.selected ? ACCENT : ''));
  });
  rows.push(row(`╰${'─'.repeat(inner + 2)}╯`, ACCENT), row(clip('  Esc to cancel', width), DIM));
  return rows;
}

/** The welcome header printed once at start, like Claude Code's. */
export function welcomeBox(version: string, width: number): Row[] {
  const texts = [
    `✻ Welcome to the agentwrap demo agent ${version}`,
    '',
    '  A pretend coding agent: no model, no network, no API key.',
    '  Try prompts with: run, edit, delete, trap, long · /help · /exit',
  ];
  const inner = Math.min(Math.max(...texts.map(cellsOf)), Math.max(4, width - 4));
  return [
    row(`╭${'─'.repeat(inner + 2)}╮`, ACCENT),
    ...texts.map((text) => row(`│ ${padTo(clip(text, inner), inner)} │`, text.startsWith('✻') ? BOLD : '')),
    row(`╰${'─'.repeat(inner + 2)}╯`, ACCENT),
  ];
}

/** Draws a row with its style; the caller joins rows with CR LF. */
export function paint(r: Row): string {
  return r.sgr === '' ? r.text : `\x1b[${r.sgr}m${r.text}\x1b[0m`;
}
