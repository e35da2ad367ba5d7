// Per-CLI throwaway HOME and config seeding. Each run gets a fresh directory:
//   <runDir>/home      HOME (and XDG dirs) for the CLI
//   <runDir>/work      the project folder the CLI starts in (a few small files)
// seed(agent, {runDir, baseUrl, firstRun, personality}) writes the config and returns
// { env, args, cwd }; `personality` (personalities.mjs, default 'silent') sets the terminal's variables.
// `firstRun` leaves the first-run dialogs (trust this folder, use this API key…) in place, so a
// startup scenario can record them; onboarding itself stays done where the CLI would otherwise
// need the vendor's servers.
import { mkdirSync, writeFileSync, cpSync, existsSync } from 'node:fs';
import { configTemplateDir } from './install.mjs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { applyPersonalityEnv } from './personalities.mjs';

const DUMMY_KEY = 'sk-ant-api03-capture-lab-dummy-key-0000000000000000000000000000AA';

// pi's seeded approval extension: ask (Yes/No) before every bash tool call.
const PI_ASK_EXTENSION = `export default function (pi) {
  pi.on('tool_call', async (event, ctx) => {
    if (event.toolName !== 'bash' || !ctx.hasUI) return undefined;
    const choice = await ctx.ui.select(\`Run this command?\\n\\n  \${event.input.command}\\n\`, ['Yes', 'No']);
    return choice === 'Yes' ? undefined : { block: true, reason: 'Denied by the user' };
  });
}
`;

function write(path, text) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function baseEnv(home, personality) {
  // Only what a terminal user would have; nothing of the lab's own environment leaks in. The
  // terminal's own variables (TERM, COLORTERM, TMUX…) come from the personality.
  return applyPersonalityEnv({
    HOME: home,
    USER: 'capture',
    LOGNAME: 'capture',
    SHELL: '/bin/bash',
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TMPDIR: join(home, 'tmp'),
  }, personality);
}

function seedWork(work) {
  mkdirSync(work, { recursive: true });
  write(join(work, 'README.md'), '# demo project\n\nA tiny project for the capture lab.\n');
  write(join(work, 'app.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
  write(join(work, 'notes.txt'), 'todo: write tests\n');
  // A git repository, as most real projects are; Codex asks to trust only git folders.
  const r = spawnSync('git', ['init', '-q', work], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git init ${work}: ${r.stderr}`);
}

// `options` (a scenario's `seed`) adds what one scenario needs: `allowShell` (shell commands the
// user allowed before, e.g. "sleep 8", in each CLI's own syntax), `defaultMode` (Claude's permission mode, e.g.
// "plan"), `bare` (a new user's first start: Claude without trust, key approval or nudge seen;
// Codex and Gemini with no configuration file at all), `codexSandbox`
// (Codex's sandbox_mode, e.g. "read-only"), `openCodePlanMode` (OpenCode's experimental plan mode,
// whose plan_exit tool asks before leaving the plan agent).
/**
 * The config of OpenCode and its fork Kilo Code: the mock as an OpenAI-compatible provider, a
 * shell that asks (but for `options.allowShell`), and snapshots off. Snapshot tracking runs git in
 * the work folder at every step's start and end (0.3–3 s on the loaded machine) behind the
 * spinner: work the mock cannot see, which put the labels' turn end (the mock's stream end) 1–3 s
 * before the CLI's own (docs/notebook/2026-12-capture-findings.md).
 */
function openCodeShapedConfig(baseUrl, options) {
  return {
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    model: 'mock/mock-model',
    small_model: 'mock/mock-model',
    // The last pattern that matches a command decides (OpenCode 1.18.33 asked for `sleep 8` under
    // {"sleep 8": "allow", "*": "ask"}), so the catch-all goes first.
    permission: { bash: options.allowShell ? Object.fromEntries([['*', 'ask'], ...options.allowShell.map((c) => [c, 'allow'])]) : 'ask', edit: 'ask' },
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL: `${baseUrl}/v1`, apiKey: 'dummy' },
        models: { 'mock-model': { name: 'Mock Model', tool_call: true, limit: { context: 128000, output: 8192 } } },
      },
    },
  };
}

export function seed(agent, { runDir, baseUrl, firstRun = false, version, personality, options = {} }) {
  const home = join(runDir, 'home');
  const cwd = join(runDir, 'work');
  mkdirSync(join(home, 'tmp'), { recursive: true });
  seedWork(cwd);
  const env = baseEnv(home, personality);
  const args = [];
  const seeder = Object.hasOwn(SEEDERS, agent) ? SEEDERS[agent] : undefined;
  if (!seeder) throw new Error(`seed: unknown agent ${agent}`);
  seeder({ home, cwd, env, baseUrl, firstRun, version, options });
  return { env, args, cwd, home };
}

/** Each CLI's config and environment, written into its throwaway home by `seed`. */
const SEEDERS = {
  claude: seedClaude,
  codex: seedCodex,
  opencode: seedOpencode,
  gemini: seedGemini,
  pi: seedPi,
  qwen: seedQwen,
  grok: seedGrok,
  copilot: seedCopilot,
  kilo: seedKilo,
  continue: seedContinue,
  cline: seedCline,
  letta: seedLetta,
  droid: seedDroid,
  omp: seedOmp,
};

function seedClaude({ home, cwd, env, baseUrl, firstRun, version, options }) {
  // 2.1.x checks it can reach its vendor before onboarding (ignoring ANTHROPIC_BASE_URL) and
  // exits offline, so onboarding is always marked done; trust and API-key approval are the
  // first-run dialogs left for the startup scenario.
  const claudeJson = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: version ?? '2.1.332',
    numStartups: 5,
    hasSeenAutoDefaultNudge: true,
    theme: 'dark',
    autoUpdates: false,
    hasSeenTasksHint: true,
    tipsHistory: {},
    customApiKeyResponses: { approved: firstRun ? [] : [DUMMY_KEY.slice(-20)], rejected: [] },
    projects: {
      [cwd]: { hasTrustDialogAccepted: !firstRun, hasCompletedProjectOnboarding: true, allowedTools: [], projectOnboardingSeenCount: 1 },
    },
  };
  // `bare`: only what the CLI cannot do without offline (onboarding done), nothing a new user
  // would not have: no theme, no trust, no API-key approval, no auto-mode nudge seen.
  const bareJson = { hasCompletedOnboarding: true, lastOnboardingVersion: version ?? '2.1.332' };
  write(join(home, '.claude.json'), JSON.stringify(options.bare ? bareJson : claudeJson, null, 2));
  // The default mode asks before running shell commands; 2.1.x otherwise defaults to an
  // auto-approving mode that never shows the dialog.
  const permissions = { defaultMode: options.defaultMode ?? 'default', ...(options.allowShell ? { allow: options.allowShell.map((c) => `Bash(${c})`) } : {}) };
  // Manual ("default") mode even when bare: the lab's approvals need it, and it is what makes
  // 2.1.332 ask "Make auto mode your default permission mode?".
  write(join(home, '.claude', 'settings.json'), JSON.stringify(options.bare ? { permissions: { defaultMode: 'default' } } : { permissions, autoUpdates: false }, null, 2));
  Object.assign(env, {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  });
}

function seedCodex({ home, cwd, env, baseUrl, firstRun, options }) {
  const codexHome = join(home, '.codex');
  if (options.bare) {
    // A new user's first start: no config.toml, no auth.json, an OpenAI key in the
    // environment, so every dialog Codex shows a new user appears: how to sign in, which
    // other way, the key (the environment's, detected), the folder. No turn follows: the
    // built-in provider talks to OpenAI (with `openai_base_url` at the mock, 0.171 opens
    // its Responses WebSocket first, then sends requests without tools).
    mkdirSync(codexHome, { recursive: true });
    Object.assign(env, { CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-capture-lab-dummy' });
    return;
  }
  const toml = [
    'model = "mock-model"',
    'model_provider = "mock"',
    // "untrusted" is rejected by 0.171; on-request + a mock that asks for escalation shows the dialog.
    'approval_policy = "on-request"',
    // `codexSandbox: "read-only"` (edit): every edit asks, with its diff.
    `sandbox_mode = "${options.codexSandbox ?? 'workspace-write'}"`,
    'check_for_update_on_startup = false',
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${baseUrl}/v1"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    '',
    ...(firstRun ? [] : [`[projects."${cwd}"]`, 'trust_level = "trusted"', '']),
  ].join('\n');
  write(join(codexHome, 'config.toml'), toml);
  Object.assign(env, { CODEX_HOME: codexHome, MOCK_API_KEY: 'dummy' });
}

function seedOpencode({ home, env, baseUrl, version, options }) {
  const cfg = { $schema: 'https://opencode.ai/config.json', ...openCodeShapedConfig(baseUrl, options) };
  const template = configTemplateDir('opencode', version);
  if (existsSync(template)) cpSync(template, join(home, '.config', 'opencode'), { recursive: true });
  write(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify(cfg, null, 2));
  Object.assign(env, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: 'true' });
  if (options.openCodePlanMode) env.OPENCODE_EXPERIMENTAL_PLAN_MODE = '1';
}

function seedGemini({ home, env, baseUrl, firstRun, options }) {
  if (options.bare) {
    // A new user's first start: no settings.json (folder trust is on by default, no auth
    // type chosen), the key and base URL in the environment.
    mkdirSync(join(home, '.gemini'), { recursive: true });
    Object.assign(env, { GEMINI_API_KEY: 'dummy-gemini-key', GOOGLE_GEMINI_BASE_URL: baseUrl });
    return;
  }
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: firstRun } },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    ui: { theme: 'Default' },
    ...(options.allowShell ? { tools: { allowed: options.allowShell.map((c) => `run_shell_command(${c})`) } } : {}),
  };
  write(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  Object.assign(env, { GEMINI_API_KEY: 'dummy-gemini-key', GOOGLE_GEMINI_BASE_URL: baseUrl });
}

function seedPi({ home, env, baseUrl }) {
  // A custom provider in models.json (docs/models.md of the package), chosen as the default.
  const agentDir = join(home, '.pi', 'agent');
  const models = { providers: { mock: { baseUrl: `${baseUrl}/v1`, api: 'openai-completions', apiKey: 'dummy', compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }, models: [{ id: 'mock-model', name: 'Mock Model', reasoning: false, contextWindow: 128000, maxTokens: 8192 }] } } };
  write(join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
  write(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'mock', defaultModel: 'mock-model', defaultThinkingLevel: 'off', enableInstallTelemetry: false, collapseChangelog: true }, null, 2));
  // pi runs tools without asking, by design; users who want approvals add an extension (the
  // package ships permission-gate.ts, which asks only for rm -rf/sudo/chmod 777). This one
  // asks before every bash call, through the same ctx.ui.select dialog.
  write(join(agentDir, 'extensions', 'ask-before-bash.ts'), PI_ASK_EXTENSION);
  Object.assign(env, { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' });
}

function seedQwen({ home, env, baseUrl, firstRun }) {
  // Qwen Code (a Gemini CLI fork) with its OpenAI-compatible auth: key, base URL and model
  // from the environment, the auth type chosen in settings so no auth dialog shows.
  const settings = {
    security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: firstRun } },
    general: { disableAutoUpdate: true, enableWelcomeBack: false },
    privacy: { usageStatisticsEnabled: false },
    // After each turn 0.24 asks the model for a follow-up suggestion in a request that
    // carries the tools, which the mock cannot tell from a new turn; off, so labels end the
    // turn where Qwen does.
    ui: { hideTips: true, enableFollowupSuggestions: false },
    model: { name: 'mock-model' },
  };
  write(join(home, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2));
  Object.assign(env, { OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: `${baseUrl}/v1`, OPENAI_MODEL: 'mock-model' });
}

function seedGrok({ home, env, baseUrl }) {
  // @vibe-kit/grok-cli: an OpenAI chat-completions client; key, base URL and model from the
  // environment (its --help names them); its user settings name the same URL and model.
  write(join(home, '.grok', 'user-settings.json'), JSON.stringify({ baseURL: `${baseUrl}/v1`, defaultModel: 'mock-model', models: ['mock-model'], settingsVersion: 2 }, null, 2));
  Object.assign(env, { GROK_API_KEY: 'dummy', GROK_BASE_URL: `${baseUrl}/v1`, GROK_MODEL: 'mock-model' });
}

function seedCopilot({ home, cwd, env, baseUrl, firstRun }) {
  // GitHub Copilot CLI with a BYOK provider (docs.github.com "Using your own LLM models in
  // GitHub Copilot CLI"): OpenAI chat completions at the mock, offline mode (no GitHub login,
  // no telemetry), the work folder trusted unless the startup scenario wants the dialog.
  const copilotHome = join(home, '.copilot');
  write(join(copilotHome, 'config.json'), JSON.stringify({ trusted_folders: firstRun ? [] : [cwd] }, null, 2));
  Object.assign(env, {
    COPILOT_HOME: copilotHome,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_BASE_URL: `${baseUrl}/v1`,
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'mock-model',
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
  });
}

// ---- Kilo Code CLI, Continue CLI, Cline CLI (issue 35 item 3) ----
function seedKilo({ home, env, baseUrl, options }) {
  // Kilo Code CLI, an OpenCode fork: the same config shape in ~/.config/kilo/kilo.json.
  const cfg = openCodeShapedConfig(baseUrl, options);
  write(join(home, '.config', 'kilo', 'kilo.json'), JSON.stringify(cfg, null, 2));
  Object.assign(env, { KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_LSP_DOWNLOAD: 'true', KILO_TELEMETRY_LEVEL: 'off', KILO_DISABLE_SHARE: '1', KILO_DISABLE_SESSION_INGEST: '1' });
}

function seedContinue({ home, env, baseUrl, firstRun }) {
  // Continue CLI reads ~/.continue/config.yaml when there is no --config (configLoader.ts):
  // an OpenAI-compatible model at the mock, so it needs no sign-in to Continue's hub.
  // `.onboarding_complete` skips the first-run question for an Anthropic key.
  const yaml = ['name: Capture lab', 'version: 1.0.0', 'schema: v1', 'models:', '  - name: Mock Model', '    provider: openai',
    '    model: mock-model', `    apiBase: ${baseUrl}/v1`, '    apiKey: dummy', '    roles: [chat, edit, apply]', ''].join('\n');
  write(join(home, '.continue', 'config.yaml'), yaml);
  if (!firstRun) write(join(home, '.continue', '.onboarding_complete'), '2026-12-07T00:00:00.000Z');
  Object.assign(env, { CONTINUE_METRICS_ENABLED: '0', CONTINUE_CLI_ENABLE_TELEMETRY: '0' });
}

function seedCline({ home, baseUrl, firstRun }) {
  // Cline CLI's provider settings, as `cline auth -p openai -k KEY -m MODEL -b URL` writes
  // them: an OpenAI-compatible provider at the mock, no Cline account.
  const providers = { version: 1, lastUsedProvider: 'openai-compatible', modes: {}, providers: { 'openai-compatible': { settings: { provider: 'openai-compatible', apiKey: 'dummy', model: 'mock-model', baseUrl: `${baseUrl}/v1` }, updatedAt: '2026-12-07T00:00:00.000Z', tokenSource: 'manual' } } };
  write(join(home, '.cline', 'data', 'settings', 'providers.json'), JSON.stringify(providers, null, 2));
  // Its start-up notices ("Try ClinePass", "Introducing Cline Desktop": "Press Enter to open,
  // any other key to close") marked shown, as after a user's first start; else the prompt's
  // first key closes the notice and is lost.
  if (!firstRun) write(join(home, '.cline', 'data', 'settings', 'cli-notices.json'), JSON.stringify({ shown: { 'cline-cli-cline-pass-intro': true, 'cline-cli-desktop-launch': true } }, null, 2));
}

function seedLetta({ home, env, baseUrl }) {
  // Letta Code's local backend (no Letta server, no login): what `letta backend local` and
  // `letta connect openai-compatible --base-url … --api-key …` write. It lists the models
  // at the base URL (GET /v1/models) and talks chat completions to them.
  const letta = join(home, '.letta');
  write(join(letta, 'settings.json'), JSON.stringify({ preferredBackendMode: 'local', autoConversationTitles: false }, null, 2));
  const provider = { id: 'local-provider-openai-compatible', name: 'openai-compatible', provider_type: 'openai-compatible', provider_category: 'byok', auth: { type: 'api', key: 'dummy' }, base_url: `${baseUrl}/v1` };
  write(join(letta, 'lc-local-backend', 'providers', 'auth.json'), JSON.stringify({ version: 1, providers: { 'openai-compatible': provider } }, null, 2));
  Object.assign(env, { DISABLE_AUTOUPDATER: '1', DO_NOT_TRACK: '1' });
}

function seedDroid({ home, cwd, env, baseUrl, firstRun }) {
  // Factory's droid in its airgap mode (FACTORY_AIRGAP_ENABLED: no Factory login, a built-in
  // airgapped user) with a BYOK custom model at the mock's chat completions; the model id is
  // "custom:<displayName with dashes>-<index>". Its default autonomy ("Auto (Off)") asks
  // before every action. The work folder is trusted as its trust dialog writes it.
  const settings = {
    customModels: [{ model: 'mock-model', displayName: 'Mock Model', provider: 'generic-chat-completion-api', baseUrl: `${baseUrl}/v1`, apiKey: 'dummy', maxOutputTokens: 8192, noImageSupport: true }],
    sessionDefaultSettings: { model: 'custom:Mock-Model-0' },
    logoAnimation: 'off',
    trustedFolders: firstRun ? {} : { [cwd]: { trustedAt: '2026-12-07T00:00:00.000Z' } },
  };
  write(join(home, '.factory', 'settings.json'), JSON.stringify(settings, null, 2));
  Object.assign(env, { FACTORY_AIRGAP_ENABLED: '1', FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false', FACTORYD_DISABLE_AUTO_UPDATE: '1' });
}

// ---- Oh My Pi, Kimi Code, Codebuff, Jules (issue 35 item 3) ----
function seedOmp({ home, env, baseUrl }) {
  // Oh My Pi keeps pi's custom providers, in YAML (~/.omp/agent/models.yml), and its settings
  // in config.yml. Unlike pi it asks before tools itself: "always-ask" prompts for write and
  // exec tools (its default is "yolo").
  const agentDir = join(home, '.omp', 'agent');
  write(join(agentDir, 'models.yml'), [
    'providers:',
    '  mock:',
    `    baseUrl: ${baseUrl}/v1`,
    '    api: openai-completions',
    '    apiKey: dummy',
    '    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }',
    '    models:',
    '      - { id: mock-model, name: Mock Model, reasoning: false, contextWindow: 128000, maxTokens: 8192 }',
    '',
  ].join('\n'));
  write(join(agentDir, 'config.yml'), [
    'modelRoles:',
    '  default: mock/mock-model',
    'tools:',
    '  approvalMode: always-ask',
    // Its "smooth streaming" (on by default) types an answer out for up to 2.5 s after the
    // stream has ended, and only then draws the tool's approval box; the lab's marks come from
    // the mock's stream, so it would label (and answer) a dialog not yet drawn. The screens
    // are the same without it.
    'display:',
    '  smoothStreaming: false',
    '',
  ].join('\n'));
  Object.assign(env, { OMP_SKIP_SETUP: '1' });
}
