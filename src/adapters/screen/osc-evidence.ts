/**
 * What agents say out of band, as the mirror's parser meets it: OSC 0/2 titles, OSC 9;4 progress,
 * notifications (OSC 9, 99, 777), OSC 133 shell marks, OSC 7501 program status and BEL, each
 * stamped with the time its bytes arrived. Each object is replaced only when it changes, so a tick may compare by identity.
 */
import { Buffer } from 'node:buffer';
import type { ProgramStatus, ProgressEvidence, ShellMark, TitleEvidence } from '../../core/types.js';
import { TITLE_MAX_CHARS, TITLE_RECENT_CHANGES } from './constants.js';
import { parseProgramStatus } from './program-status.js';
import type { ScreenEvidence } from './types.js';

/** The handlers return true: the sequence is ours, xterm's defaults (title events) have no use here. */
export class OscEvidence {
  private title: TitleEvidence | undefined;
  private progress: ProgressEvidence | undefined;
  private lastMark: ShellMark | undefined;
  private lastNotificationAtMs: number | undefined;
  private lastBellAtMs: number | undefined;
  private programStatus: ProgramStatus | undefined;

  /** `arrivalMs` tells the handlers when the bytes being parsed arrived. */
  constructor(private readonly arrivalMs: () => number) {}

  evidence(): ScreenEvidence {
    return {
      title: this.title,
      progress: this.progress,
      lastMark: this.lastMark,
      lastNotificationAtMs: this.lastNotificationAtMs,
      lastBellAtMs: this.lastBellAtMs,
      programStatus: this.programStatus,
    };
  }

  /** A C0 BEL (one that terminates an OSC never reaches here). */
  onBell(): void {
    this.lastBellAtMs = this.arrivalMs();
  }

  onTitle(data: string): boolean {
    const text = boundedCopy(data, TITLE_MAX_CHARS);
    if (this.title !== undefined && this.title.text === text) return true;
    const atMs = this.arrivalMs();
    const recent = [...(this.title?.recentChangesMs ?? []), atMs].slice(-TITLE_RECENT_CHANGES);
    this.title = Object.freeze({ text, changedAtMs: atMs, recentChangesMs: Object.freeze(recent) });
    return true;
  }

  /** OSC 9 is two conventions: ConEmu's `9;N;…` commands (4 = progress) and iTerm2's `9;text`. */
  onOsc9(data: string): boolean {
    const command = /^(\d+)(?:;|$)/.exec(data);
    if (command === null) {
      this.noteNotification();
      return true;
    }
    if (command[1] === '4') {
      const progress = parseProgress(data.slice(command[0].length), this.arrivalMs());
      if (progress !== undefined) this.progress = progress;
      return true;
    }
    // ConEmu's other commands (1–12; 9;9;cwd is common from shells) are not notifications. A
    // number followed by text ("3 tests failed") is, since the number is not followed by ';'.
    if (Number(command[1]) > 12) this.noteNotification();
    return true;
  }

  /** Kitty notifications; `p=?` in the metadata is a capability query, not a notification. */
  onOsc99(data: string): boolean {
    const semi = data.indexOf(';');
    const metadata = semi === -1 ? data : data.slice(0, semi);
    if (!/(?:^|:)p=\?/.test(metadata)) this.noteNotification();
    return true;
  }

  /** rxvt-style `777;notify;title;body`; other 777 extensions are not notifications. */
  onOsc777(data: string): boolean {
    if (data === 'notify' || data.startsWith('notify;')) this.noteNotification();
    return true;
  }

  onOsc133(data: string): boolean {
    const kind = data.charAt(0);
    if (kind !== 'A' && kind !== 'B' && kind !== 'C' && kind !== 'D') return true;
    if (data.length > 1 && data.charAt(1) !== ';') return true;
    const exitCode = kind === 'D' ? parseLenientInt(data.split(';')[1]) : undefined;
    this.lastMark = Object.freeze({ kind, exitCode, atMs: this.arrivalMs() });
    return true;
  }

  /** OSC 7501: a report replaces the last one (a repeat is a new statement, so its time counts); `clear` ends it. */
  onOsc7501(data: string): boolean {
    const parsed = parseProgramStatus(data, this.arrivalMs());
    if (parsed.kind === 'report') this.programStatus = parsed.status;
    else if (parsed.kind === 'clear') this.programStatus = undefined;
    return true;
  }

  private noteNotification(): void {
    this.lastNotificationAtMs = this.arrivalMs();
  }
}

/**
 * OSC 9;4 after the `4`: `st;pr`. The state is clamped to 0–4; a missing or unparsable state
 * means the sequence says nothing we can use (undefined: keep the previous evidence). The
 * value is 0–100, undefined when missing, negative (Grok sends `4;1;-1`) or garbage.
 */
export function parseProgress(rest: string, atMs: number): ProgressEvidence | undefined {
  const [stateText, valueText] = rest.split(';');
  const state = parseLenientInt(stateText);
  if (state === undefined) {
    // ConEmu and Windows Terminal treat a bare `9;4` as "remove".
    return stateText === undefined || stateText === '' ? Object.freeze({ state: 0, value: undefined, atMs }) : undefined;
  }
  const value = parseLenientInt(valueText);
  return Object.freeze({
    state: Math.min(Math.max(state, 0), 4),
    value: value === undefined || value < 0 ? undefined : Math.min(value, 100),
    atMs,
  });
}

function parseLenientInt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(-?\d{1,9})/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The first `maxChars` of `text` as a string that does not keep `text` alive: V8 represents a
 * slice of a long string as a view into it, which would pin a megabyte title in memory.
 */
function boundedCopy(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const lastUnit = text.charCodeAt(maxChars - 1);
  const end = lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxChars - 1 : maxChars;
  return Buffer.from(text.slice(0, end), 'utf16le').toString('utf16le');
}
