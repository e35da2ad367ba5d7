/**
 * Raw-mode input bytes → keys. A lone ESC at the end of a chunk is the Escape key: a PTY
 * delivers a keypress's bytes in one read, so an arrow key's `ESC [ A` never arrives split in
 * practice, and waiting for more bytes would make Esc feel slow.
 */

export type Key =
  | { readonly name: 'char'; readonly text: string }
  | { readonly name: 'paste'; readonly text: string }
  | {
      readonly name:
        | 'enter'
        | 'escape'
        | 'backspace'
        | 'delete'
        | 'up'
        | 'down'
        | 'left'
        | 'right'
        | 'home'
        | 'end'
        | 'ctrl-c'
        | 'ctrl-d'
        | 'ctrl-u'
        | 'ctrl-z'
        | 'ignored';
    };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

const CSI_KEYS: Readonly<Record<string, Key['name']>> = {
  '\x1b[A': 'up',
  '\x1b[B': 'down',
  '\x1b[C': 'right',
  '\x1b[D': 'left',
  '\x1b[H': 'home',
  '\x1b[F': 'end',
  '\x1b[1~': 'home',
  '\x1b[4~': 'end',
  '\x1b[3~': 'delete',
  '\x1bOA': 'up',
  '\x1bOB': 'down',
  '\x1bOC': 'right',
  '\x1bOD': 'left',
  '\x1bOH': 'home',
  '\x1bOF': 'end',
};

const CONTROL_KEYS: Readonly<Record<string, Key['name']>> = {
  '\r': 'enter',
  '\n': 'enter',
  '\x7f': 'backspace',
  '\b': 'backspace',
  '\x03': 'ctrl-c',
  '\x04': 'ctrl-d',
  '\x15': 'ctrl-u',
  '\x1a': 'ctrl-z',
  '\x01': 'home',
  '\x05': 'end',
};

function named(name: Exclude<Key['name'], 'char' | 'paste'>): Key {
  return { name };
}

/** Splits one chunk of input into keys. Bracketed paste arrives as one `paste` key. */
export function parseKeys(chunk: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < chunk.length) {
    if (chunk.startsWith(PASTE_START, i)) {
      const end = chunk.indexOf(PASTE_END, i + PASTE_START.length);
      const stop = end === -1 ? chunk.length : end;
      keys.push({ name: 'paste', text: chunk.slice(i + PASTE_START.length, stop) });
      i = end === -1 ? chunk.length : end + PASTE_END.length;
      continue;
    }
    const ch = chunk[i] ?? '';
    if (ch === '\x1b') {
      const next = chunk[i + 1];
      if (next === undefined || next === '\x1b') {
        keys.push(named('escape'));
        i += 1;
      } else if (next === '[') {
        let j = i + 2;
        while (j < chunk.length && /[0-9;:<=>?]/.test(chunk[j] ?? '')) j += 1;
        while (j < chunk.length && /[ -/]/.test(chunk[j] ?? '')) j += 1;
        const sequence = chunk.slice(i, j + 1);
        const name = CSI_KEYS[sequence];
        keys.push(named(name === undefined || name === 'char' || name === 'paste' ? 'ignored' : name));
        i = j + 1;
      } else if (next === 'O') {
        const name = CSI_KEYS[chunk.slice(i, i + 3)];
        keys.push(named(name === undefined || name === 'char' || name === 'paste' ? 'ignored' : name));
        i += 3;
      } else {
        // Alt+key: the demo binds none.
        keys.push(named('ignored'));
        i += 2;
      }
      continue;
    }
    const control = CONTROL_KEYS[ch];
    if (control !== undefined && control !== 'char' && control !== 'paste') {
      keys.push(named(control));
      // A terminal in CRLF mode sends "\r\n" for one Enter.
      i += ch === '\r' && chunk[i + 1] === '\n' ? 2 : 1;
      continue;
    }
    const codePoint = chunk.codePointAt(i) ?? 0;
    const text = String.fromCodePoint(codePoint);
    keys.push(codePoint >= 0x20 ? { name: 'char', text } : named('ignored'));
    i += text.length;
  }
  return keys;
}
