/**
 * `agentwrap [options] <agent> [args…]`: look the agent up on PATH and run it wrapped.
 * `launchAndWait` is shared with `run` and is where the session loop attaches.
 */
import { isHungUpTerminal, resolveExecutable } from '../../app/platform.js';
import { launchWrapped, runUnwrapped, type LaunchedSession } from '../../app/launch/launch.js';
import { LAUNCH_USAGE, parseLaunchArgs, type LaunchRequest } from '../argv.js';
import { COMMANDS } from '../command-table.js';
import { CliError } from '../errors.js';
import { closest } from '../flags.js';

/** agentwrap's exit status when its terminal hung up: 128 + SIGHUP, as a shell reports it. */
const HANGUP_EXIT_CODE = 129;

export interface LaunchHooks {
  /** AGENTWRAP_* variables for the agent's environment. */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /**
   * Called synchronously right after the agent started, to attach taps (screen, recorder,
   * detector). Not called when agentwrap runs the agent unwrapped (no terminal). A throw here
   * is reported and the agent keeps running: the session loop is never worth the passthrough.
   */
  readonly attach?: (session: LaunchedSession, request: LaunchRequest) => void;
}

/**
 * Runs a parsed launch request and resolves to agentwrap's exit code: the agent's own code, or
 * 128+N if a signal killed it. Without a terminal on both stdin and stdout the agent runs
 * unwrapped, after one line on stderr saying so.
 */
export async function launchAndWait(request: LaunchRequest, hooks: LaunchHooks = {}): Promise<number> {
  const resolved = resolveExecutable(request.command, process.env, process.cwd());
  if (!resolved.ok) {
    throw resolved.reason === 'not-found'
      ? new CliError(notFoundMessage(request), { exitCode: 127 })
      : new CliError(`${resolved.path}: permission denied`, { exitCode: 126 });
  }
  const base = {
    file: resolved.path,
    args: request.args,
    // A recording must hold every byte, so the native relay waits for it rather than skip.
    lossless: request.flags.record !== undefined,
    ...(hooks.extraEnv === undefined ? {} : { extraEnv: hooks.extraEnv }),
  };

  let notTerminal: 'stdin' | 'stdout' | undefined;
  try {
    notTerminal = process.stdin.isTTY !== true ? 'stdin' : process.stdout.isTTY !== true ? 'stdout' : undefined;
  } catch (error) {
    // Node's first look at fd 0 or 1 saw a terminal, and setting it up then failed (EINVAL from
    // uv_tty_init): the terminal hung up in between. The same ending as below.
    if (isHungUpTerminal(0) || isHungUpTerminal(1)) return HANGUP_EXIT_CODE;
    throw error;
  }
  if (notTerminal !== undefined) {
    // Not a pipe but a terminal that went away during agentwrap's start: the hangup's normal
    // ending (128 + SIGHUP, docs/launcher.md), with nobody left to read a word or run an agent for.
    if (isHungUpTerminal(0) || isHungUpTerminal(1)) return HANGUP_EXIT_CODE;
    process.stderr.write(`agentwrap: ${notTerminal} is not a terminal; running ${request.command} unwrapped (no PTY, no status)\n`);
    return (await runUnwrapped(base)).code;
  }

  // agentwrap's own 7501 probe: the live session says the state to a terminal that answers it.
  const session = launchWrapped({ ...base, probeProgramStatus: true });
  if (hooks.attach !== undefined) {
    try {
      hooks.attach(session, request);
    } catch (error) {
      session.exited.then(() => {
        process.stderr.write(`agentwrap: the session loop failed to start (the agent ran unwatched): ${error instanceof Error ? error.message : String(error)}\n`);
      }, () => undefined);
    }
  }
  return (await session.exited).code;
}

/**
 * `staus: command not found; did you mean agentwrap status?`: a word typed where an agent goes
 * that is close to one of agentwrap's commands was most likely meant as that command.
 */
function notFoundMessage(request: LaunchRequest): string {
  const near = request.form === 'agent' && !request.command.includes('/') ? closest(request.command, Object.keys(COMMANDS)) : undefined;
  if (near !== undefined) return `${request.command}: command not found; did you mean agentwrap ${near}?`;
  if (request.form === 'run' || request.command.includes('/')) return `${request.command}: command not found`;
  return `${request.command}: command not found (not on PATH, and not an agentwrap command: see agentwrap --help)`;
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseLaunchArgs('agent', args);
  if (parsed.kind === 'help') {
    process.stdout.write(LAUNCH_USAGE);
    return 0;
  }
  // With status on: the live session (detection, records, control socket) attaches to the launch.
  const { runWithSession } = await import('../session-launch.js');
  return runWithSession(parsed);
}
