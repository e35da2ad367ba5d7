// The agent CLIs the capture lab drives: package, pinned version, binary name, and what
// the driver needs to know about each one's keys. Pins are the versions the committed corpus was
// recorded with (issue 7); `--latest` overrides them.
//
// Keys are what a user would press. `approve` answers a shell-approval dialog with its first
// option, `deny` takes the dialog's "no" path; `startup` lists the first-run dialogs a
// firstRun-seeded home shows, in order, each with the key that answers it and the state that
// follows (the driver knows this from the seeding, not from the screen).

import semver from 'semver';

export const AGENTS = {
  claude: {
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.332',
    bin: 'claude',
    args: [],
    // Its permission dialog came 0.14–0.24 s after the tool call on a quiet machine and up to
    // 0.74 s on the loaded one the personality recordings were made on; blocked is labeled from
    // 1 s after the call (latency is still measured from the call).
    toolSettleMs: 1000,
    // After Enter it draws nothing until its UserPromptSubmit hooks return, agentwrap's own
    // among them: 0.95–1.05 s on the loaded machine of the working-day recordings (error-retry,
    // error-fatal, queued), where the earlier corpus saw it draw within 0.4 s. Latency is
    // still measured from Enter.
    submitSettleMs: 1200,
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    // With trust and the API key left unapproved: "Accessing workspace: … Yes, I trust this
    // folder" ("No, exit" is focused), then "Detected a custom API key in your environment …
    // Do you want to use this API key?" ("No (recommended)" is focused).
    startup: [
      { key: '\x1b[B', then: 'blocked' },
      { key: '\r', then: 'blocked' },
      { key: '\x1b[A', then: 'blocked' },
      { key: '\r', then: 'idle' },
    ],
    // A new user's first start (`first-run`, seed `bare`): the same two dialogs, then "Make auto
    // mode your default permission mode? ❯ Yes, set auto mode… / No, keep manual mode" (no index,
    // no key-hint row). Onboarding proper (theme, login) cannot be reached against the mock: a
    // home without `hasCompletedOnboarding` checks api.anthropic.com first and exits ("Unable to
    // connect to Anthropic services", exit 1).
    firstRun: [
      { key: '\x1b[B', then: 'blocked' },
      { key: '\r', then: 'blocked' },
      { key: '\x1b[A', then: 'blocked' },
      // The nudge came 1.33 s after this answer at 80x24, the prompt box drawn in between.
      { key: '\r', then: 'blocked', settleMs: 1500 },
      { key: '\x1b[B', then: 'blocked' },
      { key: '\r', then: 'idle' },
    ],
  },
  codex: {
    pkg: '@openai/codex',
    version: '0.171.0',
    bin: 'codex',
    // Without --no-daemon Codex starts a background app-server that outlives the TUI.
    args: ['--no-daemon'],
    // Releases before 0.160.0 have no --no-daemon (0.155.0 refuses it as an unknown argument);
    // the driver's kill of whatever runs in the run directory ends their app-server.
    argsFor: (version) => (semver.lt(version, '0.160.0') ? [] : ['--no-daemon']),
    // Approval dialog 0.04–0.09 s after the call (quiet machine), up to 0.49 s loaded.
    toolSettleMs: 800,
    keys: { submit: '\r', approve: 'y', deny: '\x1b', exit: ['\x03', '\x03'] },
    // In a git folder not yet trusted: "Folder access … Trust this folder? › 1. Trust and continue".
    startup: [{ key: '\r', then: 'idle' }],
    // A new user's first start (`first-run`, seed `bare`: no config.toml, no auth.json):
    // "Welcome to Codex … Choose how you want to use Codex. > 1. Sign in with ChatGPT / 2. Sign in
    // with Device Code / 3. Sign in another way" (Down, Down, Enter), "Sign in another way > 1. Use
    // an OpenAI API key" (Enter), "Use your own OpenAI API key … Detected OPENAI_API_KEY
    // environment variable." with the key filled in (Enter), then "Folder access … Trust this
    // folder? › 1. Trust and continue" (Enter).
    firstRun: [
      { key: '\x1b[B', then: 'blocked' },
      { key: '\x1b[B', then: 'blocked' },
      { key: '\r', then: 'blocked' },
      { key: '\r', then: 'blocked' },
      { key: '\r', then: 'blocked' },
      { key: '\r', then: 'idle' },
    ],
  },
  opencode: {
    pkg: 'opencode-ai',
    version: '1.18.33',
    bin: 'opencode',
    args: [],
    // Fetched into ~/.config/opencode at startup; pre-installed by install.mjs (see there).
    configTemplate: ['@opencode-ai/plugin@{version}'],
    // It sends a few terminal queries, then stays silent for seconds while it boots (longer in
    // the network namespace); typing before the first full paint is lost.
    readyBytes: 4000,
    // …and it keeps booting behind its first paint (see driver.mjs waitReady).
    readyCpuQuiet: { windowMs: 600, maxTicks: 3, capMs: 60_000 },
    // Settling windows (labels.mjs) sized from what it was measured to draw, by output bytes:
    // after Enter it clears its input, paints a blank frame and draws the session view with its
    // busy row 0.5–0.85 s later; it handles a streamed tool call before it asks, and its
    // permission panel came 0.1–1.1 s after the mock finished sending the call (the first call
    // of a session is the slow one). Latency is still measured from the mark.
    submitSettleMs: 900,
    toolSettleMs: 1500,
    // Its busy row animates until the permission or question panel replaces it: the driver
    // answers only once its output has been quiet this long (steps.mjs), as a user who reads it.
    dialogQuietMs: 500,
    // Permission dialog: "△ Permission required … Allow once  Allow always  Reject". Its busy
    // row says "esc interrupt" and asks for a second Esc ("esc again to interrupt").
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'], interrupt: ['\x1b', '\x1b'] },
    // No first-run dialog with a configured provider.
    startup: [],
    // Its model picker (`menus`).
    menuCommand: '/models',
    // Its HTTP server and event stream (agent-events.mjs). In `agentTurnEnd` scenarios the turn's
    // end is its `session.status` idle event, from the server its TUI starts when given
    // `--hostname` (`args`; 1.18.33 reads no server port from its config there): port 4096, its
    // first choice without `--port`. Without `--port` agentwrap follows no stream (hooks.ts
    // usersOpenCodeServer), so the screen alone is scored. `--agent-server` (run.mjs) runs it as
    // a user who starts that server does (`userArgs`): agentwrap then follows the stream too.
    eventServer: { port: 4096, args: ['--hostname', '127.0.0.1'], userArgs: ['--port', '4096', '--hostname', '127.0.0.1'] },
  },
  gemini: {
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
    args: [],
    // Approval box 0.09–0.37 s after the call (quiet machine), up to 0.69 s loaded.
    toolSettleMs: 1000,
    // Approval: "Allow execution of [Shell]? ● 1. Allow once … 3. No, suggest changes (esc)".
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    // With folder trust on: "Do you trust the files in this folder? ● 1. Trust folder (work)";
    // answering it restarts the CLI ("Gemini CLI is restarting to apply the trust changes...").
    startup: [{ key: '\r', then: 'idle', restarts: true, repaintBytes: 1000 }],
    // A new user's first start (`first-run`, seed `bare`: no settings.json): the trust question
    // (folder trust is on by default), the restart, "How would you like to authenticate?" ("Use
    // Gemini API Key" preselected with GEMINI_API_KEY set), then "Enter Gemini API Key" (the
    // environment's key filled in).
    firstRun: [
      { key: '\r', then: 'blocked', restarts: true, repaintBytes: 1000 },
      { key: '\r', then: 'blocked' },
      { key: '\r', then: 'idle' },
    ],
  },
  pi: {
    pkg: '@mariozechner/pi-coding-agent',
    version: '0.73.1',
    bin: 'pi',
    args: [],
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  grok: {
    pkg: '@vibe-kit/grok-cli',
    version: '0.0.34',
    bin: 'grok',
    args: [],
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  qwen: {
    pkg: '@qwen-code/qwen-code',
    version: '0.24.4',
    bin: 'qwen',
    // 0.24 starts in "Auto mode" (an LLM classifier approves tool calls); the default mode asks.
    args: ['--approval-mode', 'default'],
    // Its approval came 0.57 s after the call (loaded machine), as Gemini CLI's does.
    toolSettleMs: 1000,
    // On a loaded machine it prints a ripgrep warning, then stays silent for seconds before its
    // first full paint (seen: a prompt typed then was lost); wait for the paint.
    readyBytes: 20000,
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  copilot: {
    pkg: '@github/copilot',
    version: '1.0.102',
    bin: 'copilot',
    args: [],
    // Its approval box came 0.2-0.7 s after the call (loaded machine).
    toolSettleMs: 1000,
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  // ---- Kilo Code CLI, Continue CLI, Cline CLI (issue 35 item 3) ----
  kilo: {
    pkg: '@kilocode/cli',
    // 7.8.1 is the newest on npm, but its linux-x64 binary packages are not published
    // (ETARGET for @kilocode/cli-linux-x64@7.8.1); 7.7.7 is the newest release that has them.
    version: '7.7.7',
    bin: 'kilo',
    args: [],
    // An OpenCode fork: the same boot behind its first paint. In a tmux pane it once stayed on a
    // blank screen after 4 KB of output with its CPU quiet, so ready also waits for its hint row.
    readyBytes: 4000,
    readyScreen: /ctrl\+p commands/,
    readyCpuQuiet: { windowMs: 600, maxTicks: 3, capMs: 60_000 },
    submitSettleMs: 900,
    toolSettleMs: 1500,
    dialogQuietMs: 500,
    // Esc on its permission panel does not reject at once (as OpenCode's does): it opens
    // "△ Reject permission / Tell Kilo what to do differently … enter confirm  esc cancel", and
    // Enter with no text confirms the rejection.
    keys: { submit: '\r', approve: '\r', deny: ['\x1b', '\r'], exit: ['\x03', '\x03'], interrupt: ['\x1b', '\x1b'] },
    startup: [],
    menuCommand: '/models',
  },
  continue: {
    pkg: '@continuedev/cli',
    version: '1.5.47',
    bin: 'cn',
    args: [],
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  cline: {
    pkg: 'cline',
    version: '3.0.65',
    bin: 'cline',
    // Without a prompt it opens its TUI; it approves every tool by default ("--auto-approve
    // <boolean> … default: true"), so the lab runs it as a careful user does.
    args: ['--auto-approve', 'false'],
    // Its permission prompt: "Cline needs permission … Approve tool call? … [y] Approve   [n] Deny".
    keys: { submit: '\r', approve: 'y', deny: 'n', exit: ['\x03', '\x03'] },
    startup: [],
  },
  // ---- Issue 35 item 3, second list (Letta Code, Factory's droid, Amp, Auggie, Qoder CLI) ----
  letta: {
    pkg: '@letta-ai/letta-code',
    version: '0.32.18',
    bin: 'letta',
    // Its default mode is "unrestricted" (every tool runs unasked); "standard" asks before shell
    // commands and edits, as a careful user sets it.
    args: ['--permission-mode', 'standard'],
    // This registry lacks two of its dependencies (@letta-ai/letta-agent-sdk and
    // @letta-ai/trajectory: 404) and the pinned @janhapke/sharp-electron prerelease; letta.js is
    // one bundle that loads none of them. react 18.2.0 against @pierre/diffs' react ≥18.3.1 peer.
    install: {
      overrides: { '@janhapke/sharp-electron': '0.35.4-electron.1' },
      absent: ['@letta-ai/letta-agent-sdk', '@letta-ai/trajectory'],
      legacyPeerDeps: true,
    },
    // Its approval came 0.83–0.94 s after the call, once 1.71 s (80x24, loaded machine), with
    // "<agent> is remembering…" on its live row meanwhile; latency is still measured from the call.
    toolSettleMs: 1800,
    // Approval: "Run this command? $ touch app.test.js … ❯ 1. Yes … Enter to select · Esc to
    // cancel". Esc cancels the call ("Approval cancelled") and ends the turn without a request.
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  droid: {
    // Factory's droid. `@factory/cli` 0.225.1 names a linux-x64 binary package this registry
    // does not hold (it has 0.215.0 and 0.225.2); `droid` 0.215.0 is the same CLI with its match.
    pkg: 'droid',
    version: '0.215.0',
    bin: 'droid',
    args: [],
    // Its approval box came 0.3–0.8 s after the call (loaded machine).
    toolSettleMs: 1000,
    // Approval: "Command to approve · medium risk … │ Yes, allow │ … │ No, cancel │ ↑↓ navigate
    // Enter select   Esc cancel" (the first option is selected).
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
  // ---- Oh My Pi, Kimi Code, Codebuff, Jules (issue 35 item 3) ----
  omp: {
    pkg: '@oh-my-pi/pi-coding-agent',
    // 18.3.4 is the newest on npm, but its @oh-my-pi/* dependencies at 18.3.4 (omp-stats,
    // pi-ai…) are not published (ETARGET); 18.2.3 is the newest release whose set is complete.
    version: '18.2.3',
    bin: 'omp',
    // Its bin is a Bun script ("#!/usr/bin/env bun"); the lab installs the `bun` npm package
    // next to it (extraPkgs), whose binary lands in the same .bin folder the PTY puts on PATH.
    extraPkgs: ['bun@1.4.5'],
    args: [],
    // It titles the window "π ! <session>" while it waits on the user; its first tool call of a
    // session takes it 1.3-1.7 s (busy, screen still) before it draws the approval box with that
    // title, so the driver marks blocked from the title, not from the tool call.
    askTitle: /^π !/,
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    startup: [],
  },
};

export const AGENT_NAMES = Object.keys(AGENTS);
