/**
 * The launch forms with status on: `agentwrap <agent> …`, `agentwrap run -- …` and the
 * interactive demo all come here. The launcher (launch.ts) owns passthrough; this attaches the
 * live session (detection, records, control socket, recording, notifications) to it.
 */
import { basename } from 'node:path';
import { checkStateRootForReading, resolveStateRoot } from '../app/platform.js';
import { planHooks } from '../app/reporters/hooks.js';
import { prepareAutoRecording } from '../app/recording/record-dir.js';
import { resolveLaunchSettings, type LaunchSettings } from '../core/config/launch-settings.js';
import { prepareControlSocketPath } from '../app/control/socket-path.js';
import type { LiveSession } from '../app/live/live-session.js';
import { openEarlyControl, type EarlyControl } from '../app/control/early.js';
import { syntheticSessionId } from '../core/records/session-record.js';
import type { LaunchRequest } from './argv.js';
import { launchAndWait } from './commands/launch.js';
import { userConfig } from './user-config.js';
import { printDiagnostic } from './errors.js';

/**
 * The request with the config file's defaults under its flags (core/config/launch-settings.ts), and
 * `record_dir` turned into this run's recording file. A recording that cannot be prepared is a
 * warning; the agent runs unrecorded.
 */
function withSettings(request: LaunchRequest, settings: LaunchSettings, warnings: string[]): LaunchRequest {
  const plan = settings.record.value;
  let record = request.flags.record;
  if (plan.kind === 'dir') {
    const auto = prepareAutoRecording(plan.dir, plan.keep, request.flags.pack ?? basename(request.command), new Date().toISOString(), process.pid);
    if (auto.ok) record = auto.path;
    else warnings.push(`not recording this session: ${auto.reason}`);
  }
  return {
    ...request,
    flags: { ...request.flags, record, notify: settings.notify.value, onState: settings.onState.value, hooks: settings.hooks.value },
  };
}

export async function runWithSession(typed: LaunchRequest): Promise<number> {
  const env = process.env;
  const sessionId = syntheticSessionId(process.pid, Date.now());
  // One look at the state directory before the agent draws anything: a refused directory is
  // said now, once, on a clean screen; the session then runs without publishing.
  const refused = checkStateRootForReading(resolveStateRoot(env));
  if (refused !== undefined) printDiagnostic(`${refused.message}; not publishing session state (the agent runs normally)`);

  const warnings: string[] = [];
  const settings = resolveLaunchSettings(typed.flags, userConfig(), typed.flags.pack ?? basename(typed.command));
  const request = withSettings(typed, settings, warnings);
  // The control socket's path is fixed before the agent starts, so its environment can carry it
  // (AGENTWRAP_CONTROL): `agentwrap report` in a hook then needs no directory scan, and finds out
  // at once (even from the shell front, without starting Node) when no session is listening.
  let controlPath: string | undefined;
  if (refused === undefined) {
    try {
      controlPath = prepareControlSocketPath({ root: resolveStateRoot(env), key: `s-${sessionId}`, env, uid: process.getuid?.() });
    } catch {
      // The live session tries again and says why when it cannot; hooks then find it by its record.
      controlPath = undefined;
    }
  }
  // Per-launch reporter hooks (nothing written to the user's config); --no-hooks turns them off.
  const hooks = request.flags.hooks ? await planHooks({ agent: request.flags.pack ?? basename(request.command), command: request.command, args: request.args, env }) : undefined;
  if (hooks?.note !== undefined) warnings.push(hooks.note);
  const isDebug = env['AGENTWRAP_DEBUG'] === '1';
  hooks?.start({ controlPath, warn: (message) => warnings.push(message), ...(isDebug ? { debug: (message: string) => warnings.push(message) } : {}) });
  let live: LiveSession | undefined;
  let attaching: Promise<void> | undefined;
  let earlyControl: EarlyControl | undefined;
  try {
    const code = await launchAndWait(hooks?.installed === true ? { ...request, args: hooks.args } : request, {
      extraEnv: {
        ...hooks?.env,
        // The session id (the record's `session_id`); `agentwrap report` finds the session by it.
        AGENTWRAP_SESSION: sessionId,
        AGENTWRAP_PID: String(process.pid),
        ...(controlPath === undefined ? {} : { AGENTWRAP_CONTROL: controlPath }),
      },
      attach: (launched) => {
        // Registered before the live session's close, which awaits the same exit: the hooks stop
        // delivering before the socket closes, so a report racing the exit ends quietly.
        void launched.exited.then(() => hooks?.end(), () => hooks?.end());
        // The live session (screen mirror, packs, records: ~100 ms of module loading and pack
        // compiling) loads once the agent has drawn its first screen (launch/first-screen.ts),
        // so that work does not compete with the agent's start-up for the cores; never before
        // the spawn (an import begun earlier is evaluated in whatever await comes next, ahead
        // of it). The launcher holds the output, with its read times, for taps that attach late;
        // the relay passes it through meanwhile. A recording loads it at once: it stamps each
        // chunk as it arrives, and the first screen's timing is part of what it records.
        // The control socket listens meanwhile, so a hook's early report is kept, not lost.
        const isRecording = request.flags.record !== undefined;
        if (!isRecording && controlPath !== undefined) earlyControl = openEarlyControl(controlPath);
        attaching = (isRecording ? Promise.resolve() : launched.firstScreen).then(() => import('../app/live/live-session.js')).then(({ attachLiveSession }) => {
          live = attachLiveSession({
            launched,
            command: request.command,
            args: request.args,
            packAgent: request.flags.pack,
            sessionId,
            env,
            cwd: process.cwd(),
            record: request.flags.record === undefined ? undefined : { path: request.flags.record, withInput: request.flags.recordInput },
            notify: request.flags.notify === true,
            // Between two of the agent's output chunks, never inside an escape sequence of it.
            writeTerminal: (data) => launched.writeTerminal(data),
            onStateCommand: request.flags.onState,
            notifyUrl: settings.notifyUrl.value === undefined ? undefined : new URL(settings.notifyUrl.value),
            isPublishing: refused === undefined,
            controlPath,
            earlyControl,
            ...(hooks?.absence === undefined ? {} : { reporterAbsence: hooks.absence }),
            // Anything said while the agent owns the screen would scribble over it: kept for the end
            // (and visible meanwhile through `agentwrap status explain`).
            warn: (message) => {
              if (!warnings.includes(message)) warnings.push(message);
            },
          });
        });
        // A failure to load is reported where it is awaited (after the agent ran); never unhandled.
        attaching.catch(() => undefined);
      },
    });
    try {
      await attaching;
    } catch (error) {
      // As launchAndWait does for a synchronous failure: the agent ran, unwatched; say why.
      await earlyControl?.server.then((server) => server.close(), () => undefined);
      warnings.push(`the session loop failed to start (the agent ran unwatched): ${error instanceof Error ? error.message : String(error)}`);
    }
    await live?.closed;
    for (const message of warnings) printDiagnostic(message);
    return code;
  } finally {
    hooks?.dispose();
  }
}
