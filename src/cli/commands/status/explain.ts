/**
 * `agentwrap status explain --file SCREEN.txt [--agent A] [--pack FILE] [--title T]
 * [--progress P] [--json]`: evaluates a pack against a text screen (the file's lines are the
 * viewport rows; fixture header lines are stripped) and shows the winner and every rule.
 * `status explain <session>` asks the live session over its control socket (session-explain.ts).
 */
import { basename, dirname, resolve } from 'node:path';
import { describeReadFailure, detectAgentVersion, readRegularTextFileSync, type AgentVersion } from '../../../app/platform.js';
import { SCREEN_FILE_MAX_BYTES } from '../../../core/input-bounds.js';
import { loadDefaultRegistry, loadPackFile, type LoadedPack } from '../../../app/pack-registry.js';
import { explainPack } from '../../../core/packs/evaluate.js';
import { fixtureInput, parseFixture } from '../../../core/packs/fixture.js';
import { versionAdvice, versionStatus } from '../../../core/packs/schema.js';
import { forTerminal, toJson } from '../../../core/text/sanitize.js';
import { COMMANDS } from '../../command-table.js';
import { CliError, UsageError } from '../../errors.js';
import { parseCommand } from '../../flags.js';
import type { ExplainPayload } from '../../session-explain.js';
import { explainToJson, renderExplainText, type ExplainReport } from '../../render/explain.js';

const SPEC = {
  name: 'status explain',
  usage: `usage: agentwrap status explain <session> [--ticks N] [--json]
       agentwrap status explain --file SCREEN.txt [--agent A | --pack FILE] [--title T] [--progress P] [--json]

Why a session is in its state: its last ticks, the evidence and the rules that matched. With
--file, evaluates a pack against a text screen (a fixture's header lines are read too).
  --ticks N       how many recent ticks to show (default 10)
  --file SCREEN   a screen as text, one line per row
  --agent A       the agent whose pack to use (default: the one the file's header names, else its folder's name)
  --pack FILE     a pack file to use instead
  --title T       the OSC title to evaluate with
  --progress P    the OSC 9;4 progress to evaluate with, e.g. 1;50
  --json          the same as JSON
`,
  options: COMMANDS.status.subcommands.explain.options,
} as const;

interface ExplainArgs {
  readonly file: string | undefined;
  readonly agent: string | undefined;
  readonly pack: string | undefined;
  readonly title: string | undefined;
  readonly progress: string | undefined;
  readonly ticks: string | undefined;
  readonly json: boolean;
  readonly session: string | undefined;
}

/** Undefined when --help was asked (and answered). */
export function parseExplainArgs(args: readonly string[]): ExplainArgs | undefined {
  const parsed = parseCommand(SPEC, args);
  if (parsed === undefined) return undefined;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`status explain: unexpected argument ${positionals[1] ?? ''}`);
  return {
    file: values.file,
    agent: values.agent,
    pack: values.pack,
    title: values.title,
    progress: values.progress,
    ticks: values.ticks,
    json: values.json === true,
    session: positionals[0],
  };
}

function findVersion(pack: LoadedPack): AgentVersion | undefined {
  for (const command of pack.compiled.pack.commands) {
    const found = detectAgentVersion(command, process.env);
    if (found !== undefined) return found;
  }
  return undefined;
}

export async function main(args: readonly string[]): Promise<number> {
  const opts = parseExplainArgs(args);
  if (opts === undefined) return 0;
  if (opts.file === undefined) {
    if (opts.session !== undefined) {
      const { requestFromSession, renderSessionExplain } = await import('../../session-explain.js');
      const { payload } = await requestFromSession(opts.session, 'explain');
      const ticks = opts.ticks === undefined ? 10 : Number(opts.ticks);
      if (!Number.isInteger(ticks) || ticks < 1) throw new UsageError(`--ticks wants a positive whole number, got "${opts.ticks ?? ''}"`);
      process.stdout.write(renderSessionExplain(payload as ExplainPayload, ticks, opts.json));
      return 0;
    }
    throw new UsageError('status explain needs a session, or --file SCREEN.txt with --agent AGENT or --pack FILE', { hint: 'agentwrap status' });
  }
  if (opts.session !== undefined) throw new UsageError('status explain: give either a session or --file, not both');

  let text: string;
  try {
    text = readRegularTextFileSync(opts.file, SCREEN_FILE_MAX_BYTES);
  } catch (error) {
    throw new CliError(`screen file ${opts.file}: ${describeReadFailure(error)}`, { cause: error });
  }
  const fixture = parseFixture(text);

  let pack: LoadedPack;
  let source: ExplainReport['pack']['source'];
  if (opts.pack !== undefined) {
    const loaded = loadPackFile(resolve(opts.pack), 'user');
    if (loaded.pack === undefined) throw new CliError(`pack ${opts.pack} cannot be used:\n${loaded.problems.join('\n')}`);
    if (opts.agent !== undefined && opts.agent !== loaded.pack.agent) {
      throw new UsageError(`--agent ${opts.agent} does not match the pack's agent "${loaded.pack.agent}"`);
    }
    pack = loaded.pack;
    source = 'file';
  } else {
    const registry = loadDefaultRegistry(process.env);
    // A capture's header names its agent; a fixture's path does: fixtures/<agent>/<expected>_<slug>.txt.
    const agent = opts.agent ?? fixture.agent ?? basename(dirname(resolve(opts.file)));
    const found = registry.packForAgent(agent);
    if (found === undefined) {
      const known = registry.packs().map((p) => p.agent).join(', ') || 'none';
      if (opts.agent === undefined && fixture.agent !== undefined) throw new CliError(`no pack for agent "${agent}", named in ${opts.file}'s header (known agents: ${known}); use --agent`);
      if (opts.agent === undefined) throw new UsageError(`status explain --file needs --agent AGENT (known agents: ${known})`);
      throw new CliError(`no pack for agent "${agent}" (known agents: ${known})`);
    }
    pack = found;
    source = found.origin;
  }

  const compiled = pack.compiled;
  const notes: string[] = [];
  const warnings: string[] = [...fixture.problems.map((p) => `screen file: ${p}`), ...pack.warnings.map((w) => w.message)];
  const version = findVersion(pack);
  let agentVersion: ExplainReport['agentVersion'];
  if (version !== undefined) {
    const status = versionStatus(version.version, compiled.pack.validatedVersions);
    agentVersion = { version: version.version, source: version.source, status };
    const advice = versionAdvice(pack.agent, version.version, compiled.pack.validatedVersions, status);
    if (advice !== undefined) (advice.level === 'note' ? notes : warnings).push(`${advice.text}; ${advice.todo}`);
  }
  if (compiled.pack.unverified) warnings.push('this pack is marked unverified: written from public facts, not checked against recordings');

  const input = fixtureInput(fixture, {
    ...(opts.title === undefined ? {} : { title: opts.title }),
    ...(opts.progress === undefined ? {} : { progress: opts.progress }),
  });
  const report: ExplainReport = {
    agent: pack.agent,
    pack: { source, path: pack.path, validatedVersions: compiled.pack.validatedVersions, unverified: compiled.pack.unverified },
    agentVersion,
    notes,
    warnings,
    input: { file: opts.file, rows: input.screen.rows.length, title: input.title, progress: input.progress },
    rules: explainPack(compiled, input),
  };
  process.stdout.write(opts.json ? `${toJson(explainToJson(report), 2)}\n` : forTerminal(renderExplainText(report), { multiline: true }));
  return 0;
}
