/**
 * Pack schema: TOML text → a validated `Pack`, or every problem found, each naming the file,
 * the line where it can be found, the rule id and the reason. Strict on purpose: an unknown key
 * is an error, not silently ignored, because a misspelt `forbid` would otherwise quietly turn
 * a rule into an over-matching one. Limits are fail-loudly guards against a malformed pack,
 * not a security boundary (packs are operator-authored).
 */
import { parse, TomlError } from 'smol-toml';
import { LineIndex, unknownKeyMessage } from './lines.js';
import { parseRules } from './rules.js';
import { parseDialogs } from './dialog-schema.js';
import { Collector, engineVersion, stringList, typeName, type Table } from './toml-values.js';
import { PACK_LIMITS, PACK_SCHEMA_VERSION, RULE_ENGINE_VERSION, type PackParseResult } from './types.js';
import { parseVersionRange } from './versions.js';
import { describeTomlSyntaxError } from './toml-syntax.js';

export { checkRegex, explainRegexError, PACK_REGEX_FLAGS } from './regex.js';
export { parseVersionRange, versionAdvice, versionStatus, type VersionAdvice, type VersionStatus } from './versions.js';
export * from './types.js';

const TOP_KEYS = new Set([
  'schema_version',
  'agent',
  'commands',
  'validated_versions',
  'min_engine_version',
  'prompt_carets',
  'unverified',
  'description',
  'rule',
  'dialog',
]);
const AGENT_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** Validates pack TOML. Never throws; `path` is only used in the issues it reports. */
export function parsePack(text: string, path: string): PackParseResult {
  const out = new Collector(path);
  const byteLength = new TextEncoder().encode(text).length;
  if (byteLength > PACK_LIMITS.maxPackBytes) {
    out.error(undefined, undefined, `pack is ${byteLength} bytes, more than the limit of ${PACK_LIMITS.maxPackBytes}`);
    return { kind: 'invalid', errors: out.errors, agent: undefined };
  }
  let doc: Table;
  try {
    doc = parse(text, { unsafeKeyBehaviour: 'throw', maxDepth: 64 });
  } catch (error) {
    if (error instanceof TomlError) {
      const problem = describeTomlSyntaxError(error, text);
      out.error(problem.line, undefined, problem.message);
    } else {
      out.error(1, undefined, `TOML could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { kind: 'invalid', errors: out.errors, agent: undefined };
  }
  const lines = new LineIndex(text);
  const topErr = (key: string, message: string): void => out.error(lines.keyLine(key, undefined), undefined, message);

  const minEngine = engineVersion(doc['min_engine_version'], 'min_engine_version', (m) => topErr('min_engine_version', m));
  const rawAgent = doc['agent'];
  const agentName = typeof rawAgent === 'string' ? rawAgent : undefined;
  if (minEngine !== undefined && minEngine > RULE_ENGINE_VERSION) {
    // Checked before anything else: a newer pack may use keys this engine does not know.
    return {
      kind: 'needs-newer-engine',
      agent: agentName,
      minEngineVersion: minEngine,
      issue: {
        path,
        line: lines.keyLine('min_engine_version', undefined),
        ruleId: undefined,
        message: `pack needs rule engine v${minEngine}, this agentwrap has v${RULE_ENGINE_VERSION}; skipped`,
      },
    };
  }

  for (const key of Object.keys(doc)) {
    if (!TOP_KEYS.has(key)) topErr(key, unknownKeyMessage(key, TOP_KEYS, 'pack keys'));
  }

  const schemaVersion = doc['schema_version'];
  if (schemaVersion === undefined) out.error(1, undefined, `schema_version is required (${PACK_SCHEMA_VERSION})`);
  else if (schemaVersion !== PACK_SCHEMA_VERSION) topErr('schema_version', `schema_version must be ${PACK_SCHEMA_VERSION}, got ${String(schemaVersion)}`);

  let agent = '';
  if (rawAgent === undefined) out.error(1, undefined, 'agent is required');
  else if (typeof rawAgent !== 'string') topErr('agent', `agent must be a string, got ${typeName(rawAgent)}`);
  else if (!AGENT_PATTERN.test(rawAgent) || rawAgent.length > PACK_LIMITS.maxIdChars) topErr('agent', `agent "${rawAgent}" must be lowercase letters, digits, "_" or "-"`);
  else agent = rawAgent;

  const commands = stringList(doc['commands'], 'commands', (m) => topErr('commands', m)) ?? [];
  if (doc['commands'] === undefined) out.error(1, undefined, 'commands is required (the executable names that select this pack, e.g. ["claude"])');
  else if (commands.length === 0 && Array.isArray(doc['commands'])) topErr('commands', 'commands is empty');
  else if (commands.length > PACK_LIMITS.maxCommands) topErr('commands', `commands has more than ${PACK_LIMITS.maxCommands} entries`);
  for (const command of commands) {
    if (command === '' || command.includes('/')) topErr('commands', `commands entry "${command}" must be a bare executable name`);
  }

  const rawVersions = doc['validated_versions'];
  let validatedVersions = '';
  if (rawVersions === undefined) out.error(1, undefined, 'validated_versions is required (a semver range with an upper bound)');
  else if (typeof rawVersions !== 'string') topErr('validated_versions', `validated_versions must be a string, got ${typeName(rawVersions)}`);
  else {
    const parsed = parseVersionRange(rawVersions);
    if (!parsed.ok) topErr('validated_versions', parsed.reason);
    else validatedVersions = rawVersions;
  }

  const carets = stringList(doc['prompt_carets'], 'prompt_carets', (m) => topErr('prompt_carets', m)) ?? [];
  if (carets.length > PACK_LIMITS.maxPromptCarets) topErr('prompt_carets', `prompt_carets has more than ${PACK_LIMITS.maxPromptCarets} entries`);
  for (const caret of carets) {
    if (caret === '' || /\s/.test(caret) || [...caret].length > PACK_LIMITS.maxCaretChars) {
      topErr('prompt_carets', `prompt_carets entry "${caret}" must be 1–${PACK_LIMITS.maxCaretChars} characters without spaces`);
    }
  }

  const rawUnverified = doc['unverified'];
  if (rawUnverified !== undefined && typeof rawUnverified !== 'boolean') topErr('unverified', `unverified must be true or false, got ${typeName(rawUnverified)}`);
  const rawDescription = doc['description'];
  if (rawDescription !== undefined && typeof rawDescription !== 'string') topErr('description', `description must be a string, got ${typeName(rawDescription)}`);

  const { rules, skippedRules } = parseRules(doc['rule'], carets, lines, out);
  const blockedRuleIds = new Set(rules.filter((rule) => rule.state === 'blocked').map((rule) => rule.id));
  const dialogs = parseDialogs(doc['dialog'], text, blockedRuleIds, new Set(rules.map((rule) => rule.id)), out);

  if (out.errors.length > 0 || minEngine === undefined) return { kind: 'invalid', errors: out.errorsByLine(), agent: agentName };
  return {
    kind: 'ok',
    pack: {
      schemaVersion: PACK_SCHEMA_VERSION,
      agent,
      commands,
      validatedVersions,
      minEngineVersion: minEngine,
      promptCarets: carets,
      unverified: rawUnverified === true,
      description: typeof rawDescription === 'string' ? rawDescription : undefined,
      rules,
      ...(dialogs.length === 0 ? {} : { dialogs }),
      skippedRules,
    },
    warnings: out.warnings,
  };
}
