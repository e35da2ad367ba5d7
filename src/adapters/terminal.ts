/**
 * The user's own terminal (agentwrap's stdin/stdout): raw mode in, restored on every way out,
 * its size and resizes, job-control stops, and the reset sequence for modes a crashed agent
 * left on. The PTY side lives in pty.ts; app/launch.ts wires the two together.
 *
 * Raw mode here is the full cfmakeraw set. Node's setRawMode (libuv UV_TTY_MODE_RAW) keeps
 * OPOST|ONLCR on, so a raw-mode program that writes a bare "\n" to mean "cursor down" (ncurses
 * does when it turned ONLCR off on its own pty) would get "\r\n" on the user's screen and a
 * different picture than when run directly. So after setRawMode we also run `stty -opost` on
 * stdout; the `stty -g` snapshot taken before is what restore() puts back.
 */
import { spawnSync } from 'node:child_process';
import { startTerminalGuardian, type TerminalGuardian } from './terminal-guardian.js';
import { guardStdioErrors, isHungUp } from './terminal-hangup.js';

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/** The size a program assumes when there is no terminal to ask (the VT100 default). */
export const FALLBACK_SIZE: TerminalSize = { cols: 80, rows: 24 };

export interface OuterTerminal {
  /** Whether stdin and stdout are both terminals; only then is there a screen to wrap. */
  readonly isInteractive: boolean;
  /**
   * The file descriptors behind onInput and write, when they are real ones the native relay
   * (adapters/relay.ts) can read and write itself; absent for terminals made of callbacks.
   */
  readonly fds?: { readonly input: number; readonly output: number };
  /** Bytes the user typed (or piped in), as they arrive. */
  onInput(listener: (chunk: Buffer) => void): () => void;
  /** Called once when input ends (a pipe or file reached EOF). */
  onInputEnd(listener: () => void): () => void;
  /** Writes to the user's screen; synchronous for TTYs, pipes and files on POSIX. */
  write(chunk: Buffer | string): void;
  size(): TerminalSize;
  onResize(listener: (size: TerminalSize) => void): () => void;
  /** Enters raw mode; restore() is then guaranteed at process exit, whatever the exit path. */
  enterRaw(): void;
  /** Puts the terminal modes back as they were before enterRaw. Idempotent and synchronous. */
  restore(): void;
  /**
   * Job control: restores the terminal, stops agentwrap itself with SIGTSTP (so the shell
   * prints "Stopped" and `fg` works), and once continued re-enters raw mode. Returns after the
   * continue. In an orphaned process group (no job-control shell) the kernel discards the stop
   * and this returns at once.
   */
  suspendSelf(): void;
  /** Stops listening to input and resizes. Does not restore: call restore() for that. */
  dispose(): void;
  /**
   * What to write if agentwrap dies without restoring (kill -9): the resets for the modes the
   * agent has on now. Optional: only a real terminal has a guardian to tell.
   */
  setCrashReset?(sequence: string): void;
  /**
   * Whether the terminal went away (hung up: the tmux server or window is gone). Optional: a
   * terminal made of callbacks never goes away.
   */
  isGone?(): boolean;
  /** Called once when the terminal is found gone (a write failed with EIO/EPIPE, input hung up). */
  onGone?(listener: () => void): () => void;
}

type Warn = (message: string) => void;

function runStty(args: readonly string[], fd: number): { ok: true; stdout: string } | { ok: false; error: string } {
  // stty acts on its stdin, so hand it the terminal's fd as fd 0.
  const result = spawnSync('stty', [...args], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.error !== undefined) return { ok: false, error: result.error.message };
  if (result.status !== 0) return { ok: false, error: result.stderr.trim() || `stty exited ${String(result.status)}` };
  return { ok: true, stdout: result.stdout.trim() };
}

/** The terminal agentwrap was started in: process.stdin and process.stdout. */
export function processTerminal(warn: Warn = (message) => process.stderr.write(`agentwrap: ${message}\n`)): OuterTerminal {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const isInteractive = stdin.isTTY === true && stdout.isTTY === true;
  let isRaw = false;
  let outputSnapshot: string | undefined;
  let isOutputGone = false;
  let isExitHookInstalled = false;
  // Started on the first enterRaw; restores the terminal if agentwrap is killed (terminal-guardian.ts).
  let guardian: TerminalGuardian | undefined;
  const size = (): TerminalSize => {
    if (stdout.isTTY === true) {
      try {
        const [cols, rows] = stdout.getWindowSize();
        if (cols > 0 && rows > 0) return { cols, rows };
      } catch {
        // EIO: the terminal hung up; the size it had no longer matters.
      }
    }
    return FALLBACK_SIZE;
  };
  const warnedAbout = new Set<string>();
  const warnOnce = (key: string, message: string): void => {
    if (warnedAbout.has(key)) return;
    warnedAbout.add(key);
    warn(message);
  };
  const disposers: Array<() => void> = [];

  // A vanished terminal (SIGHUP, closed pipe) makes writes fail with EIO/EPIPE; that must not
  // crash agentwrap while it is still shutting the agent down (terminal-hangup.ts). The stdio
  // guard stays for the rest of the process: a write error can surface after dispose.
  const goneListeners = new Set<() => void>();
  const markGone = (): void => {
    if (isOutputGone) return;
    isOutputGone = true;
    for (const listener of goneListeners) listener();
  };
  disposers.push(guardStdioErrors(markGone));
  const isGone = (): boolean => {
    if (!isOutputGone && isInteractive && (isHungUp(0) || isHungUp(1))) markGone();
    return isOutputGone;
  };

  const restore = (): void => {
    if (!isRaw) return;
    isRaw = false;
    try {
      if (stdin.isTTY === true) stdin.setRawMode(false);
    } catch {
      // The terminal is gone (hangup): there is nothing left to restore.
    }
    if (outputSnapshot !== undefined && !isGone()) runStty([outputSnapshot], 1);
    guardian?.disarmed();
  };

  const enterRaw = (): void => {
    // A hung-up terminal has no modes left to set (and its SIGCONT is no `fg`: terminal-hangup.ts).
    if (isRaw || !isInteractive || isGone()) return;
    const snapshot = runStty(['-g'], 1);
    outputSnapshot = snapshot.ok ? snapshot.stdout : undefined;
    try {
      stdin.setRawMode(true);
    } catch {
      // EIO: it hung up between the check and the ioctl; the session ends on the hangup.
      markGone();
      return;
    }
    isRaw = true;
    const opost = runStty(['-opost'], 1);
    if (!opost.ok && !isGone()) {
      warnOnce('opost', `could not turn off output post-processing (stty: ${opost.error}); programs that send bare line feeds may look different`);
    }
    if (outputSnapshot !== undefined) {
      guardian ??= startTerminalGuardian(outputSnapshot, 1, (message) => warnOnce('guardian', message));
      guardian.armed();
    }
    if (!isExitHookInstalled) {
      isExitHookInstalled = true;
      // 'exit' runs on process.exit, on a normal end and after an uncaught exception, so the
      // terminal is cooked again whatever went wrong (Node also restores its startup termios).
      process.on('exit', restore);
    }
  };

  return {
    isInteractive,
    ...(isInteractive ? { fds: { input: 0, output: 1 } } : {}),
    onInput(listener) {
      const handler = (chunk: Buffer | string): void => listener(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      stdin.on('data', handler);
      return () => stdin.removeListener('data', handler);
    },
    onInputEnd(listener) {
      // A terminal's input ends only when it hangs up (raw mode reads never return 0 otherwise).
      const handler = (): void => {
        if (stdin.isTTY === true) markGone();
        listener();
      };
      stdin.once('end', handler);
      return () => stdin.removeListener('end', handler);
    },
    write(chunk) {
      if (isOutputGone) return;
      try {
        stdout.write(chunk);
      } catch {
        // Synchronous EIO/EPIPE from a terminal that went away: stop writing, keep shutting down.
        markGone();
      }
    },
    size,
    onResize(listener) {
      const handler = (): void => listener(size());
      stdout.on('resize', handler);
      return () => stdout.removeListener('resize', handler);
    },
    enterRaw,
    restore,
    suspendSelf() {
      const wasRaw = isRaw;
      restore();
      // With a SIGTSTP listener installed, Node would catch our own signal instead of stopping.
      // Take the listeners off, stop, put them back after the continue.
      const listeners = process.listeners('SIGTSTP');
      for (const listener of listeners) process.removeListener('SIGTSTP', listener);
      try {
        process.kill(process.pid, 'SIGTSTP');
      } finally {
        for (const listener of listeners) process.on('SIGTSTP', listener);
      }
      if (wasRaw) enterRaw();
    },
    dispose() {
      for (const dispose of disposers.splice(0)) dispose();
      stdin.pause();
    },
    setCrashReset(sequence) {
      guardian?.setReset(sequence);
    },
    isGone,
    onGone(listener) {
      goneListeners.add(listener);
      return () => goneListeners.delete(listener);
    },
  };
}

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
