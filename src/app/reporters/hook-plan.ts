/**
 * What every per-launch reporter shares: the plan's shape (what planHooks returns), the private
 * temporary directory, and the plan of an agent whose hooks report through a spool (Claude Code,
 * Codex, Gemini CLI): each hook is a shell line that writes its payload into the launch's spool
 * directory and ends (hook-spool.ts spoolHookLine), and agentwrap delivers every file that lands
 * there to the session as one `report` (followSpool), so no hook ever starts a Node process.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { followSpool, type SpoolFollowing, type SpooledReport } from './hook-spool.js';

export interface HookPlanInput {
  /** The agent as agentwrap knows it: `--pack` if given, else the command's basename. */
  readonly agent: string;
  /**
   * The program run (`agentwrap run --pack claude -- sh …` runs `sh`): hooks are the agent's own
   * command-line flags, so they go only to the agent's own command. Absent: taken to be the agent.
   */
  readonly command?: string;
  /** The agent's arguments as the user typed them. */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** How a hook runs agentwrap; default: this node binary and this installation's main.js. */
  readonly reportCommand?: readonly string[];
  /** Where the private temporary directory goes; default os.tmpdir(). */
  readonly tmpRoot?: string;
}

export interface HookPlan {
  readonly agent: string;
  /** True when a reporter was added for this run. */
  readonly installed: boolean;
  /** The arguments to launch the agent with (the user's, with ours merged in). */
  readonly args: readonly string[];
  /** Extra environment for the agent. */
  readonly env: Readonly<Record<string, string>>;
  /** The agent events that report (for explain and docs). */
  readonly events: readonly string[];
  /** Why nothing was installed, or what was merged; undefined when there is nothing to say. */
  readonly note: string | undefined;
  /**
   * When no reporter was added: what `status explain` says about that for the whole session
   * (undefined: the agent has no reporter to add, nothing to explain).
   */
  readonly absence?: string;
  /**
   * Starts what listens from agentwrap's side (a spool, OpenCode's event stream) once the
   * session's control socket path is known. Never throws.
   */
  start(session: ReporterSession): void;
  /**
   * The agent exited: stops delivering, before the session closes its socket, so a report still
   * on its way (Claude Code's `SessionEnd`) ends quietly instead of failing into the user's
   * terminal. Never throws.
   */
  end(): void;
  /** Stops listening and removes the temporary files; call after the agent exited. Never throws. */
  dispose(): void;
}

export interface ReporterSession {
  /** The session's control socket, where reports go; undefined when it has none (nothing to report to). */
  readonly controlPath: string | undefined;
  /** Where a reporter failure is said (never on the agent's screen). */
  readonly warn: (message: string) => void;
  /** Where what is normal but may help a diagnosis is said (AGENTWRAP_DEBUG=1); absent: nowhere. */
  readonly debug?: (message: string) => void;
}

/** A plan that adds nothing. */
export function nothing(agent: string, args: readonly string[], note: string | undefined): HookPlan {
  return { agent, installed: false, args, env: {}, events: [], note, start: () => undefined, end: () => undefined, dispose: () => undefined };
}

export interface PrivateDir {
  readonly dir: string;
  readonly dispose: () => void;
}

/** A 0700 directory of this launch's own under `root`, removed by dispose(). */
export function privateDir(root: string): PrivateDir {
  const dir = mkdtempSync(join(root, 'agentwrap-hooks-'));
  return {
    dir,
    dispose: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch (error) {
        // A temp dir we cannot remove is left for the OS to clean; the session is over anyway.
        void error;
      }
    },
  };
}

/** The spool directory inside a launch's private directory (created, 0700). */
export function makeSpoolDir(temp: PrivateDir): string {
  const spoolDir = join(temp.dir, 'reports');
  mkdirSync(spoolDir, { mode: 0o700 });
  return spoolDir;
}

/** One spooled report's round trip to the session's socket, at most (as for `agentwrap report`). */
const SPOOLED_REPORT_TIMEOUT_MS = 300;

/** One spooled hook report to the session, as `agentwrap report <event> --source <source> --json -` sends it. */
async function deliverSpooled(controlPath: string, agent: string, source: string, report: SpooledReport): Promise<unknown> {
  const [{ requestControl }, { parsePayload, slimPayload }] = await Promise.all([import('../control/client.js'), import('../../core/detector/gating.js')]);
  const slim = slimPayload(parsePayload(report.text));
  const params = { event: report.event, agent, source, seq: report.writtenAtMs, sentAtMs: report.writtenAtMs, ...(slim === undefined ? {} : { payload: slim }) };
  return requestControl(controlPath, { method: 'report', params }, SPOOLED_REPORT_TIMEOUT_MS);
}

export interface SpooledPlanInput {
  readonly agent: string;
  /** The reporter's name in explain (`claude-hooks`, `codex-hooks`, `gemini-hooks`). */
  readonly source: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly events: readonly string[];
  readonly note: string | undefined;
  readonly temp: PrivateDir;
  readonly spoolDir: string;
}

/** The plan of hooks that report through `spoolDir`: follows it once the session is known, removes it at the end. */
export function spooledPlan(input: SpooledPlanInput): HookPlan {
  let following: SpoolFollowing | undefined;
  return {
    agent: input.agent,
    installed: true,
    args: input.args,
    env: input.env,
    events: input.events,
    note: input.note,
    start: ({ controlPath, warn, debug }) => {
      if (controlPath === undefined || following !== undefined) return;
      following = followSpool(input.spoolDir, (report) => deliverSpooled(controlPath, input.agent, input.source, report), warn, debug);
    },
    end: () => following?.stop(),
    dispose: () => {
      following?.stop();
      input.temp.dispose();
    },
  };
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An agent's settings with agentwrap's hooks appended to each event's list, theirs first and
 * everything else kept (a `hooks` that is not an object is left out of the merge). Claude's
 * `--settings` and Gemini's and Qwen's system defaults are merged alike.
 */
export function appendHooks(settings: Json, ours: Json): Json {
  const theirs = isObject(settings['hooks']) ? settings['hooks'] : {};
  const hooks: Json = { ...theirs };
  for (const [event, groups] of Object.entries(ours)) {
    const existing = hooks[event];
    hooks[event] = [...(Array.isArray(existing) ? existing : []), ...(Array.isArray(groups) ? groups : [])];
  }
  return { ...settings, hooks };
}
