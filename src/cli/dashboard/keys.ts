/**
 * Keyboard input of the dashboard: raw terminal bytes to key names. Pure. One read may hold
 * several keys (typed fast, or pasted); escape sequences for the arrows come whole from a
 * terminal, so a chunk is decoded on its own.
 */

/** `option-N`: choose option N of the selected session's dialog. */
export type OptionKey = `option-${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;

export type DashboardKey = 'up' | 'down' | 'top' | 'bottom' | 'jump' | 'ack' | 'filter' | 'help' | 'quit' | 'interrupt' | 'prompt' | OptionKey | 'other';

/** Escape sequences first (longest match), then single bytes. */
const SEQUENCES: readonly (readonly [string, DashboardKey])[] = [
  ['\u001b[A', 'up'],
  ['\u001bOA', 'up'],
  ['\u001b[B', 'down'],
  ['\u001bOB', 'down'],
  ['\u001b[H', 'top'],
  ['\u001bOH', 'top'],
  ['\u001b[1~', 'top'],
  ['\u001b[F', 'bottom'],
  ['\u001bOF', 'bottom'],
  ['\u001b[4~', 'bottom'],
];

const SINGLE: Readonly<Record<string, DashboardKey>> = {
  k: 'up',
  j: 'down',
  g: 'top',
  G: 'bottom',
  '\r': 'jump',
  '\n': 'jump',
  a: 'ack',
  f: 'filter',
  p: 'prompt',
  '1': 'option-1',
  '2': 'option-2',
  '3': 'option-3',
  '4': 'option-4',
  '5': 'option-5',
  '6': 'option-6',
  '7': 'option-7',
  '8': 'option-8',
  '9': 'option-9',
  '?': 'help',
  h: 'help',
  q: 'quit',
  Q: 'quit',
  '\u0003': 'interrupt',
  '\u0004': 'quit',
};

export function decodeKeys(input: string): DashboardKey[] {
  const keys: DashboardKey[] = [];
  let i = 0;
  while (i < input.length) {
    const sequence = SEQUENCES.find(([bytes]) => input.startsWith(bytes, i));
    if (sequence !== undefined) {
      keys.push(sequence[1]);
      i += sequence[0].length;
      continue;
    }
    if (input[i] === '\u001b') {
      // Another escape sequence (a function key, focus report): skip it whole, it means nothing here.
      const rest = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/.exec(input.slice(i));
      keys.push('other');
      i += rest?.[0].length ?? 1;
      continue;
    }
    keys.push(SINGLE[input[i] ?? ''] ?? 'other');
    i += 1;
  }
  return keys;
}

/** The help screen's lines (also the key table in docs/publishing.md). */
export const KEY_HELP: readonly string[] = [
  '↑ / k, ↓ / j    select the previous / next session (g, G: first, last)',
  'Enter           jump to it: switch to its tmux pane (when it runs in tmux)',
  'a               ack it: mark it seen, so done becomes idle',
  'f               filter by state: all → blocked → done → working → idle → unknown',
  "1 … 9           answer the selected blocked session's dialog with that option",
  'p               type a prompt for the selected session (Enter sends, Esc cancels)',
  '?               this help (any key closes it)',
  'q / Ctrl-C      quit',
];
