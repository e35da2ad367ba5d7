/**
 * `agentwrap status explain --file SCREEN.txt [--agent A] [--pack FILE] [--title T]
 * [--progress P] [--json]`: evaluates a pack against a text screen (the file's lines are the
 * viewport rows; fixture header lines are stripped) and shows the winner and every rule.
 * The `status explain <session>` form arrives with the session control socket.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { detectAgentVersion, type AgentVersion } from '../../adapters/agent-version.js';
import { loadDefaultRegistry, loadPackFile, type LoadedPack } from '../../app/pack-registry.js';
import { explainPack } from '../../core/evaluate.js';
import { fixtureInput, parseFixture } from '../../core/fixture.js';
import { versionStatus } from '../../core/pack-schema.js';
import { CliError, UsageError } from '../errors.js';
import type { ExplainPayload } from '../session-explain.js';
import { explainToJson, renderExplainText, type ExplainReport } from '../render-explain.js';

interface ExplainArgs {
  file: string | undefined;
  agent: string | undefined;
  pack: string | undefined;
  title: string | undefined;
  progress: string | undefined;
  ticks: string | undefined;
  json: boolean;
  session: string | undefined;
}

const VALUE_FLAGS = ['--file', '--agent', '--pack', '--title', '--progress', '--ticks'] as const;

export function parseExplainArgs(args: readonly string[]): ExplainArgs {
  const out: ExplainArgs = { ticks: undefined, file: undefined, agent: undefined, pack: undefined, title: undefined, progress: undefined, json: false, session: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--json') {
      out.json = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const known = VALUE_FLAGS.find((f) => f === flag);
    if (known !== undefined) {
      let value: string | undefined;
      if (flag !== arg) value = arg.slice(eq + 1);
      else {
        value = args[i + 1];
        i++;
      }
      if (value === undefined) throw new UsageError(`${known} needs a value`);
      out[known.slice(2) as 'file' | 'agent' | 'pack' | 'title' | 'progress' | 'ticks'] = value;
      continue;
    }
    if (arg.startsWith('-')) throw new UsageError(`status explain: unknown option ${arg}`);
    if (out.session !== undefined) throw new UsageError(`status explain: unexpected argument ${arg}`);
    out.session = arg;
  }
  return out;
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
  if (opts.file === undefined) {
    if (opts.session !== undefined) {
      const { requestFromSession, renderSessionExplain } = await import('../session-explain.js');
      const { payload } = await requestFromSession(opts.session, 'explain');
      const ticks = opts.ticks === undefined ? 10 : Number(opts.ticks);
      if (!Number.isInteger(ticks) || ticks < 1) throw new UsageError(`--ticks wants a positive whole number, got "${opts.ticks ?? ''}"`);
      process.stdout.write(renderSessionExplain(payload as ExplainPayload, ticks, opts.json));
      return 0;
    }
    throw new UsageError('status explain needs --file SCREEN.txt (and --agent AGENT or --pack FILE)');
  }
  if (opts.session !== undefined) throw new UsageError('status explain: give either a session or --file, not both');

  let text: string;
  try {
    text = readFileSync(opts.file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read screen file ${opts.file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
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
    // A fixture path names its agent: fixtures/<agent>/<expected>_<slug>.txt.
    const agent = opts.agent ?? basename(dirname(resolve(opts.file)));
    const found = registry.packForAgent(agent);
    if (found === undefined) {
      const known = registry.packs().map((p) => p.agent).join(', ') || 'none';
      if (opts.agent === undefined) throw new UsageError(`status explain --file needs --agent AGENT (known agents: ${known})`);
      throw new CliError(`no pack for agent "${agent}" (known agents: ${known})`);
    }
    pack = found;
    source = found.origin;
  }

  const compiled = pack.compiled;
  const warnings: string[] = [...fixture.problems.map((p) => `screen file: ${p}`), ...pack.warnings.map((w) => w.message)];
  const version = findVersion(pack);
  let agentVersion: ExplainReport['agentVersion'];
  if (version !== undefined) {
    const status = versionStatus(version.version, compiled.pack.validatedVersions);
    agentVersion = { version: version.version, source: version.source, status };
    if (status === 'outside') {
      warnings.push(`installed ${pack.agent} ${version.version} is outside the pack's validated_versions "${compiled.pack.validatedVersions}"; rules may not match its screens`);
    }
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
    warnings,
    input: { file: opts.file, rows: input.screen.rows.length, title: input.title, progress: input.progress },
    rules: explainPack(compiled, input),
  };
  process.stdout.write(opts.json ? `${JSON.stringify(explainToJson(report), null, 2)}\n` : renderExplainText(report));
  return 0;
}
