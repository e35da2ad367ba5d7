/**
 * The screen mirror's numbers: how much it holds, how it paces its parse, how much evidence it
 * keeps. Each one's reason is beside it; docs/screen.md tells the story they add up to.
 */
import type { ParsePacing } from './types.js';

/** Bytes handed to xterm at once: ~10 ms of parsing, so one parse slice never starves the
 * event loop and xterm stays far below its 50 MB discard limit (where it throws). */
export const IN_FLIGHT_MAX_BYTES = 1024 * 1024;
/** Unparsed backlog (beyond what xterm holds) above which the oldest bytes are skipped.
 * 4 MiB is ~40–80 ms of parsing: about the most the mirror can lag behind the passthrough. */
export const BACKLOG_HIGH_BYTES = 4 * 1024 * 1024;
/** What a cut keeps: the newest bytes, several full redraws of a 200x50 TUI (~50–100 KB each). */
export const BACKLOG_LOW_BYTES = 1024 * 1024;
/** Chunks larger than this are handed to xterm in pieces, so one huge write (replay of a
 * recording, a test) is parsed in slices instead of one long synchronous call. */
export const PIECE_MAX_BYTES = 256 * 1024;
/** Parse time the live main-thread mirror may spend per second while output keeps coming: 5 % of
 * a core, ~2–2.5 MB/s of TUI output here. A 200 MB flood at 80 MB/s then costs ~0.13 s of parsing
 * instead of ~4 s; a 10 fps spinner (~0.5 ms/s) or a 60 fps full-screen redraw of 20 KB
 * (~25 ms/s) stays far inside it and is parsed completely. */
export const PARSE_BUDGET_MS_PER_S = 50;
/** The bucket's capacity: a burst of output after a calm spell (a full redraw, a long diff of up
 * to ~1 MB) is parsed at once instead of waiting for the budget. */
export const PARSE_BURST_MS = 20;
/** Once the bucket ran dry, parsing resumes when this much is back: enough for about one
 * `BUDGET_WINDOW_BYTES` window, so each resumption shows a whole recent screen instead of a
 * sliver of an old one. At the budget's rate that is one screen update per 200 ms of flood. */
export const PARSE_RESUME_MS = 10;
/** What a resumption (and the catch-up after a lossy flood) keeps: the newest bytes. Two full
 * truecolor redraws of a 200x50 TUI (~200 KB each at worst; typical frames are 5–50 KB). */
export const BUDGET_WINDOW_BYTES = 512 * 1024;
/** No byte for this long counts as quiet: the mirror then catches up without a budget. It must
 * be well under the detector's QUIET_RECHECK_MS (100 ms, src/core/policy.ts), which reads the
 * screen once output stopped: catch-up (≤ a window, ~10–20 ms) starts here and ends before. */
export const QUIET_CATCH_UP_MS = 30;
/** A write at most this big into an idle mirror is parsed inline (~20–100 µs; a spinner frame
 * or a prompt redraw), saving the wake-up of a scheduled parse. */
export const INLINE_WRITE_MAX_BYTES = 4 * 1024;
/** Budgeted parsing goes in slices this big (~1–1.5 ms), so the bucket is overdrawn by little. */
export const BUDGET_SLICE_BYTES = 64 * 1024;
/** One event-loop turn parses at most this long, so a catch-up never holds the loop for long. */
export const PARSE_TURN_MAX_MS = 8;
/** A title is stored bounded (agents and malicious output may send megabytes). */
export const TITLE_MAX_CHARS = 512;
/** OSC 7501 program status: only this much of a sequence is read (a real one is under 200 characters). */
export const PROGRAM_STATUS_MAX_INPUT_CHARS = 4096;
/** An OSC 7501 `kind`, `id` or `app` is kept to this many characters. */
export const PROGRAM_STATUS_MAX_VALUE_CHARS = 64;
/** An OSC 7501 `msg` (a dialog's question), decoded, is kept to this many characters. */
export const PROGRAM_STATUS_MAX_MSG_CHARS = 200;
/** How many title change times are kept, enough to tell an animating spinner from a still one. */
export const TITLE_RECENT_CHANGES = 8;
/** Default scrollback: the mirror reads only the viewport, so history is memory spent for nothing. */
export const DEFAULT_SCROLLBACK_LINES = 0;

/**
 * Longest OSC or DCS payload handed to xterm; the rest of a longer one is dropped before
 * parsing (its terminator is kept). xterm builds each payload one character at a time into a
 * rope of ~32 bytes per character, once per registered handler, up to 10 M characters: a 4 MiB
 * title cost ~280 MB of heap. Everything the mirror reads from a string (a title, a progress
 * value, a notification, a shell mark) is in its first few hundred characters.
 */
export const STRING_PAYLOAD_MAX_UNITS = 64 * 1024;

/** The live mirror's pacing unless a test overrides part of it. */
export const DEFAULT_PACING: ParsePacing = {
  budgetMsPerSecond: PARSE_BUDGET_MS_PER_S,
  burstMs: PARSE_BURST_MS,
  resumeMs: PARSE_RESUME_MS,
  windowBytes: BUDGET_WINDOW_BYTES,
  quietMs: QUIET_CATCH_UP_MS,
};

/** Control bytes the limiter, the salvage and the cut look for. */
export const CAN = 0x18;
export const BEL = 0x07;
export const ESC = 0x1b;
export const SUB = 0x1a;
