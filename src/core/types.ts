/**
 * The shared vocabulary of agentwrap's detector. Every layer speaks these types; nothing here
 * does anything. Closed vocabularies are string-literal unions spelled as in the TOML packs and
 * the published records, so no mapping tables are needed.
 */

/** What a detector can conclude from evidence. `done` is never raw: it is derived from `seen`. */
export type RawState = 'working' | 'blocked' | 'idle' | 'unknown';

/** What is published. `done` = raw idle after work that nobody has looked at yet. */
export type AgentState = 'working' | 'blocked' | 'done' | 'idle' | 'unknown';

/** What a pack rule may assert. `freeze` holds the previous state (e.g. a redraw in progress). */
export type RuleState = 'working' | 'blocked' | 'idle' | 'freeze';

/** A weak match is recorded and explained, but never authors state on its own. */
export type Strength = 'strong' | 'weak';

export type Confidence = 'strong' | 'weak' | 'none';

/** Roll-up order across sessions, most urgent first (docs/architecture.md §3). */
export const ROLLUP_ORDER: readonly AgentState[] = ['blocked', 'done', 'working', 'idle', 'unknown'];

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}

/**
 * The screen as a pack sees it: the live viewport (never scrollback), already translated to
 * strings with trailing blanks trimmed, plus the cursor. `revision` increases whenever the
 * viewport may have changed, so a tick can skip work when nothing moved.
 */
export interface ScreenView {
  readonly rows: readonly string[];
  readonly cols: number;
  readonly cursorRow: number;
  readonly cursorCol: number;
  readonly isAlternateScreen: boolean;
  readonly revision: number;
}

/** OSC 0/2 title. `recentChangesMs` holds the times of the last few changes (newest last). */
export interface TitleEvidence {
  readonly text: string;
  readonly changedAtMs: number;
  readonly recentChangesMs: readonly number[];
}

/**
 * OSC 9;4 progress. `state`: 0 remove, 1 normal, 2 error, 3 indeterminate, 4 paused/warning.
 * `value` is undefined when missing or unparsable; negative values occur (Grok sends `4;1;-1`).
 */
export interface ProgressEvidence {
  readonly state: number;
  readonly value: number | undefined;
  readonly atMs: number;
}

/** OSC 133 shell-integration mark: A prompt start, B input start, C output start, D command end. */
export interface ShellMark {
  readonly kind: 'A' | 'B' | 'C' | 'D';
  readonly exitCode: number | undefined;
  readonly atMs: number;
}

/**
 * What an agent says it is doing, OSC 7501 program status (`state=working:app=codex…`): Codex
 * writes it on every change of state, Claude Code once its terminal answers the probe
 * (docs/signals.md). `done` and `error` are the end of a turn (idle; agentwrap derives its own
 * done from seen). `state=clear` is no report: the snapshot holds undefined then.
 */
export type ProgramStatusState = 'working' | 'blocked' | 'done' | 'idle' | 'error';

/** One OSC 7501 report, bounded and sanitised by the screen adapter. */
export interface ProgramStatus {
  readonly state: ProgramStatusState;
  /** What kind of blocker or work, e.g. `permission`, `question`. */
  readonly kind: string | undefined;
  /** 0–100, for working and blocked. */
  readonly progress: number | undefined;
  readonly id: string | undefined;
  /** Who reports, e.g. `codex`, `claude-code`. */
  readonly app: string | undefined;
  /** The decoded `msg` (base64 on the wire), control characters removed. */
  readonly msg: string | undefined;
  /** When the sequence arrived. */
  readonly atMs: number;
}

/** A child of the agent process, as far as /proc tells. */
export interface ChildProcess {
  readonly pid: number;
  readonly comm: string;
  /** One-letter /proc state: R running, S sleeping, D disk, T stopped, Z zombie…; `?` for a live process whose stat is hidden (hidepid). */
  readonly state: string;
}

/**
 * What process evidence a source can give (adapters/process/evidence-source.ts); each one missing
 * costs the detector something (core/detector/process-coverage.ts).
 */
export type ProcessEvidenceKind = 'cpu' | 'children' | 'agent-state' | 'foreground';

/**
 * One /proc sample of the agent's own process tree. Absent is not quiet: when the OS gives
 * no sample, `sampled` is false and the watchdog must not treat that as zero CPU.
 */
export type ProcessEvidence = { readonly sampled: false; readonly reason: string } | ProcessSample;

/** A /proc sample that was taken. */
export interface ProcessSample {
  readonly sampled: true;
  /** CPU time of the whole tree per wall second (1 = one full core); undefined on the first sample. */
  readonly cpuRate: number | undefined;
  /**
   * The agent's descendants; undefined where the source cannot see them (a /proc without the
   * task children files): unknown, not "none".
   */
  readonly children: readonly ChildProcess[] | undefined;
  /** The agent's own /proc state letter. */
  readonly agentState: string;
  readonly isStopped: boolean;
  readonly isZombie: boolean;
  /** Whether the agent's process group is the terminal's foreground group; undefined if unknown. */
  readonly isForeground: boolean | undefined;
  readonly atMs: number;
}

export interface ExitEvidence {
  readonly code: number;
  readonly signal: number | undefined;
  readonly atMs: number;
}

/**
 * The output that answered the operator's last interrupt key (Esc, Ctrl-C, nothing typed since):
 * the burst that followed it, over once output was quiet QUIET_RECHECK_MS. The agent may still
 * draw the frame it was drawing before it handled the key in it (core/detector/debounce.ts).
 */
export interface InterruptAnswer {
  readonly interruptAtMs: number;
  /** The last output read in the answer; undefined while none came. */
  readonly lastOutputAtMs: number | undefined;
  /** Output went quiet QUIET_RECHECK_MS after the answer: later frames are new drawing. */
  readonly isOver: boolean;
}

/**
 * Everything one tick knows, immutable. Built by app/evidence from the screen mirror and the
 * probes; consumed by pure core functions. Times are monotonic milliseconds from the session clock.
 */
export interface EvidenceSnapshot {
  readonly nowMs: number;
  readonly startedAtMs: number;
  readonly screen: ScreenView;
  readonly title: TitleEvidence | undefined;
  readonly progress: ProgressEvidence | undefined;
  readonly lastMark: ShellMark | undefined;
  readonly lastNotificationAtMs: number | undefined;
  readonly lastBellAtMs: number | undefined;
  /** The agent's last OSC 7501 report; absent or undefined: none, or it cleared it. */
  readonly programStatus?: ProgramStatus | undefined;
  readonly lastOutputAtMs: number | undefined;
  /**
   * The operator's last input: typing, or a focus-in or mouse report (someone at the pane). A
   * terminal's replies to the agent's queries are not counted: they answer no dialog and see no
   * `done`.
   */
  readonly lastInputAtMs: number | undefined;
  /**
   * The last input the operator typed (keys, paste), without the terminal's own replies, focus
   * and mouse reports (core/detector/operator-input.ts): what starts a turn. Absent: none seen.
   */
  readonly lastOperatorInputAtMs?: number | undefined;
  /** The last interrupt key the operator pressed (Esc, Ctrl-C; core/detector/operator-input.ts). Absent: none. */
  readonly lastInterruptAtMs?: number | undefined;
  /** The agent's first answer to that key (core/detector/debounce.ts InterruptAnswer); absent once something was typed after it. */
  readonly interruptAnswer?: InterruptAnswer | undefined;
  readonly process: ProcessEvidence;
  readonly exit: ExitEvidence | undefined;
  /**
   * What agent hooks and plugins reported (`agentwrap report` → control socket → core/gating),
   * one entry per reporting source. Absent or empty: no reporter, screens alone decide.
   */
  readonly reports?: readonly ReportEvidence[];
}

/** A state a reporter source may claim; `done` is never reported (it is derived from seen). */
export type ReportedState = 'blocked' | 'working' | 'idle';

/**
 * How far a claim is trusted (core/detector/gating.ts). `authoritative`: a full-lifecycle source (an
 * OpenCode plugin, a custom agent's own reporter) that may author working/idle/blocked below a
 * visible screen blocker. `blocker`: a source trusted only to say "the operator is being asked"
 * (Claude Code, Codex hooks); its stop/idle events never author state. `turn-start`: a prompt
 * submitted (Claude Code's `UserPromptSubmit`) asserting working only until the agent's own
 * report, a keystroke or a redrawn idle screen, for at most TURN_START_CLAIM_MS.
 */
export type ReportGrade = 'authoritative' | 'blocker' | 'turn-start';

/** What gating did with a source's last event. */
export type ReportEffect =
  | 'asserted'
  | 'released'
  | 'identity'
  | 'dropped-out-of-order'
  | 'dropped-stale'
  | 'dropped-unknown-event';

/** A claim a source holds until it is released, answered by a keystroke, or expires. */
export interface ReportAssertion {
  readonly state: ReportedState;
  readonly grade: ReportGrade;
  /** The event that made the claim, e.g. `PermissionRequest`, `session.status`. */
  readonly event: string;
  /** Session clock time the claim arrived. */
  readonly atMs: number;
}

/** One reporting source as gating left it; built by app/reporter, read by arbitrate and explain. */
export interface ReportEvidence {
  /** Who reports, e.g. `claude-hooks`, `codex-notify`, `opencode-plugin`. */
  readonly source: string;
  /** The agent the source said it reports for. */
  readonly agent: string;
  readonly lastEvent: string;
  /** Session clock time the last event arrived (accepted or not). */
  readonly lastAtMs: number;
  /** Highest sequence number accepted from this source; undefined when it sends none. */
  readonly lastSeq: number | undefined;
  readonly lastEffect: ReportEffect;
  readonly accepted: number;
  readonly dropped: number;
  readonly assertion: ReportAssertion | undefined;
}

/** One matching rule of a pack, as evaluate reports it. */
export interface RuleMatch {
  readonly ruleId: string;
  readonly state: RuleState;
  readonly priority: number;
  readonly strength: Strength;
  readonly region: string;
  /** The rule's `reason`, when it declares one. */
  readonly reason?: string;
  /** The rule's `idle_hold_ms`, when it declares one (a strong idle rule only). */
  readonly idleHoldMs?: number;
}

/**
 * The pack's verdict on one screen. `matches` are every matching rule, highest priority first,
 * ties in file order. `winner` is the first strong match (weak matches never author state).
 */
export interface PackVerdict {
  readonly agent: string;
  readonly matches: readonly RuleMatch[];
  readonly winner: RuleMatch | undefined;
}
