/**
 * The terminal guardian: a tiny `/bin/sh` child that shares the user's terminal and puts it
 * back if agentwrap dies without doing so itself (`kill -9`, an OOM kill, a crash in native
 * code). An 'exit' hook cannot run then, and a shell that does not restore the terminal of a
 * killed job (sh, dash, scripts) would leave the user typing blind in raw mode.
 *
 * It learns of agentwrap's death through its stdin, a pipe whose only writer is agentwrap
 * (libuv creates it close-on-exec, so the agent never inherits it): when the pipe reaches EOF
 * agentwrap is gone. agentwrap tells it, one line each, `raw` after entering raw mode, `cooked`
 * after restoring, and `reset <octal-escaped bytes>` when the modes the agent left on change.
 * At EOF it acts only if the last word was `raw` AND the terminal is still in the very raw
 * settings it read on hearing `raw` — so a shell that already restored the terminal (bash does
 * for a job killed by a signal) is never overridden. It then writes the mode resets and
 * `stty <saved>`. (It reads the raw settings itself, within milliseconds of agentwrap entering
 * raw mode, so agentwrap spends no extra `stty` call on it.)
 *
 * Cost: one shell process, asleep in `read`, started once per session; a few bytes per raw
 * or mode change. Nothing on the output path.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The guardian itself. `$1` is the `stty -g` snapshot to restore. fd 3 is a copy of the
 * terminal (stdout), because inside `$(…)` stdout is the capture pipe. Signals that a
 * background or orphaned process would get for touching the terminal (TTOU) or from the
 * keyboard and hangup (INT, QUIT, TSTP, HUP) are ignored, and stty inherits SIG_IGN for TTOU,
 * which lets it set the terminal after the shell took it back.
 */
const GUARDIAN_SCRIPT = `
trap '' HUP INT QUIT TSTP TTIN TTOU PIPE
exec 3>&1
saved=$1 armed= raw= reset=
while IFS= read -r line; do
  case $line in
    raw) armed=1; raw=$(stty -g <&3 2>/dev/null) ;;
    cooked) armed= ;;
    reset\\ *) reset=\${line#reset } ;;
  esac
done
[ -n "$armed" ] && [ -n "$raw" ] || exit 0
now=$(stty -g <&3 2>/dev/null) || exit 0
[ "$now" = "$raw" ] || exit 0
printf '%b' "\\0033[0m$reset" >&3
stty "$saved" <&3
`;

export interface TerminalGuardian {
  /** agentwrap entered raw mode: restore if it dies from now on. */
  armed(): void;
  /** agentwrap restored the terminal itself: nothing to do if it dies now. */
  disarmed(): void;
  /** The sequence that switches off what the agent left on (ModeTracker.resetSequence). */
  setReset(sequence: string): void;
}

/** `\ooo` escapes for printf %b, so any byte survives a line-based protocol and the shell. */
export function octalEscape(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const isPlain = byte >= 0x20 && byte < 0x7f && byte !== 0x5c && byte !== 0x25;
    out += isPlain ? String.fromCharCode(byte) : `\\0${byte.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/**
 * Starts the guardian on the terminal at fd `terminalFd` (agentwrap's stdout) with `snapshot`
 * (`stty -g`) as the settings to put back. Never throws: a guardian that cannot start is
 * reported through `warn` and the session runs unguarded, as before.
 */
export function startTerminalGuardian(snapshot: string, terminalFd: number, warn: (message: string) => void): TerminalGuardian {
  let child: ChildProcess | undefined;
  let isBroken = false;
  const fail = (error: unknown): void => {
    if (isBroken) return;
    isBroken = true;
    warn(`terminal guardian unavailable (${error instanceof Error ? error.message : String(error)}); a killed agentwrap may leave the terminal raw`);
  };
  try {
    child = spawn('/bin/sh', ['-c', GUARDIAN_SCRIPT, 'agentwrap-guardian', snapshot], {
      stdio: ['pipe', terminalFd, 'ignore'],
    });
    child.on('error', fail);
    // The guardian's stdin closing early (it died) must not crash agentwrap; it is only a guard.
    child.stdin?.on('error', () => {
      isBroken = true;
    });
    // Neither the child nor its pipe may keep a finished agentwrap alive.
    child.unref();
    const stdin = child.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
    stdin?.unref?.();
  } catch (error) {
    fail(error);
  }
  const send = (line: string): void => {
    if (isBroken || child?.stdin == null) return;
    try {
      // A small write to an empty pipe is done at once by libuv, even from an 'exit' handler.
      child.stdin.write(`${line}\n`);
    } catch (error) {
      fail(error);
    }
  };
  return {
    armed: () => send('raw'),
    disarmed: () => send('cooked'),
    setReset: (sequence) => send(`reset ${octalEscape(sequence)}`),
  };
}
