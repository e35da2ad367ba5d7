/**
 * `agentwrap doctor`: what agentwrap sees on this machine and what is wrong with it, as a list
 * of checks, each ok / warn / fail with one line of what to do. Gathered in well under a second:
 * nothing here runs an agent, and the only child process is one `tmux show-options` inside tmux.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolveOnPath, versionOfExecutable } from '../adapters/agent-version.js';
import type { LoadedConfig } from '../adapters/config-file.js';
import { AGENTWRAP_VERSION, PACKAGE_ROOT } from '../adapters/paths.js';
import { machineProcessCoverage, procMountOptions } from '../adapters/process/evidence-source.js';
import { loadNativeRelay, RELAY_ADDON_PATH } from '../adapters/relay.js';
import { checkStateRootForReading, resolveStateRoot } from '../adapters/state-dir.js';
import { HOOK_AGENTS } from '../core/config/schema.js';
import { describeProcessCoverage } from '../core/detector/process-coverage.js';
import { formatSource, resolveLaunchSettings, resolveStateDirSetting, type LaunchSettings, type Setting } from '../core/config/launch-settings.js';
import { versionAdvice, versionStatus } from '../core/packs/schema.js';
import { isUnknownKeyProblem } from '../core/packs/lines.js';
import { DEMO_PACK_AGENT, loadDefaultRegistry } from './pack-registry.js';
import { describePackDisagreement, livePackDisagreements } from './pack-disagreements.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  /** What is checked: relay, terminal, tmux, state, config, pack, agent… */
  readonly topic: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** What to do about a warn or fail. */
  readonly fix: string | undefined;
}

export interface DoctorInput {
  readonly env: NodeJS.ProcessEnv;
  readonly config: LoadedConfig;
  readonly isStdinTerminal: boolean;
  readonly isStdoutTerminal: boolean;
  readonly terminalSize: { readonly cols: number; readonly rows: number } | undefined;
  readonly nodeVersion: string;
}

export interface DoctorReport {
  readonly version: string;
  readonly node: string;
  readonly relay: 'native' | 'event-loop';
  readonly checks: readonly DoctorCheck[];
  /** Effective defaults for a launch with no flags, each with its source. */
  readonly settings: Readonly<Record<string, { readonly value: unknown; readonly source: string }>>;
}

const MIN_NODE_MAJOR = 20;
/** A tmux that does not answer in this long is reported, not waited for. */
const TMUX_QUERY_TIMEOUT_MS = 500;

function check(topic: string, status: CheckStatus, message: string, fix?: string): DoctorCheck {
  return { topic, status, message, fix };
}

function errorLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}

function checkNode(nodeVersion: string): DoctorCheck {
  const major = Number(/^v?(\d+)/.exec(nodeVersion)?.[1] ?? 0);
  const where = `agentwrap ${AGENTWRAP_VERSION} in ${PACKAGE_ROOT}`;
  if (major < MIN_NODE_MAJOR) return check('node', 'fail', `node ${nodeVersion} is older than ${MIN_NODE_MAJOR} (${where})`, `install Node.js ${MIN_NODE_MAJOR} or newer`);
  return check('node', 'ok', `node ${nodeVersion}, ${process.platform}-${process.arch} (${where})`);
}

/** The native modules agentwrap cannot run without: loaded here as a launch would load them. */
function checkModules(): DoctorCheck[] {
  const require = createRequire(import.meta.url);
  return ['node-pty', 're2'].map((name) => {
    try {
      require(name);
      return check(name, 'ok', `${name} loads`);
    } catch (error) {
      return check(name, 'fail', `${name} does not load: ${errorLine(error)}`, 'reinstall agentwrap where a C++ compiler and python3 exist (apt install build-essential python3), e.g. npm install -g agentwrap');
    }
  });
}

function checkRelay(env: NodeJS.ProcessEnv): { check: DoctorCheck; relay: 'native' | 'event-loop' } {
  const load = loadNativeRelay(env);
  if (load.ok) return { relay: 'native', check: check('relay', 'ok', `native relay thread (${RELAY_ADDON_PATH})`) };
  if (env['AGENTWRAP_RELAY'] === 'js') {
    return { relay: 'event-loop', check: check('relay', 'ok', 'event-loop relay, chosen by AGENTWRAP_RELAY=js (the native addon is not tried)') };
  }
  const why = existsSync(RELAY_ADDON_PATH) ? `the native addon did not load: ${load.reason}` : `the native addon was not built (no ${RELAY_ADDON_PATH})`;
  return {
    relay: 'event-loop',
    check: check(
      'relay',
      'warn',
      `event-loop relay: ${why}; passthrough is correct, with more CPU and latency under floods`,
      `install a C compiler (apt install build-essential) and rebuild: npm rebuild agentwrap (in the prefix agentwrap is installed in)`,
    ),
  };
}

/** The terminal emulator, from what emulators export about themselves. */
function terminalName(env: NodeJS.ProcessEnv): string | undefined {
  const program = env['TERM_PROGRAM'];
  if (program !== undefined && program !== '') return `${program}${env['TERM_PROGRAM_VERSION'] === undefined ? '' : ` ${env['TERM_PROGRAM_VERSION']}`}`;
  const hints: readonly [string, string][] = [
    ['KITTY_WINDOW_ID', 'kitty'],
    ['WEZTERM_PANE', 'WezTerm'],
    ['ALACRITTY_WINDOW_ID', 'Alacritty'],
    ['WT_SESSION', 'Windows Terminal'],
    ['KONSOLE_VERSION', 'Konsole'],
    ['GNOME_TERMINAL_SCREEN', 'GNOME Terminal'],
    ['VTE_VERSION', 'a VTE terminal'],
  ];
  return hints.find(([name]) => env[name] !== undefined && env[name] !== '')?.[1];
}

function checkTerminal(input: DoctorInput): DoctorCheck {
  const { env } = input;
  const term = env['TERM'];
  const facts = [
    `TERM=${term ?? '(unset)'}`,
    `COLORTERM=${env['COLORTERM'] ?? '(unset)'}`,
    `TERM_PROGRAM=${env['TERM_PROGRAM'] ?? '(unset)'}`,
    `terminal: ${terminalName(env) ?? 'not named by the environment'}`,
    ...(input.terminalSize === undefined ? [] : [`${input.terminalSize.cols}x${input.terminalSize.rows}`]),
  ].join(', ');
  const notTerminal = !input.isStdinTerminal ? 'stdin' : !input.isStdoutTerminal ? 'stdout' : undefined;
  if (notTerminal !== undefined) {
    return check('terminal', 'warn', `${notTerminal} is not a terminal here, so agentwrap would run agents unwrapped (no status); ${facts}`, 'run agentwrap from an interactive terminal');
  }
  if (term === undefined || term === '' || term === 'dumb') {
    return check('terminal', 'warn', `TERM is ${term === undefined || term === '' ? 'unset' : 'dumb'}: agents draw plain text or refuse to start; ${facts}`, 'set TERM to what your terminal emulates, e.g. export TERM=xterm-256color');
  }
  return check('terminal', 'ok', facts);
}

/**
 * Where the agent's process evidence would come from here (procfs, ps, nothing) and what a
 * session loses without it. Sampled on doctor's own process, as a session samples its agent.
 */
function checkProcessEvidence(): DoctorCheck {
  const coverage = machineProcessCoverage();
  const cost = describeProcessCoverage(coverage);
  if (cost !== undefined) {
    const fix = coverage.source === 'procfs' || coverage.source === 'none' ? 'mount procfs at /proc (a container: do not mask it; hidepid is fine for your own processes)' : 'check that ps runs';
    return check('process', 'warn', cost, fix);
  }
  if (coverage.source === 'ps') return check('process', 'ok', 'no /proc: CPU, children, stop and foreground of the agent\'s tree from ps, once a second');
  const options = procMountOptions()?.split(',').filter((option) => /^(hidepid|subset)=/.test(option)) ?? [];
  const restricted = options.length === 0 ? '' : ` (mounted ${options.join(',')}: other users' processes are hidden, the agent's own are not)`;
  return check('process', 'ok', `/proc: CPU, children, stop and foreground of the agent's tree${restricted}`);
}

/** $TMUX is `socket,server-pid,session`. */
function checkTmux(env: NodeJS.ProcessEnv, settings: LaunchSettings): DoctorCheck {
  const tmux = env['TMUX'];
  if (tmux === undefined || tmux === '') return check('tmux', 'ok', 'not inside tmux ($TMUX unset)');
  const socket = tmux.split(',')[0] ?? '';
  const pane = env['TMUX_PANE'];
  const where = `inside tmux: socket ${socket}, pane ${pane ?? '(TMUX_PANE unset)'}`;
  let isSocket = false;
  try {
    isSocket = statSync(socket).isSocket();
  } catch {
    // Gone: reported below as a stale $TMUX.
  }
  if (!isSocket) return check('tmux', 'fail', `$TMUX names socket ${socket}, which is gone: this shell outlived its tmux server`, 'open a new tmux window, or unset TMUX');
  const term = env['TERM'] ?? '';
  if (!/^(tmux|screen)/.test(term)) {
    return check('tmux', 'warn', `${where}; but TERM=${term || '(unset)'}, not tmux's own: agents will draw for the wrong terminal`, 'do not set TERM in your shell rc inside tmux; set -g default-terminal tmux-256color in ~/.tmux.conf');
  }
  const shown = spawnSync('tmux', ['-S', socket, 'show-options', '-gv', 'allow-passthrough'], { encoding: 'utf8', timeout: TMUX_QUERY_TIMEOUT_MS });
  const passthrough = shown.status === 0 ? shown.stdout.trim() : undefined;
  if (passthrough === 'off' && settings.notify.value) {
    return check('tmux', 'warn', `${where}; allow-passthrough is off, so notify's terminal notifications never reach your terminal`, 'add `set -g allow-passthrough on` to ~/.tmux.conf (tmux 3.3 or newer)');
  }
  return check('tmux', 'ok', `${where}, TERM=${term}, allow-passthrough ${passthrough ?? 'unknown'}`);
}

function checkStateDir(env: NodeJS.ProcessEnv, config: LoadedConfig): { check: DoctorCheck; setting: Setting<string> } {
  const setting = resolveStateDirSetting(env['AGENT_STATUS_DIR'], config, resolveStateRoot({ ...env, AGENT_STATUS_DIR: undefined }));
  const root = setting.value;
  const from = `(${formatSource(setting.source)})`;
  const refused = checkStateRootForReading(root);
  if (refused !== undefined) {
    return { setting, check: check('state', 'fail', `state directory ${refused.message} ${from}; sessions will not be published`, `chmod 700 ${root}, or point state_dir (config.toml) or AGENT_STATUS_DIR at a directory of yours`) };
  }
  let mode: number | undefined;
  try {
    mode = statSync(root).mode & 0o777;
  } catch {
    // Absent: the first session creates it 0700.
  }
  if (mode === undefined) return { setting, check: check('state', 'ok', `state directory ${root} ${from} does not exist yet; the first session creates it 0700`) };
  if ((mode & 0o077) !== 0) {
    return { setting, check: check('state', 'warn', `state directory ${root} ${from} is readable by others (mode ${mode.toString(8)}): they can see what your agents are doing`, `chmod 700 ${root}`) };
  }
  return { setting, check: check('state', 'ok', `state directory ${root} ${from} is private (mode ${mode.toString(8)}, yours)`) };
}

function checkConfig(config: LoadedConfig, settings: LaunchSettings): DoctorCheck[] {
  if (config.status === 'invalid') {
    return config.problems.map((problem) => check('config', 'fail', `${problem}; the whole file is ignored, built-in defaults in use`, 'fix that line (docs/config.md lists every key)'));
  }
  const out: DoctorCheck[] = [
    config.status === 'absent'
      ? check('config', 'ok', `no config file${config.path === undefined ? '' : ` at ${config.path}`}; built-in defaults (docs/config.md)`)
      : check('config', 'ok', `${config.path ?? '?'} is valid`),
  ];
  const record = settings.record.value;
  if (record.kind === 'dir') {
    try {
      const mode = statSync(record.dir).mode & 0o777;
      if ((mode & 0o022) !== 0) out.push(check('config', 'warn', `record_dir ${record.dir} is writable by others (mode ${mode.toString(8)}): sessions will not be recorded there`, `chmod 700 ${record.dir}`));
    } catch {
      // Absent: the first session creates it 0700.
    }
  }
  return out;
}

function settingsTable(settings: LaunchSettings, state: Setting<string>): DoctorReport['settings'] {
  const record = settings.record.value;
  const shown = (value: unknown, source: Setting<unknown>['source']): { value: unknown; source: string } => ({ value, source: formatSource(source) });
  return {
    notify: shown(settings.notify.value, settings.notify.source),
    on_state: shown(settings.onState.value ?? null, settings.onState.source),
    // Its origin only: the path or query of a webhook URL is often its secret (Slack, ntfy).
    notify_url: shown(settings.notifyUrl.value === undefined ? null : `${new URL(settings.notifyUrl.value).origin}/…`, settings.notifyUrl.source),
    record_dir: shown(record.kind === 'dir' ? record.dir : null, settings.record.source),
    record_keep: shown(record.kind === 'dir' ? record.keep : null, settings.record.source),
    state_dir: shown(state.value, state.source),
  };
}

const NO_FLAGS = { record: undefined, recordInput: false, noRecord: false, notify: undefined, onState: undefined, hooks: undefined };

function hooksPhrase(agent: string, config: LoadedConfig): string {
  if (!HOOK_AGENTS.includes(agent)) return 'no reporter hooks for it (screen rules only)';
  const hooks = resolveLaunchSettings(NO_FLAGS, config, agent).hooks;
  return `hooks ${hooks.value ? 'on' : 'off'} (${formatSource(hooks.source)})`;
}

function checkPacksAndAgents(env: NodeJS.ProcessEnv, config: LoadedConfig): DoctorCheck[] {
  const registry = loadDefaultRegistry(env);
  const out: DoctorCheck[] = [];
  const entries = registry.entries();
  for (const entry of entries) {
    if (entry.status === 'invalid' || entry.status === 'stale') {
      const more = entry.problems.length > 1 ? ` (+${entry.problems.length - 1} more: agentwrap packs lint ${entry.path})` : '';
      const kept = entry.agent === undefined ? 'skipped' : `skipped; ${registry.packForAgent(entry.agent)?.origin ?? 'no'} pack for ${entry.agent} stays live`;
      // Problems come in line order; the one line shown is the likely cause: a misspelt key.
      const shown = entry.problems.find(isUnknownKeyProblem) ?? entry.problems[0] ?? `${entry.path}: invalid`;
      out.push(check('pack', 'fail', `${shown}${more} (${kept})`, `fix the pack, or move it out of ${registry.userPacksDir ?? 'the user pack directory'}`));
    } else if (entry.status === 'needs-newer-engine') {
      out.push(check('pack', 'warn', `${entry.problems[0] ?? entry.path}`, 'update agentwrap (npm install -g agentwrap)'));
    }
  }
  const live = registry.packs();
  const users = live.filter((p) => p.origin === 'user').length;
  out.push(check('pack', 'ok', `${live.length} packs live (${live.length - users} bundled, ${users} from ${registry.userPacksDir ?? 'no user directory'})`));

  const looked: string[] = [];
  let found = 0;
  // The bundled demo agent is run by `agentwrap demo`, never found on PATH: not an agent CLI.
  for (const pack of live.filter((p) => !(p.origin === 'bundled' && p.agent === DEMO_PACK_AGENT))) {
    for (const command of pack.compiled.pack.commands) {
      looked.push(command);
      const executable = resolveOnPath(command, env['PATH']);
      if (executable === undefined) continue;
      found += 1;
      const span = pack.compiled.pack.validatedVersions;
      const head = `${command} (${executable}) → ${pack.origin} pack ${pack.agent}, ${hooksPhrase(pack.agent, config)}`;
      const version = versionOfExecutable(executable);
      if (version === undefined) {
        out.push(check('agent', 'warn', `${head}; its version cannot be read, so it may be outside the pack's validated span "${span}"`, `agentwrap status explain ${command} shows whether the rules match its screens`));
        continue;
      }
      const advice = versionAdvice(pack.agent, version.version, span, versionStatus(version.version, span));
      if (advice === undefined) out.push(check('agent', 'ok', `${head}; version ${version.version} is inside the validated span "${span}"`));
      else out.push(check('agent', advice.level === 'note' ? 'ok' : 'warn', `${head}; ${advice.text}`, advice.todo));
    }
  }
  if (found === 0) out.push(check('agent', 'ok', `no agent CLI with a pack on PATH (looked for ${[...new Set(looked)].join(', ')}); agentwrap run -- CMD wraps anything`));
  return out;
}

/** A live session whose agent's own report and pack disagree: the pack may be stale for that release. */
function checkDisagreements(root: string): DoctorCheck[] {
  const nowWallMs = Date.now();
  return livePackDisagreements(root, nowWallMs).map((d) =>
    check('pack', 'warn', `${d.agent} pack may be stale for the running release: ${describePackDisagreement(d, nowWallMs)}`, `agentwrap status explain ${d.session} shows both; record this release and update the pack (docs/signals.md)`),
  );
}

export function runDoctor(input: DoctorInput): DoctorReport {
  const { env, config } = input;
  const settings = resolveLaunchSettings(NO_FLAGS, config, '');
  const relay = checkRelay(env);
  const state = checkStateDir(env, config);
  const checks: DoctorCheck[] = [
    checkNode(input.nodeVersion),
    ...checkModules(),
    relay.check,
    checkTerminal(input),
    checkTmux(env, settings),
    checkProcessEvidence(),
    state.check,
    ...checkConfig(config, settings),
    ...checkPacksAndAgents(env, config),
    ...checkDisagreements(state.setting.value),
  ];
  return { version: AGENTWRAP_VERSION, node: input.nodeVersion, relay: relay.relay, checks, settings: settingsTable(settings, state.setting) };
}
