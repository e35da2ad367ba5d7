// The four agent CLIs the capture lab drives: package, pinned version, binary name, and what
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
    // …and it keeps booting behind its first paint (see driver.mjs waitCpuQuiet).
    readyCpuQuiet: { windowMs: 600, maxTicks: 3, capMs: 60_000 },
    // Settling windows (labels.mjs) sized from what it was measured to draw, by output bytes:
    // after Enter it clears its input, paints a blank frame and draws the session view with its
    // busy row 0.5–0.85 s later; it handles a streamed tool call before it asks, and its
    // permission panel came 0.1–1.1 s after the mock finished sending the call (the first call
    // of a session is the slow one). Latency is still measured from the mark.
    submitSettleMs: 900,
    toolSettleMs: 1500,
    // Permission dialog: "△ Permission required … Allow once  Allow always  Reject".
    keys: { submit: '\r', approve: '\r', deny: '\x1b', exit: ['\x03', '\x03'] },
    // No first-run dialog with a configured provider.
    startup: [],
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
  },
};

export const AGENT_NAMES = Object.keys(AGENTS);
