/**
 * Terminal modes a program can switch on and must switch off again, and the sequence that does
 * it. Fed with the agent's output, it knows which ones are still on at exit, so a crashed
 * agent cannot leave the user in the alternate screen, with mouse reporting or an invisible
 * cursor. Only modes seen switched on are reset: after a clean exit it emits nothing, which
 * matters because `CSI ?1049 l` also restores a saved cursor position and would move it.
 */
const DEC_MODES_OFF_BY_DEFAULT = new Set([
  1, // DECCKM application cursor keys
  47, 1047, 1049, // alternate screen
  1000, 1001, 1002, 1003, 1005, 1006, 1015, 1016, // mouse reporting and encodings
  1004, // focus events
  2004, // bracketed paste
  2026, // synchronized output
  2048, // in-band resize notifications
]);
/** Cursor visible and auto-wrap are on by default; a program may switch them off. */
const DEC_MODES_ON_BY_DEFAULT = new Set([25, 7]);
/**
 * Alternate screens are left last: kitty keeps one keyboard-mode stack per screen, and the pops
 * must reach the stack the agent pushed on, which is the alternate one for full-screen agents.
 */
const ALT_SCREEN_MODES = [1049, 1047, 47];

/** Longest parameter string kept for one control sequence; longer ones are not modes we track. */
const MAX_PARAM_CHARS = 64;

type ParserState = 'ground' | 'escape' | 'csi' | 'string' | 'string-escape';

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * A parameter that is a run of ASCII digits, as a number; undefined for anything else. Not
 * Number(), which would also take " 1", "+1", "1." and "0.5" (the native relay's port of this
 * tracker parses the same way; see src/native/relay.c).
 */
function parseDigits(text: string): number | undefined {
  if (text === '') return undefined;
  for (let k = 0; k < text.length; k++) if (!isAsciiDigit(text.charCodeAt(k))) return undefined;
  return Number(text);
}

const ESC = 0x1b;
const BEL = 0x07;

/** What launch.ts needs of a mode tracker: this class, or the native relay's port of it. */
export interface ModeState {
  readonly revision: number;
  resetSequence(): string;
}

/** Kept in step with its C port in src/native/relay.c (test/adapters/relay.test.ts compares them). */
export class ModeTracker implements ModeState {
  private state: ParserState = 'ground';
  private params = '';
  private isParamsOverflowed = false;
  /** DEC private modes currently different from their default, by number. */
  private readonly changedModes = new Set<number>();
  private kittyDepth = 0;
  private isKittyFlagsSet = false;
  private isModifyOtherKeysSet = false;
  private isKeypadApplication = false;
  private isSgrDirty = false;
  private revisionCount = 0;

  /**
   * Changes whenever a mode other than the colour changes, so a caller can tell cheaply when
   * `resetSequence()` says something new (colours change constantly and are always reset).
   */
  get revision(): number {
    return this.revisionCount;
  }

  /** Scans one chunk of output; sequences split across chunks are handled. */
  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'ground') {
        const next = chunk.indexOf(ESC, i);
        if (next < 0) return;
        this.state = 'escape';
        i = next + 1;
        continue;
      }
      if (this.state === 'string') {
        // OSC/DCS/APC/PM/SOS payload: skip to BEL or ESC (the start of ST), whichever is first.
        let end = i;
        while (end < chunk.length && chunk[end] !== BEL && chunk[end] !== ESC) end += 1;
        if (end >= chunk.length) return;
        this.state = chunk[end] === BEL ? 'ground' : 'string-escape';
        i = end + 1;
        continue;
      }
      if (this.state === 'csi') {
        // Parameter bytes in one run (one string per sequence, not one per byte): TUI output
        // carries a CSI every few bytes, so this loop is most of the tracker's cost.
        let end = i;
        while (end < chunk.length) {
          const b = chunk[end] as number;
          if (b < 0x20 || b > 0x3f) break;
          end += 1;
        }
        if (end < chunk.length && chunk[end] === 0x6d && this.params === '' && this.isPlainSgr(chunk, i, end)) {
          this.state = 'ground';
          i = end + 1;
          continue;
        }
        if (end > i) this.appendParams(chunk, i, end);
        if (end >= chunk.length) return;
        i = end;
      }
      const byte = chunk[i] as number;
      i += 1;
      switch (this.state) {
        case 'string-escape':
          // ESC \ ends the string; any other byte (a doubled ESC in tmux passthrough) stays in it.
          this.state = byte === 0x5c ? 'ground' : 'string';
          break;
        case 'escape':
          this.onEscape(byte);
          break;
        case 'csi':
          this.onCsiByte(byte);
          break;
        default:
          break;
      }
    }
  }

  private onEscape(byte: number): void {
    switch (byte) {
      case 0x5b: // [
        this.state = 'csi';
        this.params = '';
        this.isParamsOverflowed = false;
        return;
      case 0x5d: // ] OSC
      case 0x50: // P DCS
      case 0x5f: // _ APC
      case 0x5e: // ^ PM
      case 0x58: // X SOS
        this.state = 'string';
        return;
      case 0x3d: // = DECKPAM
        if (!this.isKeypadApplication) this.revisionCount += 1;
        this.isKeypadApplication = true;
        break;
      case 0x3e: // > DECKPNM
        if (this.isKeypadApplication) this.revisionCount += 1;
        this.isKeypadApplication = false;
        break;
      case 0x63: // c RIS: full reset, everything back to defaults
        this.resetAll();
        break;
      case ESC:
        // ESC ESC: the second one starts a new sequence.
        return;
      default:
        break;
    }
    this.state = 'ground';
  }

  /**
   * The common case decided from the bytes, with no string built: an SGR (`CSI digits;… m`)
   * whose parameters lie in this chunk. Same outcome as onCsi; false leaves it to onCsi.
   */
  private isPlainSgr(chunk: Uint8Array, from: number, to: number): boolean {
    if (to - from > MAX_PARAM_CHARS || (to > from && !isAsciiDigit(chunk[from] as number))) return false;
    let isReset = true;
    for (let k = from; k < to; k++) {
      if (chunk[k] !== 0x30) {
        isReset = false;
        break;
      }
    }
    this.isSgrDirty = !isReset;
    return true;
  }

  private appendParams(chunk: Uint8Array, from: number, to: number): void {
    const take = Math.min(MAX_PARAM_CHARS - this.params.length, to - from);
    let text = '';
    for (let k = from; k < from + take; k++) text += String.fromCharCode(chunk[k] as number);
    this.params += text;
    if (to - from > take) this.isParamsOverflowed = true;
  }

  private onCsiByte(byte: number): void {
    if (byte >= 0x20 && byte <= 0x3f) {
      if (this.params.length < MAX_PARAM_CHARS) this.params += String.fromCharCode(byte);
      else this.isParamsOverflowed = true;
      return;
    }
    if (byte === ESC) {
      this.state = 'escape';
      return;
    }
    if (byte < 0x20) return; // C0 controls inside a CSI are executed, not part of it
    this.state = 'ground';
    if (byte > 0x7e || this.isParamsOverflowed) return;
    this.onCsi(this.params, String.fromCharCode(byte));
  }

  private onCsi(params: string, final: string): void {
    const prefix = params.charAt(0);
    if (prefix === '?' && (final === 'h' || final === 'l')) {
      for (const part of params.slice(1).split(';')) {
        const mode = parseDigits(part);
        if (mode === undefined) continue;
        const isOn = final === 'h';
        const before = this.changedModes.size;
        if (DEC_MODES_OFF_BY_DEFAULT.has(mode)) {
          if (isOn) this.changedModes.add(mode);
          else this.changedModes.delete(mode);
        } else if (DEC_MODES_ON_BY_DEFAULT.has(mode)) {
          if (isOn) this.changedModes.delete(mode);
          else this.changedModes.add(mode);
        }
        if (this.changedModes.size !== before) this.revisionCount += 1;
      }
      return;
    }
    if (final === 'u') {
      // Kitty keyboard protocol: CSI > flags u pushes, CSI < n u pops n, CSI = flags ; mode u sets.
      if (prefix === '>') this.kittyDepth += 1;
      else if (prefix === '<') this.kittyDepth = Math.max(0, this.kittyDepth - (parseDigits(params.slice(1)) || 1));
      else if (prefix === '=') this.isKittyFlagsSet = !/^=0*(;|$)/.test(params);
      this.revisionCount += 1;
      return;
    }
    if (final === 'm') {
      if (prefix === '>') {
        // XTMODKEYS: CSI > 4 ; n m (n > 0 turns modifyOtherKeys on; CSI > 4 m resets it).
        const [resource, value] = params.slice(1).split(';');
        if (resource === '4') {
          this.isModifyOtherKeysSet = (parseDigits(value ?? '') ?? 0) > 0;
          this.revisionCount += 1;
        }
        return;
      }
      if (prefix !== '' && !isAsciiDigit(params.charCodeAt(0))) return;
      // SGR: clean only after a plain reset (CSI m, CSI 0 m). Anything else may have left a colour
      // on; a needless CSI 0 m at exit is invisible, so erring this way costs nothing. (A loop,
      // not a regex: this runs for every colour change in the output.)
      let isReset = true;
      for (let k = 0; k < params.length; k++) {
        if (params.charCodeAt(k) !== 0x30) {
          isReset = false;
          break;
        }
      }
      this.isSgrDirty = !isReset;
    }
  }

  private resetAll(): void {
    this.revisionCount += 1;
    this.changedModes.clear();
    this.kittyDepth = 0;
    this.isKittyFlagsSet = false;
    this.isModifyOtherKeysSet = false;
    this.isKeypadApplication = false;
    this.isSgrDirty = false;
  }

  /** What to write to put every mode seen switched on back to its default; '' when none. */
  resetSequence(): string {
    const parts: string[] = [];
    if (this.isSgrDirty) parts.push('\x1b[0m');
    if (this.kittyDepth > 0) parts.push(`\x1b[<${this.kittyDepth}u`);
    if (this.isKittyFlagsSet) parts.push('\x1b[=0;1u');
    if (this.isModifyOtherKeysSet) parts.push('\x1b[>4m');
    if (this.isKeypadApplication) parts.push('\x1b>');
    const modes = [...this.changedModes].filter((mode) => !ALT_SCREEN_MODES.includes(mode)).sort((a, b) => a - b);
    for (const mode of modes) parts.push(`\x1b[?${mode}${DEC_MODES_ON_BY_DEFAULT.has(mode) ? 'h' : 'l'}`);
    for (const mode of ALT_SCREEN_MODES) if (this.changedModes.has(mode)) parts.push(`\x1b[?${mode}l`);
    return parts.join('');
  }
}
