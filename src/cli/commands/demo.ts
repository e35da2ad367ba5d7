/**
 * `agentwrap demo`: the bundled demo agent, wrapped, end to end. Interactive in a terminal; with
 * `--auto` (or without a terminal) agentwrap drives it by itself through a whole turn with a
 * permission dialog and prints every state it published, with the screen at that moment.
 */
import { existsSync } from 'node:fs';
import { DEMO_AGENT_PATH } from '../../app/platform.js';
import type { StateChangeEvent } from '../../app/control/socket.js';
import { launchWrapped } from '../../app/launch/launch.js';
import { DEMO_PACK_AGENT } from '../../app/pack-registry.js';
import { attachLiveSession, syntheticSessionId } from '../../app/live/live-session.js';
import { createVirtualTerminal } from '../../app/virtual-terminal.js';
import type { AgentState } from '../../core/types.js';
import { COMMANDS } from '../command-table.js';
import { CliError } from '../errors.js';
import { numberFlag, parseCommand } from '../flags.js';

const SPEC = {
  name: 'demo',
  usage: `usage: agentwrap demo [--auto] [--speed X] [--json] [--record FILE.cast]

Runs the bundled demo agent wrapped, in this terminal, and shows what agentwrap publishes.
  --auto               drive the demo by itself (also when there is no terminal)
  --speed X            play the demo agent X times faster (default 1)
  --json               with --auto: print the published transitions as JSON
  --record FILE.cast   record the session (asciicast v2)
`,
  options: COMMANDS.demo.options,
} as const;

/** How long `--auto` waits for any one state before calling the run failed. */
const AUTO_STEP_TIMEOUT_MS = 20_000;
/**
 * How long the driver "reads" a published state before typing the next step, as a person
 * would. Without it a keystroke landed within milliseconds of a published `done`, so whether a
 * replay of the recording also published `done` first hung on a few ms of tick jitter (the
 * idle hold ends 400 ms after the last frame; a tick that fired late under load moved it).
 */
const AUTO_READING_PAUSE_MS = 300;

function demoAgentPath(): string {
  if (!existsSync(DEMO_AGENT_PATH)) {
    throw new CliError(`the demo agent is not built (${DEMO_AGENT_PATH} is missing); run \`npm run build\` first`);
  }
  return DEMO_AGENT_PATH;
}

export async function main(args: readonly string[]): Promise<number> {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return 0;
  const { values } = parsed;
  const speed = numberFlag('demo', 'speed', values.speed);
  const isTerminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (values.auto === true || !isTerminal) {
    if (values.auto !== true) process.stderr.write('agentwrap: no terminal here, so the demo drives itself (--auto)\n');
    return runAuto({ speed: speed ?? 4, json: values.json === true, record: values.record });
  }
  const env = speed === undefined ? {} : { AGENTWRAP_DEMO_SPEED: String(speed) };
  Object.assign(process.env, env);
  const { runWithSession } = await import('../session-launch.js');
  return runWithSession({
    kind: 'launch',
    form: 'run',
    command: process.execPath,
    args: [demoAgentPath()],
    flags: { record: values.record, recordInput: false, noRecord: false, pack: DEMO_PACK_AGENT, notify: undefined, onState: undefined, hooks: undefined },
  });
}

interface AutoOptions {
  readonly speed: number;
  readonly json: boolean;
  readonly record: string | undefined;
}

interface Step {
  /** Keystrokes to type, then the published states to wait for, in order. */
  readonly type: string;
  readonly expect: readonly AgentState[];
  readonly say: string;
}

/**
 * The scripted tour: a plain turn (idle → working → done), a keystroke that marks it seen
 * (done → idle), a turn with a permission dialog (working → blocked → working → done), exit.
 */
const SCRIPT: readonly Step[] = [
  { type: '', expect: ['idle'], say: 'the demo agent starts and waits at its prompt' },
  { type: 'explain the build\r', expect: ['working', 'done'], say: 'a prompt: it works, then finishes (done: nobody looked yet)' },
  { type: '\x1b[D', expect: ['idle'], say: 'a keystroke marks the answer seen' },
  { type: 'run the tests\r', expect: ['working', 'blocked'], say: 'a prompt that needs a tool: it asks for permission' },
  { type: '1', expect: ['working', 'done'], say: 'approved: it works again and finishes' },
];

async function runAuto(options: AutoOptions): Promise<number> {
  const agent = demoAgentPath();
  const terminal = createVirtualTerminal({ cols: 100, rows: 30 });
  const env = { ...process.env, AGENTWRAP_DEMO_SPEED: String(options.speed) };
  const warnings: string[] = [];
  const launched = launchWrapped({ file: process.execPath, args: [agent], env, terminal, forwardSignals: false, probeProgramStatus: true, warn: (m) => warnings.push(m) });
  const startMs = performance.now();
  const seen: { event: StateChangeEvent; atMs: number; screen: string[]; rule: string | undefined }[] = [];
  const waiters: Array<() => void> = [];
  let dialogDrawnAtMs: number | undefined;
  // The command line and the recording are those of the interactive `demo --record` (a user's
  // recording: input as markers, no keys), so what this run records replays the way theirs does.
  const live = attachLiveSession({
    launched,
    command: process.execPath,
    args: [agent],
    packAgent: DEMO_PACK_AGENT,
    sessionId: syntheticSessionId(process.pid, Date.now()),
    env,
    cwd: process.cwd(),
    record: options.record === undefined ? undefined : { path: options.record, withInput: false },
    notify: false,
    onStateCommand: undefined,
    warn: (m) => warnings.push(m),
    onStateChange: (event, entry) => {
      const rows = live.detector.snapshot().screen.rows;
      seen.push({ event, atMs: performance.now() - startMs, screen: bottomRows(rows, 6), rule: entry.decision.ruleId });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  // When the agent wrote the dialog (its bytes arrived), for the blocked latency figure.
  launched.onOutput((chunk) => {
    if (dialogDrawnAtMs === undefined && /do you want to/i.test(chunk.toString('utf8'))) dialogDrawnAtMs = performance.now() - startMs;
  });

  const waitFor = async (state: AgentState, fromIndex: number): Promise<number> => {
    const deadline = performance.now() + AUTO_STEP_TIMEOUT_MS;
    for (;;) {
      const index = seen.findIndex((s, i) => i >= fromIndex && s.event.to === state);
      if (index >= 0) return index;
      if (performance.now() > deadline) throw new CliError(`demo --auto: waited ${AUTO_STEP_TIMEOUT_MS / 1000}s for "${state}"; published so far: ${seen.map((s) => s.event.to).join(' → ')}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200).unref();
      });
    }
  };

  let failure: unknown;
  let cursor = 0;
  try {
    for (const step of SCRIPT) {
      if (!options.json) process.stdout.write(`\n▶ ${step.say}${step.type === '' ? '' : ` — typing ${JSON.stringify(step.type)}`}\n`);
      if (step.type !== '') {
        await new Promise((resolve) => setTimeout(resolve, AUTO_READING_PAUSE_MS));
        terminal.type(step.type);
      }
      for (const state of step.expect) {
        const index = await waitFor(state, cursor);
        for (; cursor <= index; cursor++) {
          const s = seen[cursor];
          if (s !== undefined && !options.json) printState(s);
        }
      }
    }
  } catch (error) {
    failure = error;
  } finally {
    await new Promise((resolve) => setTimeout(resolve, AUTO_READING_PAUSE_MS));
    terminal.type('/exit\r');
    const timer = setTimeout(() => launched.kill('SIGTERM'), 5000);
    await launched.exited;
    clearTimeout(timer);
    await live.closed;
  }
  const transitions = seen.map((s) => s.event.to);
  const blocked = seen.find((s) => s.event.to === 'blocked');
  const blockedLatencyMs = blocked !== undefined && dialogDrawnAtMs !== undefined ? Math.round(blocked.atMs - dialogDrawnAtMs) : undefined;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        ok: failure === undefined,
        transitions: seen.map((s) => ({ t: Math.round(s.atMs) / 1000, state: s.event.to, winner: s.event.winner, rule_id: s.event.rule_id })),
        blocked_latency_ms: blockedLatencyMs ?? null,
        warnings,
      })}\n`,
    );
  } else {
    process.stdout.write(`\npublished: ${transitions.join(' → ')}\n`);
    if (blockedLatencyMs !== undefined) process.stdout.write(`blocked was published ${blockedLatencyMs} ms after the dialog appeared\n`);
    for (const warning of warnings) process.stderr.write(`agentwrap: ${warning}\n`);
  }
  if (failure !== undefined) throw failure;
  return 0;
}

function printState(s: { event: StateChangeEvent; atMs: number; screen: string[]; rule: string | undefined }): void {
  const why = `${s.event.winner ?? ''}${s.event.rule_id === null ? '' : ` ${s.event.rule_id}`}`;
  process.stdout.write(`  ${(s.atMs / 1000).toFixed(2).padStart(6)}s  ${s.event.to.padEnd(8)} (${why})\n`);
  for (const row of s.screen) process.stdout.write(`           │ ${row}\n`);
}

function bottomRows(rows: readonly string[], count: number): string[] {
  const nonEmpty = rows.filter((row) => row.trim() !== '');
  return nonEmpty.slice(-count);
}
