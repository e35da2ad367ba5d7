// Offline checks of the lab's seeding for the agents added in issue 16 (pi, Qwen Code, Grok CLI,
// Copilot CLI) and issue 35 (Kilo Code CLI, Continue CLI, Cline CLI, Oh My Pi): each one is pointed at the
// mock and nowhere else, in the mode that asks before a shell command.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seed } from './seed.mjs';
import { AGENTS } from './agents.mjs';

const BASE = 'http://127.0.0.1:45678';
const dirs: string[] = [];

function seeded(agent: string) {
  const runDir = mkdtempSync(join(tmpdir(), `agents-seed-${agent}-`));
  dirs.push(runDir);
  return seed(agent, { runDir, baseUrl: BASE });
}

/** Every file the seeding wrote under HOME, as text. */
function homeFiles(home: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[path.slice(home.length + 1)] = readFileSync(path, 'utf8');
    }
  };
  walk(home);
  return out;
}

/** URLs in the seeded environment and config files. */
function urlsOf(s: { env: Record<string, string>; home: string }): string[] {
  const text = [...Object.values(s.env), ...Object.values(homeFiles(s.home))].join('\n');
  return text.match(/https?:\/\/[^\s"'`]+/g) ?? [];
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('seeding of the issue-16 agents', () => {
  it.each(['pi', 'qwen', 'grok', 'copilot', 'kilo', 'continue', 'cline', 'omp'])('%s is pointed at the mock and at no other address', (agent) => {
    const s = seeded(agent);
    const urls = urlsOf(s);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(BASE), `${agent}: ${url}`).toBe(true);
  });

  it('pi gets a provider at the mock and an extension that asks before every bash call', () => {
    const s = seeded('pi');
    const models = JSON.parse(readFileSync(join(s.home, '.pi', 'agent', 'models.json'), 'utf8'));
    expect(models.providers.mock.baseUrl).toBe(`${BASE}/v1`);
    const settings = JSON.parse(readFileSync(join(s.home, '.pi', 'agent', 'settings.json'), 'utf8'));
    expect([settings.defaultProvider, settings.defaultModel]).toEqual(['mock', models.providers.mock.models[0].id]);
    const extension = readFileSync(join(s.home, '.pi', 'agent', 'extensions', 'ask-before-bash.ts'), 'utf8');
    expect(extension).toContain("event.toolName !== 'bash'");
    expect(extension).toContain('ctx.ui.select');
    expect(s.env['PI_OFFLINE']).toBe('1');
  });

  it('codex gets a read-only sandbox only when a scenario asks (edit), workspace-write otherwise', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'agents-seed-codex-'));
    dirs.push(runDir);
    const readOnly = seed('codex', { runDir, baseUrl: BASE, options: { codexSandbox: 'read-only' } });
    expect(readFileSync(join(readOnly.home, '.codex', 'config.toml'), 'utf8')).toContain('sandbox_mode = "read-only"');
    expect(readFileSync(join(seeded('codex').home, '.codex', 'config.toml'), 'utf8')).toContain('sandbox_mode = "workspace-write"');
  });

  it('opencode asks before shell and edits and runs without snapshot tracking (its git work is invisible to the mock)', () => {
    const cfg = JSON.parse(readFileSync(join(seeded('opencode').home, '.config', 'opencode', 'opencode.json'), 'utf8'));
    expect(cfg).toMatchObject({ snapshot: false, permission: { bash: 'ask', edit: 'ask' }, model: 'mock/mock-model' });
    expect(cfg.provider.mock.options.baseURL).toBe(`${BASE}/v1`);
  });

  it('opencode allows a pre-approved command after the catch-all ask, as its last matching pattern decides', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'agents-seed-opencode-'));
    dirs.push(runDir);
    const s = seed('opencode', { runDir, baseUrl: BASE, options: { allowShell: ['sleep 8'] } });
    const cfg = JSON.parse(readFileSync(join(s.home, '.config', 'opencode', 'opencode.json'), 'utf8'));
    expect(Object.entries(cfg.permission.bash)).toEqual([['*', 'ask'], ['sleep 8', 'allow']]);
  });

  it('qwen runs in the default approval mode without follow-up suggestions', () => {
    const s = seeded('qwen');
    expect(AGENTS['qwen']?.args).toEqual(['--approval-mode', 'default']);
    const settings = JSON.parse(readFileSync(join(s.home, '.qwen', 'settings.json'), 'utf8'));
    expect(settings.security.auth.selectedType).toBe('openai');
    expect(settings.ui.enableFollowupSuggestions).toBe(false);
    expect(s.env['OPENAI_BASE_URL']).toBe(`${BASE}/v1`);
  });

  it('copilot uses its BYOK provider offline, with the work folder trusted', () => {
    const s = seeded('copilot');
    expect(s.env['COPILOT_PROVIDER_BASE_URL']).toBe(`${BASE}/v1`);
    expect(s.env['COPILOT_OFFLINE']).toBe('true');
    const config = JSON.parse(readFileSync(join(s.home, '.copilot', 'config.json'), 'utf8'));
    expect(config.trusted_folders).toEqual([s.cwd]);
  });

  it('kilo asks before shell commands and edits, with the mock as its model', () => {
    const cfg = JSON.parse(readFileSync(join(seeded('kilo').home, '.config', 'kilo', 'kilo.json'), 'utf8'));
    expect(cfg).toMatchObject({ permission: { bash: 'ask', edit: 'ask' }, model: 'mock/mock-model', autoupdate: false });
    expect(cfg.provider.mock.options.baseURL).toBe(`${BASE}/v1`);
  });

  it('continue reads a local config.yaml with the mock as its only model and skips its onboarding question', () => {
    const s = seeded('continue');
    const yaml = readFileSync(join(s.home, '.continue', 'config.yaml'), 'utf8');
    expect(yaml).toContain(`apiBase: ${BASE}/v1`);
    expect(yaml.match(/^\s+- name:/gm)).toHaveLength(1);
    expect(readFileSync(join(s.home, '.continue', '.onboarding_complete'), 'utf8')).not.toBe('');
  });

  it('cline uses an OpenAI-compatible provider at the mock, runs without auto-approval and has seen its start-up notices', () => {
    const s = seeded('cline');
    const providers = JSON.parse(readFileSync(join(s.home, '.cline', 'data', 'settings', 'providers.json'), 'utf8'));
    expect(providers.lastUsedProvider).toBe('openai-compatible');
    expect(providers.providers['openai-compatible'].settings.baseUrl).toBe(`${BASE}/v1`);
    expect(AGENTS['cline']?.args).toEqual(['--auto-approve', 'false']);
    const notices = JSON.parse(readFileSync(join(s.home, '.cline', 'data', 'settings', 'cli-notices.json'), 'utf8'));
    expect(Object.values(notices.shown)).toEqual([true, true]);
  });

  it('omp gets a provider at the mock as its default model, asks before write and exec tools and streams without smoothing', () => {
    const s = seeded('omp');
    const models = readFileSync(join(s.home, '.omp', 'agent', 'models.yml'), 'utf8');
    expect(models).toMatch(/^ {2}mock:\n {4}baseUrl: http:\/\/127\.0\.0\.1:45678\/v1\n/m);
    expect(models).toMatch(/^ {4}api: openai-completions$/m);
    expect(models).toMatch(/\{ id: mock-model,/);
    const config = readFileSync(join(s.home, '.omp', 'agent', 'config.yml'), 'utf8');
    expect(config).toMatch(/^modelRoles:\n {2}default: mock\/mock-model$/m);
    expect(config).toMatch(/^tools:\n {2}approvalMode: always-ask$/m);
    expect(config).toMatch(/^display:\n {2}smoothStreaming: false$/m);
    expect(s.env['OMP_SKIP_SETUP']).toBe('1');
  });
});

describe('a new user\'s first start (`first-run`, seed `bare`)', () => {
  const bare = (agent: string) => {
    const runDir = mkdtempSync(join(tmpdir(), `agents-bare-${agent}-`));
    dirs.push(runDir);
    return seed(agent, { runDir, baseUrl: BASE, firstRun: true, options: { bare: true } });
  };

  it.each(['codex', 'gemini'])('%s gets no configuration file at all', (agent) => {
    expect(Object.keys(homeFiles(bare(agent).home))).toEqual([]);
  });

  it('gemini is pointed at the mock and at no other address', () => {
    const urls = urlsOf(bare('gemini'));
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(BASE), url).toBe(true);
  });

  it('codex gets the key a new user has in the environment and no address at all (no turn is recorded)', () => {
    const s = bare('codex');
    expect(s.env['OPENAI_API_KEY']).toBeTruthy();
    expect(s.env['CODEX_HOME']).toBe(join(s.home, '.codex'));
    expect(urlsOf(s)).toEqual([]);
  });
});

// Issue 35 item 3, second list: the agents of that list that run against the mock.
describe('seeding of the issue-35 agents (second list)', () => {
  it.each(['letta', 'droid'])('%s is pointed at the mock and at no other address', (agent) => {
    const s = seeded(agent);
    const urls = urlsOf(s);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(BASE), `${agent}: ${url}`).toBe(true);
  });

  it('letta runs on its local backend with an OpenAI-compatible provider at the mock, in the mode that asks', () => {
    const s = seeded('letta');
    expect(AGENTS['letta']?.args).toEqual(['--permission-mode', 'standard']);
    const settings = JSON.parse(readFileSync(join(s.home, '.letta', 'settings.json'), 'utf8'));
    expect(settings.preferredBackendMode).toBe('local');
    const auth = JSON.parse(readFileSync(join(s.home, '.letta', 'lc-local-backend', 'providers', 'auth.json'), 'utf8'));
    expect(auth.providers['openai-compatible']).toMatchObject({ provider_type: 'openai-compatible', base_url: `${BASE}/v1`, auth: { type: 'api' } });
  });

  it('droid runs in airgap mode (no Factory login) with its custom model at the mock, the work folder trusted', () => {
    const s = seeded('droid');
    expect(s.env['FACTORY_AIRGAP_ENABLED']).toBe('1');
    const settings = JSON.parse(readFileSync(join(s.home, '.factory', 'settings.json'), 'utf8'));
    expect(settings.customModels[0]).toMatchObject({ provider: 'generic-chat-completion-api', baseUrl: `${BASE}/v1`, displayName: 'Mock Model' });
    expect(settings.sessionDefaultSettings.model).toBe('custom:Mock-Model-0');
    expect(Object.keys(settings.trustedFolders)).toEqual([s.cwd]);
  });
});
