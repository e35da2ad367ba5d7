/** A `[[dialog]]` table's `keys` template → the bytes typed into the agent to choose one option. */

/** What each `<name>` in a template types, as a terminal in normal cursor mode sends it. */
const NAMED_KEYS: Readonly<Record<string, string>> = {
  esc: '\x1b',
  enter: '\r',
  tab: '\t',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  space: ' ',
};

/**
 * A captured `key` group as a key: one printable character is typed as it is; a word is a named
 * key (`esc` in Codex's "No … (esc)"); anything else cannot be typed and is undefined.
 */
function capturedKey(key: string): string | undefined {
  if ([...key].length === 1 && key >= ' ') return key;
  return NAMED_KEYS[key.toLowerCase()];
}

/**
 * The bytes for option `n` (1-based) whose `key` group captured `key` (undefined: none), or
 * undefined when the template needs a key this option does not show.
 */
export function keysFor(template: string, n: number, key: string | undefined): string | undefined {
  let isTypeable = true;
  const out = template.replace(/<([^>]*)>|\{([^}]*)\}/g, (_match, named: string | undefined, field: string | undefined) => {
    if (named !== undefined) return NAMED_KEYS[named.toLowerCase()] ?? '';
    if (field === 'n') return String(n);
    const typed = key === undefined ? undefined : capturedKey(key.trim());
    if (typed === undefined) isTypeable = false;
    return typed ?? '';
  });
  return isTypeable && out !== '' ? out : undefined;
}
