/**
 * The steps of arbitration (arbitrate.ts) in order, each with the reason for its place: what
 * docs/detector.md renders as its table, and what a test holds arbitrate() to.
 */

/** The arbitration steps, in order; every Decision names the step that returned it. */
export type ArbitrationStep =
  | 'process-exit'
  | 'strong-blocker'
  | 'turn-start'
  | 'program-status'
  | 'reported-state'
  | 'freeze'
  | 'strong-working'
  | 'title-spinner'
  | 'reported-blocked'
  | 'strong-idle'
  | 'shell-mark'
  | 'progress-working'
  | 'weak-blocker-with-attention'
  | 'physics-working'
  | 'weak-idle'
  | 'nothing';

/**
 * The order of arbitration with the reason for each position. arbitrate() follows it step by
 * step (a test checks the two agree) and docs/detector.md renders it as a table.
 */
export const ARBITRATION_ORDER: readonly { readonly step: ArbitrationStep; readonly reason: string }[] = [
  {
    step: 'process-exit',
    reason:
      'An exited (or zombie) agent has nothing current on screen; publish a final idle at once (strong) so the record ends as done/idle instead of decaying through holds.',
  },
  {
    step: 'strong-blocker',
    reason:
      'A visible blocker outranks every working signal, whatever its source (screen rule, osc_title or osc_progress region) and whatever its priority against other matches: missing a prompt costs the operator most.',
  },
  {
    step: 'turn-start',
    reason:
      'A turn-start claim (Claude Code\'s UserPromptSubmit hook, 114-179 ms after Enter) newer than the agent\'s last OSC 7501 report: the agent\'s own `working` follows 76-115 ms later, and until then its report still says idle and its screen still shows the idle prompt. It stands until that report counts, a keystroke, the screen redrawn idle after it, the source\'s next event, or TURN_START_CLAIM_MS; never over a drawn blocker.',
  },
  {
    step: 'program-status',
    reason:
      'The agent\'s own OSC 7501 report (Codex on every change of state; Claude Code once the terminal answers its probe) is its state machine, written in order with its output: it authors working, blocked or idle (done, error) above every screen rule but a drawn blocker (Codex reports done under its plan prompt). It stops counting when strong screen evidence contradicts it after PROGRAM_STATUS_TRUST_MS, or when a working report sits under quiet output and a tree not known busy for PROGRAM_STATUS_QUIET_STALE_MS; state=clear is no report.',
  },
  {
    step: 'reported-state',
    reason:
      'A live claim of an authoritative reporter (a full-lifecycle plugin such as OpenCode\'s, or the reporter of an agent without a pack): the agent\'s own state machine, so it authors blocked, working or idle below a visible screen blocker and above the pack\'s working/idle reading.',
  },
  {
    step: 'freeze',
    reason:
      'A freeze rule says the screen is in flux (a redraw, a transcript view); hold the previous state rather than read it. It sits below blockers so a frozen screen can never hide a dialog.',
  },
  {
    step: 'strong-working',
    reason: 'A strong working rule (spinner line, "esc to interrupt") is a positive, current signal drawn on the live viewport.',
  },
  {
    step: 'title-spinner',
    reason:
      'A title spinner that changed within TITLE_SPINNER_AUTHORITY_MS is animating now; it outranks a strong idle screen because agents keep drawing the idle prompt box while they work. A spinner that stopped changing loses authority.',
  },
  {
    step: 'reported-blocked',
    reason:
      'A live blocked claim of a blocker-grade reporter (a Claude Code PermissionRequest, a Codex approval): unanswered (no keystroke since) and younger than REPORT_CLAIM_TTL_MS. It outranks a drawn idle prompt (the pack may have missed a new dialog) but not live working evidence on screen; stop/idle events of these sources never author state.',
  },
  {
    step: 'strong-idle',
    reason: 'A drawn idle prompt with no working signal above it: strong idle (still held briefly by debounce).',
  },
  {
    step: 'shell-mark',
    reason:
      'OSC 133 marks describe a shell\'s own state machine (C = command running, A/B/D = at the prompt); agents rarely emit them, so they rank below the pack but above bare OSC progress.',
  },
  {
    step: 'progress-working',
    reason:
      'OSC 9;4 state 1 (normal) or 3 (indeterminate) means in progress. It ranks below a drawn idle prompt because progress bars are left behind (the "stuck on working" complaint).',
  },
  {
    step: 'weak-blocker-with-attention',
    reason:
      'A weak blocked match (prompt-like prose) authors blocked only when corroborated by an unanswered BEL or notification: prose alone must never read as a prompt.',
  },
  {
    step: 'physics-working',
    reason:
      'Tree CPU at or above CPU_BUSY_RATE, or a child owning the terminal foreground, is weak working (debounce confirms it before it replaces idle). Live children alone do not count: MCP servers live all session.',
  },
  {
    step: 'weak-idle',
    reason:
      'OSC 9;4 state 0, an idle title glyph, or a weak idle rule on a quiet CPU: weak idle, which debounce holds for IDLE_HOLD_WEAK_MS so a tool-call gap does not fire a false done.',
  },
  {
    step: 'nothing',
    reason: 'No evidence means unknown, never a default idle.',
  },
];
