/**
 * `agentwrap doctor` and `agentwrap --version` as a user runs them (the built CLI), in a fresh
 * HOME: outside tmux, inside a pane of a private tmux server, with a stale $TMUX, with a broken
 * user pack, with a broken and a valid config file, and with the event-loop relay chosen.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, ROOT } from '../helpers/cli.js';
import { canHideProc, withProcHidden } from '../helpers/hidden-proc.js';

let dir: string;
let home: string;

beforeAll(() => {
  ensureBuilt();
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-doctor-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.config', 'agentwrap', 'packs'), { recursive: true });
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8', AGENT_STATUS_DIR: join(dir, 'state'), ...extra };
}

function doctor(args: string[] = [], extra: NodeJS.ProcessEnv = {}): { code: number; stdout: string; lines: string[] } {
  const result = spawnSync(process.execPath, [CLI, 'doctor', ...args], { encoding: 'utf8', env: cleanEnv(extra), timeout: 20_000 });
  return { code: result.status ?? -1, stdout: result.stdout, lines: result.stdout.split('\n') };
}

function problems(lines: readonly string[]): string[] {
  return lines.filter((line) => /^(warn|fail) /.test(line));
}

describe('agentwrap doctor', () => {
  it('outside tmux, with nothing configured: ok lines, exit 0, only the missing terminal warned about', () => {
    const { code, lines } = doctor();

    expect(code).toBe(0);
    expect(lines).toContainEqual('ok    tmux: not inside tmux ($TMUX unset)');
    expect(lines).toContainEqual(expect.stringMatching(/^ok {4}relay: native relay thread \(.*agentwrap_relay\.node\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ok {4}config: no config file at .*\/home\/\.config\/agentwrap\/config\.toml; built-in defaults/));
    // Spawned with pipes, stdin is not a terminal: that is the one thing doctor can fault here.
    expect(problems(lines)).toEqual([expect.stringMatching(/^warn {2}terminal: stdin is not a terminal here, so agentwrap would run agents unwrapped/)]);
  });

  it('a $TMUX whose socket is gone fails in one line', () => {
    const { code, lines } = doctor([], { TMUX: join(dir, 'gone.sock') + ',123,0', TMUX_PANE: '%3' });

    expect(code).toBe(1);
    expect(lines.filter((l) => l.startsWith('fail'))).toEqual([`fail  tmux: $TMUX names socket ${join(dir, 'gone.sock')}, which is gone: this shell outlived its tmux server — open a new tmux window, or unset TMUX`]);
  });

  it.skipIf(!canHideProc)('with /proc hidden: one warning naming the process evidence lost and what detection relies on', () => {
    const [file, args] = withProcHidden(process.execPath, [CLI, 'doctor']);
    const result = spawnSync(file, args, { encoding: 'utf8', env: cleanEnv(), timeout: 20_000 });

    expect(result.stdout.split('\n').filter((line) => line.includes('process:'))).toEqual([
      "warn  process: no /proc (nothing at /proc/self/stat): busy-without-output, child-process, stopped/zombie-agent and child-in-foreground evidence unavailable; detection relies on screen, title and the agent's own signals — mount procfs at /proc (a container: do not mask it; hidepid is fine for your own processes)",
    ]);
  });

  it('a broken user pack fails in one line naming file, line, rule and problem', () => {
    const pack = join(home, '.config', 'agentwrap', 'packs', 'claude.toml');
    writeFileSync(pack, 'schema_version = 1\nagent = "claude"\ncommands = ["claude"]\nvalidated_versions = ">=2.0.0, <3.0.0"\n\n[[rule]]\nid = "typo"\nstate = "working"\nregion = "bottom:5"\nrequires_al = ["esc"]\n');

    const { code, lines } = doctor();

    expect(code).toBe(1);
    expect(lines.filter((l) => l.startsWith('fail'))).toEqual([
      expect.stringMatching(new RegExp(`^fail {2}pack: ${pack}:10: rule typo: unknown key "requires_al" .* \\(skipped; bundled pack for claude stays live\\) — fix the pack`)),
    ]);
  });

  it('a broken config: one fail line per problem, FILE:LINE; a valid one: effective values with their lines', () => {
    const config = join(home, '.config', 'agentwrap', 'config.toml');
    writeFileSync(config, 'notify = true\nnotfy = false\n[hooks]\namp = false\n');

    const broken = doctor();

    expect(broken.code).toBe(1);
    expect(broken.lines.filter((l) => l.startsWith('fail'))).toEqual([
      `fail  config: ${config}:2: unknown key "notfy" (did you mean "notify"?); the whole file is ignored, built-in defaults in use — fix that line (docs/config.md lists every key)`,
      expect.stringContaining(`${config}:4: [hooks] names "amp", which has no reporter hooks`),
    ]);

    writeFileSync(config, `notify = true\nrecord_dir = "~/rec"\nstate_dir = "${join(dir, 'state2')}"\n[hooks]\nclaude = false\n`);
    const valid = doctor([], { AGENT_STATUS_DIR: undefined });

    expect(valid.code).toBe(0);
    expect(valid.lines).toContainEqual(`  notify       true  (${config}:1)`);
    expect(valid.lines).toContainEqual(`  record_dir   ${home}/rec  (${config}:2)`);
    expect(valid.lines).toContainEqual(`  state_dir    ${join(dir, 'state2')}  (${config}:3)`);
    expect(valid.lines).toContainEqual(`  on_state     -  (default)`);
  });

  it('$AGENT_STATUS_DIR wins over state_dir and says so', () => {
    writeFileSync(join(home, '.config', 'agentwrap', 'config.toml'), `state_dir = "${join(dir, 'state2')}"\n`);

    const { lines } = doctor();

    expect(lines).toContainEqual(`  state_dir    ${join(dir, 'state')}  ($AGENT_STATUS_DIR)`);
  });

  it('a state directory others can write into fails', () => {
    mkdirSync(join(dir, 'state'), { mode: 0o777 });
    execFileSync('chmod', ['777', join(dir, 'state')]);

    const { code, lines } = doctor();

    expect(code).toBe(1);
    expect(lines.filter((l) => l.startsWith('fail'))).toEqual([expect.stringMatching(/^fail {2}state: state directory refusing .*: .*writable.* — chmod 700/)]);
  });

  it('--json: every check, the settings, ok false when one fails', () => {
    writeFileSync(join(home, '.config', 'agentwrap', 'config.toml'), 'bogus = 1\n');

    const { code, stdout } = doctor(['--json']);
    const report = JSON.parse(stdout) as { ok: boolean; relay: string; checks: { topic: string; status: string }[]; settings: Record<string, unknown> };

    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.topic === 'config')?.status).toBe('fail');
    expect(Object.keys(report.settings)).toEqual(['notify', 'on_state', 'notify_url', 'record_dir', 'record_keep', 'state_dir']);
  });

  it('looks for agent CLIs only: never the bundled demo agent, which agentwrap demo runs', () => {
    const emptyPath = join(dir, 'empty-path');
    mkdirSync(emptyPath);

    const { lines } = doctor([], { PATH: emptyPath });
    const agentLine = lines.find((l) => l.startsWith('ok    agent: no agent CLI with a pack on PATH')) ?? '';

    expect(agentLine).toMatch(/looked for .*\bclaude\b.*\bcodex\b/);
    expect(agentLine).not.toMatch(/\b(agent\.js|demo-agent|demo)\b/);
  });

  it('--json names every check by a topic docs/config.md documents', () => {
    const documented = [...readFileSync(join(ROOT, 'docs', 'config.md'), 'utf8').matchAll(/^\| `([a-z0-9-]+)`(?:, `([a-z0-9-]+)`)? \|/gm)].flatMap((m) => [m[1], m[2]]);

    const report = JSON.parse(doctor(['--json']).stdout) as { checks: { topic: string }[] };

    expect(documented).toContain('pack');
    expect([...new Set(report.checks.map((c) => c.topic))].filter((topic) => !documented.includes(topic))).toEqual([]);
  });

  it('AGENTWRAP_RELAY=js: doctor and --version name the event-loop relay and why', () => {
    const { lines } = doctor([], { AGENTWRAP_RELAY: 'js' });
    const version = execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', env: cleanEnv({ AGENTWRAP_RELAY: 'js' }) });

    expect(lines).toContainEqual('ok    relay: event-loop relay, chosen by AGENTWRAP_RELAY=js (the native addon is not tried)');
    expect(version).toBe(`agentwrap ${JSON.parse(readFileSync(join(CLI, '../../../../package.json'), 'utf8')).version} (event-loop relay (AGENTWRAP_RELAY=js); node ${process.version})\n`);
  });
});

describe.skipIf(spawnSync('sh', ['-c', 'command -v tmux']).status !== 0)('agentwrap doctor inside tmux', () => {
  it('names the socket and the pane; warns when notify is on and allow-passthrough is off', async () => {
    const socket = `aw-doctor-${process.pid}`;
    writeFileSync(join(home, '.config', 'agentwrap', 'config.toml'), 'notify = true\n');
    const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: cleanEnv() });
    let screen = '';
    try {
      // In the pane, as a user types it: doctor's stdout is the pane's terminal; read back with capture-pane.
      tmux('new-session', '-d', '-x', '250', '-y', '40', `${process.execPath} ${CLI} doctor; echo "exit=$?"; sleep 60`);
      for (let i = 0; i < 200 && !/^exit=\d/m.test(screen); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        screen = tmux('capture-pane', '-p', '-J', '-t', '0');
      }
    } finally {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    }
    const lines = screen.split('\n').map((line) => line.trimEnd());

    expect(lines).toContainEqual('exit=0');
    expect(problems(lines)).toEqual([
      expect.stringMatching(/^warn {2}tmux: inside tmux: socket \/.*\/aw-doctor-\d+, pane %0; allow-passthrough is off, so notify's terminal notifications never reach your terminal — add `set -g allow-passthrough on`/),
    ]);
    expect(lines).toContainEqual(expect.stringMatching(/^ok {4}terminal: TERM=(screen|tmux)/));
  });
});
