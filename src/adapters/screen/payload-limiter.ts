/**
 * Bounds OSC and DCS payloads before xterm sees them (STRING_PAYLOAD_MAX_UNITS explains why).
 */
import { Buffer } from 'node:buffer';
import { BEL, CAN, ESC, SUB } from './constants.js';
import type { Chunk } from './queue.js';

const STRING_SPECIAL_BYTES = [BEL, CAN, SUB, ESC, 0xc2] as const;
/** What opens an escape string: ESC ] (OSC), ESC P (DCS), and the UTF-8 C1 forms of both. */
const STRING_OPENERS: readonly Buffer[] = [
  Buffer.from([ESC, 0x5d]),
  Buffer.from([ESC, 0x50]),
  Buffer.from([0xc2, 0x9d]),
  Buffer.from([0xc2, 0x90]),
];
const STRING_SPECIAL_UNITS = /[\x07\x18\x1a\x1b\x80-\x9f]/g;
const OSC_C1 = 0x9d;
const DCS_C1 = 0x90;

/**
 * Cuts OSC and DCS payloads to `maxUnits` (bytes, or UTF-16 units for string chunks), across
 * chunk boundaries, following xterm's parser where it matters: a string starts at `ESC ]`,
 * `ESC P` or their C1 forms, and ends at BEL, at ESC (ST is `ESC \`; any other ESC aborts it),
 * at CAN or SUB, or at any C1 control. Bytes outside strings pass untouched; a cut never splits
 * a UTF-8 character or a surrogate pair. Exported for tests.
 */
export class StringPayloadLimiter {
  private state: 'ground' | 'escape' | 'string' = 'ground';
  private units = 0;
  private isDropping = false;
  /** Bytes: the last byte seen was 0xC2 (a C1 control in UTF-8 is C2 80–C2 9F). */
  private isAfterC2 = false;

  constructor(private readonly maxUnits: number) {}

  limit(data: Chunk): Chunk {
    return typeof data === 'string' ? this.limitText(data) : this.limitBytes(data);
  }

  private enterString(): void {
    this.state = 'string';
    this.units = 0;
    this.isDropping = false;
  }

  /** A C1 control (as a code point): OSC and DCS open a string, any other one ends it. */
  private onC1(code: number): void {
    if (code === OSC_C1 || code === DCS_C1) this.enterString();
    else this.state = 'ground';
  }

  /** An ASCII special or any byte after ESC. */
  private onSpecial(code: number): void {
    if (this.state === 'escape') {
      if (code === 0x5d || code === 0x50) this.enterString();
      else this.state = code === ESC ? 'escape' : 'ground';
      return;
    }
    if (code === ESC) this.state = 'escape';
    else if (this.state === 'string' && (code === BEL || code === CAN || code === SUB)) this.state = 'ground';
  }

  private limitBytes(bytes: Uint8Array): Uint8Array {
    if (this.passesWhole(bytes)) return bytes;
    const next = new Int32Array(STRING_SPECIAL_BYTES.length).fill(-2);
    const nextSpecial = (from: number): number => {
      let best = bytes.length;
      for (let k = 0; k < STRING_SPECIAL_BYTES.length; k++) {
        let at = next[k] as number;
        if (at !== -1 && at < from) {
          at = bytes.indexOf(STRING_SPECIAL_BYTES[k] as number, from);
          next[k] = at;
        }
        if (at !== -1 && at < best) best = at;
      }
      return best;
    };
    const kept: Uint8Array[] = [];
    let keptFrom = 0;
    let dropped = 0;
    const drop = (from: number, to: number): void => {
      if (to <= from) return;
      if (from > keptFrom) kept.push(bytes.subarray(keptFrom, from));
      keptFrom = to;
      dropped += to - from;
    };
    // In ground state only a string opener matters (ESC ] / ESC P, or their C1 forms C2 9D / C2
    // 90): jump straight to the next one with native searches instead of stepping through every
    // escape sequence of the stream (a TUI has one every few bytes; this was ~190 ms per 50 MB).
    const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const nextOpen = new Int32Array(STRING_OPENERS.length).fill(-2);
    const nextOpener = (from: number): number => {
      let best = -1;
      for (let k = 0; k < STRING_OPENERS.length; k++) {
        let at = nextOpen[k] as number;
        if (at !== -1 && at < from) {
          at = haystack.indexOf(STRING_OPENERS[k] as Buffer, from);
          nextOpen[k] = at;
        }
        if (at !== -1 && (best === -1 || at < best)) best = at;
      }
      return best;
    };
    let i = 0;
    while (i < bytes.length) {
      if (this.state === 'ground' && !this.isAfterC2) {
        const opener = nextOpener(i);
        // None left: only a last ESC or C2 (an opener split across chunks) still counts.
        const resumeAt = opener === -1 ? bytes.length - 1 : opener;
        if (resumeAt > i) i = resumeAt;
      }
      const byte = bytes[i] as number;
      if (this.isAfterC2) {
        this.isAfterC2 = false;
        if (byte >= 0x80 && byte <= 0x9f) {
          this.onC1(byte);
          i += 1;
          continue;
        }
        if (this.state === 'escape') this.state = 'ground';
        if (this.state === 'string' && byte >= 0xa0 && byte <= 0xbf) {
          // The second half of a character that started with the C2 just before: kept with it.
          this.units += 1;
          i += 1;
          continue;
        }
      }
      if (this.state === 'escape') {
        if (byte === 0xc2) {
          this.isAfterC2 = true;
          i += 1;
          continue;
        }
        this.onSpecial(byte);
        i += 1;
        continue;
      }
      const special = nextSpecial(i);
      if (this.state === 'string') {
        if (this.isDropping) {
          drop(i, special);
        } else if (special - i + this.units > this.maxUnits) {
          // Start dropping at the first character boundary past the limit.
          let cut = i + (this.maxUnits - this.units);
          while (cut < special && ((bytes[cut] as number) & 0xc0) === 0x80) cut += 1;
          this.units = this.maxUnits;
          if (cut < special) {
            this.isDropping = true;
            drop(cut, special);
          }
        } else {
          this.units += special - i;
        }
      }
      if (special >= bytes.length) break;
      const code = bytes[special] as number;
      i = special + 1;
      if (code === 0xc2) {
        const following = bytes[special + 1];
        const isCharacter = following !== undefined && !(following >= 0x80 && following <= 0x9f);
        if (this.state === 'string' && isCharacter && (this.isDropping || this.units >= this.maxUnits)) {
          // A character (C2 A0–BF) past the limit: dropped like any other (its second byte
          // goes with the rest of the dropped run).
          this.isDropping = true;
          drop(special, special + 1);
          continue;
        }
        // A C1 control, or a C2 at the end of the chunk: decided by the next byte.
        this.isAfterC2 = true;
        continue;
      }
      this.onSpecial(code);
    }
    if (dropped === 0) return bytes;
    if (keptFrom < bytes.length) kept.push(bytes.subarray(keptFrom));
    return Buffer.concat(kept);
  }

  /**
   * The common case, decided without the scan below: in ground state a chunk holding no string
   * opener passes whole, and only its last byte (an ESC or a C2 that may open a string in the
   * next chunk) moves the state. A spinner's hand-over is such a chunk; the scan's set-up (its
   * tables and closures) cost more than its search there.
   */
  private passesWhole(bytes: Uint8Array): boolean {
    if (this.state !== 'ground' || this.isAfterC2 || bytes.length === 0) return false;
    // TypedArray#indexOf, not Buffer#includes of the two-byte openers: this runs a few times a
    // second, never hot enough for V8 to optimise it, and Buffer's search is JavaScript around
    // the native one while TypedArray's is a builtin.
    if (hasOpener(bytes, ESC, 0x5d, 0x50) || hasOpener(bytes, 0xc2, OSC_C1, DCS_C1)) return false;
    const last = bytes[bytes.length - 1];
    if (last === ESC) this.state = 'escape';
    else if (last === 0xc2) this.isAfterC2 = true;
    return true;
  }

  private limitText(text: string): string {
    let out = '';
    let keptFrom = 0;
    let i = 0;
    const specials = new RegExp(STRING_SPECIAL_UNITS.source, 'g');
    while (i < text.length) {
      if (this.state === 'escape') {
        const code = text.charCodeAt(i);
        if (code >= 0x80 && code <= 0x9f) this.onC1(code);
        else this.onSpecial(code);
        i += 1;
        continue;
      }
      specials.lastIndex = i;
      const found = specials.exec(text);
      const special = found === null ? text.length : found.index;
      if (this.state === 'string') {
        if (this.isDropping) {
          out += text.slice(keptFrom, i);
          keptFrom = special;
        } else if (special - i + this.units > this.maxUnits) {
          let cut = i + (this.maxUnits - this.units);
          const unit = text.charCodeAt(cut);
          if (unit >= 0xdc00 && unit <= 0xdfff) cut += 1;
          this.units = this.maxUnits;
          if (cut < special) {
            this.isDropping = true;
            out += text.slice(keptFrom, cut);
            keptFrom = special;
          }
        } else {
          this.units += special - i;
        }
      }
      if (special >= text.length) break;
      const code = text.charCodeAt(special);
      i = special + 1;
      if (code >= 0x80 && code <= 0x9f) this.onC1(code);
      else this.onSpecial(code);
    }
    if (keptFrom === 0) return text;
    return out + text.slice(keptFrom);
  }
}

/** Whether `lead` is followed by `first` or `second` somewhere in `bytes` (a last `lead` is not). */
function hasOpener(bytes: Uint8Array, lead: number, first: number, second: number): boolean {
  for (let at = bytes.indexOf(lead); at !== -1 && at + 1 < bytes.length; at = bytes.indexOf(lead, at + 1)) {
    const next = bytes[at + 1];
    if (next === first || next === second) return true;
  }
  return false;
}
