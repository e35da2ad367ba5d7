/**
 * Every timing and threshold constant of the detector, in one place, each with its unit and the
 * reason for its value. Arbitration, debounce, the watchdog and the session loop read these; no
 * other module may invent a duration. When a value changes, change the reason with it.
 */

/**
 * The tick floor: the session loop evaluates at least this often. A 1 Hz floor keeps an idle
 * session nearly free (the 85 % CPU complaint in agent-facts.md came from sub-second full scans)
 * while the quiet recheck below gives sub-second latency where it matters.
 */
export const TICK_MS = 1000;

/**
 * The tick floor of a settled session (core/detector/tick-cadence.ts): nothing new for SETTLE_AFTER_MS,
 * not working, and an agent tree with a quiet CPU. Such a session can only change on new
 * evidence, and every kind of it but one wakes the loop at once (output, a keystroke, a hook's
 * report, the exit, a time-based rule's own deadline); the one that does not is an agent that
 * starts computing without drawing anything, seen by the /proc sample up to this much later.
 * 1 Hz ticks were most of an idle session's CPU (one wake-up a second: a /proc walk and the
 * unchanged-tick check, ~0.35 ms on a quiet machine and ~1.2 ms on a loaded one).
 */
export const SETTLED_TICK_MS = 5000;

/**
 * The longest a settled session's floor grows to. Past SETTLED_TICK_MS the floor is half the
 * time the session has been quiet (core/detector/tick-cadence.ts), so what only the /proc sample
 * can see (an agent computing without drawing) is noticed within half the quiet so far, and a
 * session left at its prompt for a minute wakes twice a minute. Every wake-up costs Node about a
 * millisecond before any of agentwrap's work (a bare `setInterval` of 5 s measured 10 ms of CPU a
 * minute here), so the floor, not the work per tick, is what an idle session's CPU comes down to.
 */
export const LONG_SETTLED_TICK_MS = 30_000;

/** How long a session must see nothing new (output, input, a report, a state change) before its tick floor stretches to SETTLED_TICK_MS. */
export const SETTLE_AFTER_MS = 5000;

/**
 * Evaluate again this long after PTY output goes quiet. Agents draw a dialog in a burst of
 * frames within ~50–100 ms, so 100 ms of silence means the frame has settled and a permission
 * prompt is evaluated ~100 ms after it is drawn instead of up to a whole tick later. Measured on
 * the recorded corpus (62 sessions of Claude Code, Codex, OpenCode, Gemini): 150 ms → 100 ms
 * lowered p95 detection latency (claude 768 → 688 ms, codex 597 → 534 ms) with no spurious
 * transition, and caught a Gemini dialog that 150 ms published one sample late. Shorter would
 * evaluate half-drawn frames; the idle hold below absorbs those, blockers publish at once.
 */
export const QUIET_RECHECK_MS = 100;

/**
 * While output keeps streaming (a spinner redraws ~10 times a second, so it never goes quiet),
 * evaluate at most this often instead of only at the 1 s floor. Without it a dialog answered
 * while the spinner already runs was seen up to a whole tick late (p95 1006 ms on the Claude
 * corpus, and a 0.8 s working span in Codex multi-tool fell between two ticks). Unchanged
 * screens are still skipped, so this costs ~4 evaluations of ~50 µs a second while streaming.
 */
export const STREAMING_RECHECK_MS = 250;

/**
 * How long a strongly matched idle screen (a drawn idle prompt) must persist before it is
 * published. herdr and jackin publish strong idle at once but only at their 1 Hz tick (0–1000 ms
 * late, 700 ms cap); our quiet recheck evaluates ~100 ms after the last frame, so 300 ms more
 * rides out a redraw that briefly shows the prompt between tool calls and still publishes idle
 * ~400 ms after output stops.
 */
export const IDLE_HOLD_STRONG_MS = 300;

/**
 * How long inferred (weak) idle must persist, with a quiet CPU, before it is published. Weak idle
 * comes from signals that flicker at every tool call (Claude clears OSC 9;4 at each tool call;
 * titles settle between steps), so it must outlast a typical tool-call gap. 2 s covers the gaps
 * seen between Claude and Codex tool calls; a false "done" costs the operator more than a
 * second of lateness.
 */
export const IDLE_HOLD_WEAK_MS = 2000;

/**
 * Upper bound on how long weak working evidence (a CPU spike, a weak rule) can keep an idle
 * candidate from publishing, counted from the first idle candidate of the episode. Without it an
 * agent whose idle process tree still burns CPU (an MCP server, a file watcher) would pin
 * `working` forever. A strong working match is fresh positive evidence and restarts the episode.
 */
export const IDLE_HOLD_CAP_MS = 5000;

/**
 * Weak working (CPU alone, or a weak rule corroborated by physics) must persist this long
 * before it replaces idle or unknown. A Node agent re-rendering or garbage-collecting while idle
 * spikes CPU for a few hundred ms; publishing that as working would later fire a false "done".
 * Strong working (a drawn spinner line, an animating title) publishes at once.
 */
export const WEAK_WORKING_CONFIRM_MS = 1000;

/**
 * How long working nobody asked for must hold before it replaces blocked, idle or unknown: in the
 * agent's first answer to an interrupt key (Esc, Ctrl-C, nothing typed since; the output that
 * followed the key until it went quiet QUIET_RECHECK_MS), and before the operator typed anything
 * (start-up, no prompt on the command line). Live in a tmux pane, Codex answered Esc at its
 * permission dialog with one frame still saying "Working (1s • esc to interrupt)" and, 11 ms
 * later, "Conversation interrupted": a tick that fell between the two published working for 1.3 s
 * after the operator denied. At start-up every recorded Codex sets a spinner title and OSC 7501
 * `state=working` for 3-101 ms while it loads, then `idle` (recordings/codex/*.cast before the
 * first key): a tick that fell inside published working, then idle, and one that did not went
 * straight to idle, so live and replay disagreed (e2e, codex tmux-truecolor). Pi answers a denial
 * with real work, its loader redrawn every 80 ms for 0.8 s (recordings/pi/deny-*): 100 ms tells
 * the two apart and delays real working by at most that.
 */
export const UNASKED_WORKING_CONFIRM_MS = 100;

/**
 * A published state is kept this long while arbitration finds nothing before `unknown` is
 * published: one empty evaluation (a screen cleared for a redraw, a transient pack miss) must
 * not flap the record. 2 s is two 1 Hz ticks, so a single empty tick never shows.
 */
export const UNKNOWN_HOLD_MS = 2000;

/**
 * A title spinner keeps its authority this long after the title last changed. Spinners animate
 * several times a second while the agent works; 3 s is many missed frames, beyond any redraw
 * jitter, yet short enough that a spinner left behind at the end of a turn (the "stuck on
 * working" complaint) loses authority within a few seconds.
 */
export const TITLE_SPINNER_AUTHORITY_MS = 3000;

/**
 * A BEL or desktop notification corroborates a weak blocked match while it is unanswered (no
 * keystroke since) and younger than this. Agents ring when they start waiting; a ring from
 * several minutes ago says nothing about prose that appears now.
 */
export const ATTENTION_EDGE_MAX_AGE_MS = 300_000;

/**
 * Tree CPU rate (cores) at or above which physics alone counts as weak working and vetoes weak
 * idle. An idle Node agent sits at 0–5 %; rendering a stream or running a tool is well above
 * 25 %.
 */
export const CPU_BUSY_RATE = 0.25;

/**
 * The shortest window a CPU rate is measured over. At 100 clock ticks/s, one tick is 10 ms of
 * CPU: over a 1 s window that is 0.01 cores, over a 10 ms window a whole core. Samples taken
 * closer together (the quiet recheck) repeat the last measured rate.
 */
export const CPU_RATE_MIN_WINDOW_MS = 500;

/**
 * Tree CPU rate (cores) below which the watchdog calls the tree quiet. A hung or SIGSTOPped
 * agent reads 0; an idle Node event loop with timers stays under 2 %.
 */
export const CPU_QUIET_RATE = 0.02;

/**
 * Published `working` with no screen change, no output, a quiet CPU and no live children for
 * this long becomes `stuck`. Working agents redraw a timer or spinner at least every second, so
 * 10 s of total stillness is an anomaly (jackin's WATCHDOG_QUIET uses the same bound).
 */
export const WATCHDOG_QUIET_MS = 10_000;

/**
 * A `working` agent observed stopped (SIGSTOP, /proc state T) for this long is `stuck`, whatever
 * else is quiet. The short grace rides out a debugger or profiler attaching for a moment.
 */
export const STOPPED_STUCK_MS = 2000;

/** The window of the flap counter: published transitions are counted over the last minute. */
export const FLAP_WINDOW_MS = 60_000;

/**
 * This many published transitions inside FLAP_WINDOW_MS marks a session as flapping (a note for
 * `status explain`; a healthy agent changes state a few times per turn, not every few seconds).
 */
export const FLAP_ALERT_COUNT = 8;

/** Ticks kept per session for `status explain`: one minute at the 1 Hz floor. */
export const TICK_LOG_CAPACITY = 60;

/** Characters of the title kept in a tick-log digest; titles are bounded before they travel. */
export const TICK_LOG_TITLE_MAX_CHARS = 120;

/**
 * A reporter's claim (a permission request asserting blocked, an authoritative plugin's
 * working/idle) counts this long after it arrived unless the source releases it earlier.
 * Permission dialogs wait for as long as the operator is away, so the bound is long; it exists
 * so a claim whose end was never reported (a dialog answered remotely, a hook that crashed)
 * cannot pin a state forever. A blocked claim also ends at the first keystroke after it.
 */
export const REPORT_CLAIM_TTL_MS = 600_000;

/**
 * A turn-start claim (Claude Code's `UserPromptSubmit` asserting working) counts at most this
 * long: it only bridges the gap until the agent's own OSC 7501 `working`, which came 76-115 ms
 * after the hook in recordings/claude/habitat-tmux. A prompt that starts no turn (refused by
 * another hook, a command that never reaches the model) then costs at most this much working.
 */
export const TURN_START_CLAIM_MS = 1_000;

/**
 * A turn-start claim counts only when it arrived within this long of the operator's last key:
 * the hook of a prompt typed and sent came 114-179 ms after Enter (recordings/claude/
 * habitat-tmux, up to 774 ms on a loaded machine in claude/subagent-120x40). Claude Code also
 * runs `UserPromptSubmit` for prompts nobody typed (a finished background agent's result, 5.6 s
 * after the last key there), over a screen that stays idle: those author nothing.
 */
export const TURN_START_AFTER_KEY_MS = 1_000;

/**
 * A report that took longer than this from `agentwrap report` starting to the session receiving
 * it is stale and dropped: the command gives up on the socket after 300 ms, so anything older
 * was stuck somewhere and describes a moment that has passed.
 */
export const REPORT_MAX_DELIVERY_MS = 5_000;

/**
 * An idle, done or error OSC 7501 report counts once it has stood this long; until then the
 * screen decides. The agent writes the report in the same burst as the frame that shows the
 * change, and what it does not report may follow at once: Codex reports `done` and then draws
 * its "Implement this plan?" prompt 11–23 ms later (recordings/codex/plan-*), which must be on
 * screen, outranking the report, before the report is read. 50 ms covers that twice over;
 * QUIET_RECHECK_MS (100) would cost 70 ms of Codex p95 latency (295 → 223 ms) for no case seen.
 * The session also looks again this long after a working or blocked report: Claude Code reports
 * working before it takes its permission dialog down. (Codex's start-up flash, `working` for
 * 2–69 ms before any key, is debounce's: the working-before-input hold,
 * UNASKED_WORKING_CONFIRM_MS.)
 */
export const PROGRAM_STATUS_SETTLE_MS = 50;

/**
 * A working or blocked report counts once it has stood this long: a drawn blocker outranks it
 * anyway, so waiting PROGRAM_STATUS_SETTLE_MS only delayed it (Claude Code's p95 433 → 333 ms on
 * recordings/claude/habitat-tmux). Not zero: the capture lab stamps a key after writing it, up
 * to 2.3 ms after the agent's answer (recordings/codex/approve-120x40), and a report read before
 * its key's stamp scores as a spurious transition; 5 ms covers that twice over, and nobody sees it.
 */
export const PROGRAM_STATUS_ACT_SETTLE_MS = 5;

/**
 * The idle hold of a settled idle, done or error report: none. The hold exists so a gap between
 * tool calls does not read as the end of a turn; an agent that reports its own state says
 * working through those gaps (Codex does, every multi-tool recording), so its idle is the end.
 */
export const PROGRAM_STATUS_IDLE_HOLD_MS = 0;

/**
 * An OSC 7501 report (the agent's own state, core/detector/program-status.ts) outranks the
 * screen's working and idle rules for this long after it arrived. Later, a strong screen reading
 * that contradicts it wins: the report may be stale (the agent missed a change, or stopped
 * reporting). Codex writes a report on every change of state, so while it is right the screen
 * agrees with it: in the committed Codex recordings the screen's strong evidence contradicted a
 * right report for at most 0.53 s (tmux/approve-80x24: the composer still drawn after Enter),
 * so 10 s is far from cutting a right report short (docs/signals.md).
 */
export const PROGRAM_STATUS_TRUST_MS = 10_000;

/**
 * A reported `working` stops counting once output has been quiet this long and the agent's tree
 * is not known to be busy: a working agent animates (Codex redraws its status line every 0.1–0.3
 * s; the longest output gap under a Codex `working` report in the recordings is 2.0 s, a
 * resize), so 10 s of silence means the report outlived the work. Unknown CPU (no /proc, replay)
 * does not hold the report: falling back lets the screen decide, it concludes nothing by itself.
 */
export const PROGRAM_STATUS_QUIET_STALE_MS = 10_000;

/**
 * The agent's own report and the pack's screen rules disagreeing for this long is news: the
 * pack may be stale for the running release (`status explain`, `doctor`, `packs list`). It is
 * the longest hold debounce applies (IDLE_HOLD_CAP_MS), so a disagreement any hold explains
 * never counts.
 */
export const PROGRAM_STATUS_DISAGREE_MS = IDLE_HOLD_CAP_MS;
