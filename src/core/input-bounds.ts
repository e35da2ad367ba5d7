/**
 * Every limit on input agentwrap does not fully control, in one place: recordings someone sent
 * you, another machine's output, files at well-known paths. Each read is bounded in bytes,
 * lines, sizes and times so a hostile or broken input ends in one clear message, never in
 * gigabytes of memory or a loop that does not end (docs/robustness.md, "Bounded reads").
 * Each value is far above anything a real input reaches; the reason sits beside it.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

// ── recordings (.cast) ───────────────────────────────────────────────────────────────────────

/**
 * Largest screen a recording may ask for; a header or resize past it is clamped. The mirror
 * allocates every cell (~12 bytes each, plus a line object per row): 2,000,000 × 2,000,000 took
 * 9 GB before it failed, and every tick reads every cell (REPLAY_MAX_CELL_TICKS). A full-screen
 * terminal on a 4K display with an 8 × 16 pixel font is 480 × 135, inside these.
 */
export const CAST_MAX_COLS = 500;
export const CAST_MAX_ROWS = 300;

/**
 * Longest time a recording may span, in seconds; events past it are ignored with one note.
 * Replay ticks through recorded time (about 5 ms of CPU per simulated hour on an idle screen)
 * and eval samples it every 100 ms, so a time of 1e9 s ticked for most of an hour and 1e300 s
 * never ended. A day keeps an overnight session whole; eval keeps ~860,000 samples (~60 MB).
 */
export const CAST_MAX_SPAN_S = 24 * 60 * 60;

/**
 * Largest recording file read. Decoding holds the text and every event (~200 bytes per event
 * beyond its data): 63 MiB of short events peaked at 456 MB and took 10 s to replay, so the cap
 * is half that. An hour of a busy agent's screen is a few MB (the biggest in recordings/ is 1.6 MB).
 */
export const CAST_MAX_BYTES = 32 * MIB;

/**
 * Most screen work one replay may do, in cells read (the screen's cells, summed over every
 * tick); past it the replay stops there with a warning. A tick reads the whole screen (60–130 ns
 * a cell), so cost is cells × ticks: one hour of a 1000×500 screen changing every 0.2 s took
 * 445 s, and times up to 24 h allow that much. At this cap that hour stops after 4 s; a busy
 * 80×24 agent (4–10 ticks a second) replays ~1.7 hours, a settled one (a tick per 5 s) days.
 */
export const REPLAY_MAX_CELL_TICKS = 60_000_000;

/** Notes kept per recording (bad lines, clamps); the rest are counted in one more note. */
export const CAST_MAX_NOTES = 100;

/** A `.labels.jsonl` or `.meta.json` beside a recording: a few KB in practice. */
export const CAST_SIDECAR_MAX_BYTES = 4 * MIB;

/**
 * Most screen text `eval --report` keeps per recording (characters): one screen per second and
 * per state change, each up to CAST_MAX_COLS × CAST_MAX_ROWS, would otherwise grow without end.
 */
export const REPORT_SCREEN_TEXT_MAX_CHARS = 4 * MIB;

// ── other machines (ssh) ─────────────────────────────────────────────────────────────────────

/**
 * Most stdout kept from a remote `agentwrap status --json`; past it the remote is killed and
 * counted as unreachable. A record is at most 64 KiB, so this is 256 sessions at their
 * largest (a real one is ~1 KiB); a hostile host sent 7 GB before V8 aborted.
 */
export const REMOTE_STDOUT_MAX_BYTES = 16 * MIB;

/**
 * Longest line of a remote `agentwrap events`; a longer one is dropped (one warning per
 * connection). A transition line is ~200 bytes; one endless line grew to 860 MB in 60 s.
 */
export const REMOTE_EVENT_LINE_MAX_CHARS = 64 * KIB;

// ── files at well-known paths ────────────────────────────────────────────────────────────────

/** Largest config.toml read: the whole schema written out is ~2 KB. The same for the agents' own
 * config and settings files agentwrap reads (Codex's config.toml, a Claude `--settings` file). */
export const CONFIG_FILE_MAX_BYTES = 1 * MIB;

/** Largest screen file `status explain --file` reads: a 500×300 screen of 4-byte characters is 600 KB. */
export const SCREEN_FILE_MAX_BYTES = 4 * MIB;

// ── answers and prompts from elsewhere (agentwrap answer / send, the dashboards) ─────────────

/**
 * Longest prompt `agentwrap send` types into an agent, in characters: a long pasted task is a
 * few KB; past this the request is refused, not cut (a cut prompt is a different prompt).
 */
export const REMOTE_PROMPT_MAX_CHARS = 16 * KIB;

/**
 * A blocked dialog read from the agent's screen (core/dialog/read.ts) and published in the
 * record: options per dialog (a real one has 2–5; the dashboards choose 1–9 with a digit) and
 * UTF-16 units of its question and of each label (a wrapped label is joined first).
 */
export const DIALOG_MAX_OPTIONS = 9;
export const DIALOG_QUESTION_MAX_UNITS = 300;
export const DIALOG_LABEL_MAX_UNITS = 200;

/** Answers and prompts kept in a session's explain history (`status explain`), newest last. */
export const REMOTE_INPUT_NOTES_MAX = 50;
