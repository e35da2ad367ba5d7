/**
 * Strings from elsewhere (agent output, records, control replies, a remote agentwrap's output,
 * ssh's stderr, recordings, parse errors that quote them) made safe for the place they are
 * shown. One function per place; each output path calls the one for its place just before
 * writing, so no path can forget (docs/robustness.md, "Strings from elsewhere"):
 *
 * - `forTerminal`: no escape sequence, control, DEL, C1 or bidi control reaches a terminal;
 * - `forJson` / `toJson`: JSON whose C1, bidi and line-separator characters are written as
 *   `\uXXXX` escapes (JSON.stringify leaves them raw; the value read back is unchanged);
 * - `forHtml`: text for an HTML element or attribute;
 * - `forMarkup`: text for a notification body, which notify-send reads as a subset of HTML.
 */

/**
 * CSI (7-bit and 8-bit, parameters and intermediates, final byte), OSC/DCS/SOS/PM/APC strings up
 * to their terminator (BEL, ST or 8-bit ST; to the end if unterminated), and any other ESC with
 * its intermediates and final byte. Removed whole: a sequence's printable tail (`]52;c;…`) is
 * its payload, not text.
 */
export const ESCAPE_SEQUENCE =
  /\u001b\[[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u009b[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

/** Line breaks and tabs: on one line they become spaces rather than gluing words together. */
export const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;

/** C0, DEL, C1, bidi embeddings/overrides/isolates and marks, BOM, unpaired surrogates. */
export const FORBIDDEN_CHARS =
  /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Nothing to do: printable ASCII (the common case, checked first so it costs one test). */
const PLAIN = /^[\x20-\x7e]*$/;

export interface TerminalOptions {
  /** Keep line breaks (`\n`; `\r\n` and `\r` become `\n`): for a multi-line message such as a stack. */
  readonly multiline?: boolean;
}

/** `text` with nothing in it that a terminal would act on instead of print. Spaces are kept as they are. */
export function forTerminal(text: string, options: TerminalOptions = {}): string {
  if (PLAIN.test(text)) return text;
  const unescaped = text.replace(ESCAPE_SEQUENCE, '');
  if (options.multiline === true) {
    return unescaped
      .split(/\r\n|[\n\r\u0085\u2028\u2029]/)
      .map((line) => line.replace(WHITESPACE_CONTROLS, ' ').replace(FORBIDDEN_CHARS, ''))
      .join('\n');
  }
  return unescaped.replace(WHITESPACE_CONTROLS, ' ').replace(FORBIDDEN_CHARS, '');
}

/**
 * Characters JSON.stringify writes raw that a terminal or an editor acts on: C1 controls (U+009B
 * is CSI), DEL, bidi controls, BOM and the line and paragraph separators. Outside strings a JSON
 * text holds only ASCII, so every match is inside a string, where `\uXXXX` means the same.
 */
const JSON_UNSAFE = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff\u2028\u2029]/g;

/** JSON text (as JSON.stringify wrote it) with the characters above written as escapes. */
export function forJson(json: string): string {
  return json.replace(JSON_UNSAFE, (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify, then `forJson`: what every JSON output writes. */
export function toJson(value: unknown, indent?: number): string {
  return forJson(JSON.stringify(value, null, indent));
}

/** Controls a page has no use for; tabs and line breaks are kept (white space in HTML). */
const HTML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff]/g;

/** Text for an HTML element or a quoted attribute value. */
export function forHtml(text: string): string {
  return text.replace(HTML_FORBIDDEN, '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Text for a desktop notification's body: notify-send passes it to the notification server,
 * which reads `<b>`, `<a href>`, `<img>` and entities in it. Controls go, as on a terminal, and
 * the markup characters are escaped. One line.
 */
export function forMarkup(text: string): string {
  return forTerminal(text).replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}
