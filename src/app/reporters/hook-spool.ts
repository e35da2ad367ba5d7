/**
 * The spool agent hooks report through (Claude Code's, Codex's, Gemini CLI's). A hook only
 * writes its payload into a file of the launch's private directory, with the shell alone
 * (spoolHookLine); agentwrap
 * takes each file as it lands and delivers it to its session as one `report`, as
 * `agentwrap report` would. A hook that started Node instead cost 100-170 ms of CPU each time,
 * and SessionStart's ran while Claude Code drew its first screen (E2E.md: hooks on drew it
 * 70-90 ms later than hooks off on 2 cores).
 *
 * A file is `<hook shell pid>.<event>.json`, renamed from `.part` once written whole, so a
 * half-written file is never read. Its modification time is when the hook ran: the report's
 * sequence number (gating drops one that arrives after a newer one) and its send time.
 */
import { readdirSync, readFileSync, statSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** POSIX shell single-quoting. */
export function shellQuote(word: string): string {
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell line of one hook: the payload on its stdin written into the launch's report spool,
 * with the shell alone, and nothing else. Claude Code 2.1.332 does not draw its answer to Enter
 * (UserPromptSubmit) or its permission dialog (PermissionRequest) until the hook process ends,
 * `async: true` or not, and Gemini CLI runs every hook synchronously, so the hook must end at
 * once: `cat` and `mv` take a few milliseconds where starting Node took 100-170 ms of CPU
 * (400-650 ms of waiting on a loaded 2-core machine). Nothing on stdout (Claude Code adds a
 * SessionStart or UserPromptSubmit hook's output to the conversation, Gemini CLI parses it as
 * the hook's decision), nothing on stderr, and exit 0 whatever happens (exit 2 would block the
 * action in all three).
 */
export function spoolHookLine(spoolDir: string, event: string): string {
  const file = `${shellQuote(spoolDir)}/$$.${event}`;
  return `{ cat > ${file}.part && mv -f ${file}.part ${file}.json; } >/dev/null 2>&1; exit 0`;
}

/** A spooled file's name: the hook shell's pid, the event, `.json`. */
const SPOOLED_NAME = /^\d+\.([A-Za-z][\w-]*)\.json$/;

/** Payload bytes read at most (as `agentwrap report --json -`); a larger file is delivered without its payload. */
export const SPOOL_PAYLOAD_MAX_BYTES = 1024 * 1024;

/** How often the spool is looked at besides the directory watch (a watch can miss or fail). */
export const SPOOL_POLL_MS = 1000;

export interface SpooledReport {
  readonly event: string;
  /** The payload as written, or undefined when it was over SPOOL_PAYLOAD_MAX_BYTES. */
  readonly text: string | undefined;
  /** When the hook wrote it (wall clock, ms). */
  readonly writtenAtMs: number;
}

/** The reports waiting in `dir`, oldest first; each file is removed as it is taken. */
export function takeSpooled(dir: string): SpooledReport[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    // The directory is gone (disposed) or unreadable: nothing to take.
    void error;
    return [];
  }
  const taken: SpooledReport[] = [];
  for (const name of names) {
    const event = SPOOLED_NAME.exec(name)?.[1];
    if (event === undefined) continue;
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      const text = stat.size > SPOOL_PAYLOAD_MAX_BYTES ? undefined : readFileSync(path, 'utf8');
      unlinkSync(path);
      taken.push({ event, text, writtenAtMs: stat.mtimeMs });
    } catch (error) {
      // Vanished between the listing and the read: it was taken already.
      void error;
    }
  }
  return taken.sort((a, b) => a.writtenAtMs - b.writtenAtMs);
}

export interface SpoolFollowing {
  /** Stops watching; files that land afterwards stay where they are. */
  stop(): void;
}

/**
 * Delivers every report that lands in `dir`, in the order the hooks wrote them, until stopped.
 * `deliver` gets each one's params; a failed delivery is said once through `warn` and the next
 * report is still tried. Once stopped (the agent exited), a delivery still under way that fails
 * is a normal ending, not a fault: Claude Code runs its `SessionEnd` hook as it exits, and the
 * report races the session closing its socket. That is said only through `debug`, if given.
 */
export function followSpool(
  dir: string,
  deliver: (report: SpooledReport) => Promise<unknown>,
  warn: (message: string) => void,
  debug?: (message: string) => void,
): SpoolFollowing {
  let isStopped = false;
  let isDraining = false;
  let isAgainWanted = false;
  let hasWarned = false;
  const drain = async (): Promise<void> => {
    if (isDraining) {
      isAgainWanted = true;
      return;
    }
    isDraining = true;
    try {
      do {
        isAgainWanted = false;
        for (const report of takeSpooled(dir)) {
          if (isStopped) return;
          await deliver(report).catch((error: unknown) => {
            const message = `a hook's ${report.event} report did not reach the session: ${error instanceof Error ? error.message : String(error)}`;
            if (isStopped) debug?.(`${message} (after the agent exited)`);
            else if (!hasWarned) {
              hasWarned = true;
              warn(message);
            }
          });
        }
      } while (isAgainWanted && !isStopped);
    } finally {
      isDraining = false;
    }
  };
  let watcher: FSWatcher | undefined;
  try {
    // Not persistent: the agent's exit, not the watch, ends agentwrap.
    watcher = watch(dir, { persistent: false }, () => void drain());
    // A watch that breaks leaves the poll below.
    watcher.on('error', () => watcher?.close());
  } catch (error) {
    // No inotify (or its limit reached): the poll alone delivers, up to SPOOL_POLL_MS late.
    void error;
  }
  const poll = setInterval(() => void drain(), SPOOL_POLL_MS);
  poll.unref();
  void drain();
  return {
    stop: () => {
      isStopped = true;
      watcher?.close();
      clearInterval(poll);
    },
  };
}
