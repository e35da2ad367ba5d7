/**
 * Validating a pack's `[[rule]]` tables: keys, id, state, priority, region, strength, the flat
 * matchers and nested gates, each problem with its line and rule id (schema.ts reads the
 * rest of the file).
 */
import { LineIndex, unknownKeyMessage } from './lines.js';
import { checkRegex } from './regex.js';
import { Collector, engineVersion, isTable, stringList, typeName } from './toml-values.js';
import { PACK_LIMITS, RULE_ENGINE_VERSION, type GateNode, type PackRule } from './types.js';
import { CARET_REGIONS, parseRegion, regionLabel, type RegionSpec } from './regions.js';
import { IDLE_HOLD_STRONG_MS } from '../policy.js';
import type { RuleState, Strength } from '../types.js';

const RULE_KEYS = new Set([
  'id',
  'state',
  'priority',
  'region',
  'strength',
  'requires_all',
  'requires_any',
  'forbids',
  'regex',
  'line_regex',
  'forbids_regex',
  'gate',
  'min_engine_version',
  'description',
  'reason',
  'idle_hold_ms',
]);
/** A rule's `reason`: a short label published with the state it decides (e.g. "api-error"). */
const REASON_PATTERN = /^[a-z0-9][a-z0-9 ._:()-]{0,63}$/i;
const GATE_KEYS = ['all', 'any', 'not', 'contains', 'regex', 'line_regex'] as const;
const RULE_STATES: readonly RuleState[] = ['working', 'blocked', 'idle', 'freeze'];
const STRENGTHS: readonly Strength[] = ['strong', 'weak'];
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

interface GateContext {
  readonly ruleId: string;
  readonly index: number;
  readonly lines: LineIndex;
  readonly out: Collector;
  leaves: number;
}

function parseGate(value: unknown, path: string, depth: number, ctx: GateContext): GateNode | undefined {
  const line = ctx.lines.keyLine('gate', ctx.index);
  const fail = (message: string): undefined => {
    ctx.out.error(line, ctx.ruleId, message);
    return undefined;
  };
  if (depth > PACK_LIMITS.maxGateDepth) {
    return fail(`${path}: gate nested deeper than ${PACK_LIMITS.maxGateDepth} levels`);
  }
  if (!isTable(value)) return fail(`${path} must be a table like { contains = "…" }, got ${typeName(value)}`);
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    return fail(`${path} must have exactly one of ${GATE_KEYS.join(', ')}; got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const key = keys[0] ?? '';
  const inner = value[key];
  switch (key) {
    case 'all':
    case 'any': {
      if (!Array.isArray(inner)) return fail(`${path}.${key} must be an array of gates, got ${typeName(inner)}`);
      if (inner.length === 0) {
        return fail(`${path}.${key} is empty (${key === 'all' ? 'it would always pass' : 'it could never pass'})`);
      }
      const gates: GateNode[] = [];
      let ok = true;
      for (const [i, child] of inner.entries()) {
        const parsed = parseGate(child, `${path}.${key}[${i}]`, depth + 1, ctx);
        if (parsed === undefined) ok = false;
        else gates.push(parsed);
      }
      return ok ? { kind: key, gates } : undefined;
    }
    case 'not': {
      const parsed = parseGate(inner, `${path}.not`, depth + 1, ctx);
      return parsed === undefined ? undefined : { kind: 'not', gate: parsed };
    }
    case 'contains':
    case 'regex':
    case 'line_regex': {
      if (typeof inner !== 'string') return fail(`${path}.${key} must be a string, got ${typeName(inner)}`);
      ctx.leaves++;
      // An empty leaf would "occur" on the rule's first line; it is found by its gate key instead.
      const leafLine = inner === '' ? line : (ctx.lines.textLine(inner, ctx.index) ?? line);
      if (inner === '') {
        ctx.out.error(leafLine, ctx.ruleId, `${path}.${key} is an empty string`);
        return undefined;
      }
      if ([...inner].length > PACK_LIMITS.maxPatternChars) {
        ctx.out.error(leafLine, ctx.ruleId, `${path}.${key} is longer than ${PACK_LIMITS.maxPatternChars} characters`);
        return undefined;
      }
      if (key === 'contains') return { kind: 'contains', text: inner };
      const problem = checkRegex(inner);
      if (problem !== undefined) {
        ctx.out.error(leafLine, ctx.ruleId, `${path}.${key}: ${problem}`);
        return undefined;
      }
      return { kind: key, pattern: inner };
    }
    default:
      return fail(`${path}: unknown gate key "${key}" (expected one of ${GATE_KEYS.join(', ')})`);
  }
}

function parseRule(raw: unknown, index: number, pack: { carets: readonly string[] }, lines: LineIndex, out: Collector):
  | { kind: 'rule'; rule: PackRule }
  | { kind: 'skipped'; id: string; minEngineVersion: number; line: number | undefined }
  | undefined {
  if (!isTable(raw)) {
    out.error(lines.ruleLine(index, undefined), undefined, `rule #${index + 1} must be a table, got ${typeName(raw)}`);
    return undefined;
  }
  const rawId = raw['id'];
  const idForMessages = typeof rawId === 'string' && rawId !== '' ? rawId : `#${index + 1}`;
  const headerLine = lines.ruleLine(index, typeof rawId === 'string' ? rawId : undefined);
  const errorsBefore = out.errors.length;
  const at = (key: string): number | undefined => lines.keyLine(key, index) ?? headerLine;
  const err = (key: string, message: string): void => out.error(at(key), idForMessages, message);

  // The engine check comes first: a rule for a newer engine may use keys this one does not know.
  const minEngine = engineVersion(raw['min_engine_version'], 'min_engine_version', (m) => err('min_engine_version', m));
  if (minEngine !== undefined && minEngine > RULE_ENGINE_VERSION) {
    return { kind: 'skipped', id: idForMessages, minEngineVersion: minEngine, line: headerLine };
  }

  for (const key of Object.keys(raw)) {
    if (!RULE_KEYS.has(key)) err(key, unknownKeyMessage(key, RULE_KEYS, 'rule keys'));
  }

  let id = '';
  if (rawId === undefined) out.error(headerLine, idForMessages, 'id is required');
  else if (typeof rawId !== 'string') err('id', `id must be a string, got ${typeName(rawId)}`);
  else if (rawId.trim() === '') err('id', 'id is empty');
  else if ([...rawId].length > PACK_LIMITS.maxIdChars) err('id', `id is longer than ${PACK_LIMITS.maxIdChars} characters`);
  else if (!ID_PATTERN.test(rawId)) err('id', `id "${rawId}" may use only letters, digits, "_", "-" and "." and must start with a letter or digit`);
  else id = rawId;

  const rawState = raw['state'];
  let state: RuleState | undefined;
  if (rawState === undefined) out.error(headerLine, idForMessages, `state is required (${RULE_STATES.join(' | ')})`);
  else {
    state = RULE_STATES.find((s) => s === rawState);
    if (state === undefined) err('state', `state must be one of ${RULE_STATES.join(', ')}, got ${typeof rawState === 'string' ? `"${rawState}"` : typeName(rawState)}`);
  }

  const rawPriority = raw['priority'];
  let priority = 0;
  if (rawPriority !== undefined) {
    if (typeof rawPriority !== 'number' || !Number.isSafeInteger(rawPriority)) err('priority', `priority must be an integer, got ${typeName(rawPriority)}`);
    else priority = rawPriority;
  }

  const rawRegion = raw['region'];
  let region: RegionSpec | undefined;
  if (rawRegion === undefined) out.error(headerLine, idForMessages, 'region is required (e.g. "bottom_nonempty:12")');
  else if (typeof rawRegion !== 'string') err('region', `region must be a string, got ${typeName(rawRegion)}`);
  else {
    const parsed = parseRegion(rawRegion);
    if (!parsed.ok) err('region', parsed.reason);
    else {
      region = parsed.spec;
      if (CARET_REGIONS.has(region.kind) && pack.carets.length === 0) {
        err('region', `region "${regionLabel(region)}" needs the pack's top-level prompt_carets (e.g. prompt_carets = ["›"])`);
      }
    }
  }

  const rawStrength = raw['strength'];
  let strength: Strength = 'strong';
  if (rawStrength !== undefined) {
    const found = STRENGTHS.find((s) => s === rawStrength);
    if (found === undefined) err('strength', `strength must be "strong" or "weak", got ${typeof rawStrength === 'string' ? `"${rawStrength}"` : typeName(rawStrength)}`);
    else strength = found;
  }

  const rawDescription = raw['description'];
  if (rawDescription !== undefined && typeof rawDescription !== 'string') err('description', `description must be a string, got ${typeName(rawDescription)}`);

  const rawReason = raw['reason'];
  if (rawReason !== undefined && (typeof rawReason !== 'string' || !REASON_PATTERN.test(rawReason))) {
    err('reason', `reason must be a short label (letters, digits, space . _ : ( ) -, at most 64), got ${typeof rawReason === 'string' ? JSON.stringify(rawReason) : typeName(rawReason)}`);
  }

  const rawHold = raw['idle_hold_ms'];
  const holdProblem = idleHoldProblem(rawHold, state, strength);
  if (holdProblem !== undefined) err('idle_hold_ms', holdProblem);

  const { lists, gate } = parseMatchers(raw, { ruleId: idForMessages, index, headerLine, lines, out, at });

  if (out.errors.length > errorsBefore || state === undefined || region === undefined || minEngine === undefined) return undefined;
  return {
    kind: 'rule',
    rule: {
      id,
      state,
      priority,
      region,
      strength,
      requiresAll: lists.requires_all ?? [],
      requiresAny: lists.requires_any ?? [],
      forbids: lists.forbids ?? [],
      regex: lists.regex ?? [],
      lineRegex: lists.line_regex ?? [],
      forbidsRegex: lists.forbids_regex ?? [],
      gate,
      minEngineVersion: minEngine,
      description: typeof rawDescription === 'string' ? rawDescription : undefined,
      ...(typeof rawReason === 'string' ? { reason: rawReason } : {}),
      ...(typeof rawHold === 'number' ? { idleHoldMs: rawHold } : {}),
      line: headerLine,
    },
  };
}

/**
 * What is wrong with a rule's `idle_hold_ms`, if anything. It may only shorten the strong idle
 * hold, and only a strong idle rule has one: a weak idle must outlast a tool-call gap whatever
 * the screen, and other states publish without an idle hold.
 */
function idleHoldProblem(value: unknown, state: RuleState | undefined, strength: Strength): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > IDLE_HOLD_STRONG_MS) {
    return `idle_hold_ms must be an integer from 0 to ${IDLE_HOLD_STRONG_MS} (milliseconds), got ${typeof value === 'number' ? value : typeName(value)}`;
  }
  if (state !== 'idle' || strength !== 'strong') return `idle_hold_ms applies only to a strong idle rule (this one is ${strength} ${state ?? 'without a state'})`;
  return undefined;
}

interface MatcherContext {
  readonly ruleId: string;
  readonly index: number;
  readonly headerLine: number | undefined;
  readonly lines: LineIndex;
  readonly out: Collector;
  /** The line of `key` in this rule (its header when the key is not found). */
  readonly at: (key: string) => number | undefined;
}

/** The flat matchers (each list checked, regexes compiled once) and the gate; their count against the limit. */
function parseMatchers(raw: Record<string, unknown>, context: MatcherContext): { lists: Record<MatcherKey, string[] | undefined>; gate: GateNode | undefined } {
  const { ruleId: idForMessages, index, headerLine, lines, out, at } = context;
  const err = (key: string, message: string): void => out.error(at(key), idForMessages, message);
  const lists = {
    requires_all: stringList(raw['requires_all'], 'requires_all', (m) => err('requires_all', m)),
    requires_any: stringList(raw['requires_any'], 'requires_any', (m) => err('requires_any', m)),
    forbids: stringList(raw['forbids'], 'forbids', (m) => err('forbids', m)),
    regex: stringList(raw['regex'], 'regex', (m) => err('regex', m)),
    line_regex: stringList(raw['line_regex'], 'line_regex', (m) => err('line_regex', m)),
    forbids_regex: stringList(raw['forbids_regex'], 'forbids_regex', (m) => err('forbids_regex', m)),
  };
  let matchers = 0;
  for (const [key, list] of Object.entries(lists)) {
    for (const item of list ?? []) {
      matchers++;
      if (item === '') err(key, `${key} has an empty string (it would match everything)`);
      else if ([...item].length > PACK_LIMITS.maxPatternChars) err(key, `${key} entry is longer than ${PACK_LIMITS.maxPatternChars} characters`);
      else if (key.endsWith('regex')) {
        const problem = checkRegex(item);
        if (problem !== undefined) out.error(lines.textLine(item, index) ?? at(key), idForMessages, `${key}: ${problem}`);
      }
    }
  }

  let gate: GateNode | undefined;
  const ctx: GateContext = { ruleId: idForMessages, index, lines, out, leaves: 0 };
  if (raw['gate'] !== undefined) gate = parseGate(raw['gate'], 'gate', 1, ctx);
  matchers += ctx.leaves;

  const flatMatchers = Object.values(lists).reduce((n, list) => n + (list?.length ?? 0), 0);
  if (flatMatchers === 0 && raw['gate'] === undefined) {
    out.error(headerLine, idForMessages, 'rule has no matchers (add requires_all, requires_any, forbids, regex, line_regex, forbids_regex or gate)');
  }
  if (matchers > PACK_LIMITS.maxMatchersPerRule) {
    out.error(headerLine, idForMessages, `rule has ${matchers} matchers, more than the limit of ${PACK_LIMITS.maxMatchersPerRule}`);
  }

  return { lists, gate };
}

type MatcherKey = 'requires_all' | 'requires_any' | 'forbids' | 'regex' | 'line_regex' | 'forbids_regex';

type SkippedRule = { id: string; minEngineVersion: number; line: number | undefined };

/** The `[[rule]]` tables: each validated, duplicates reported on the raw ids, newer-engine rules skipped with a warning. */
export function parseRules(rawRules: unknown, carets: readonly string[], lines: LineIndex, out: Collector): { rules: PackRule[]; skippedRules: SkippedRule[] } {
  const rules: PackRule[] = [];
  const skippedRules: SkippedRule[] = [];
  if (rawRules === undefined) out.error(1, undefined, 'pack has no [[rule]] tables');
  else if (!Array.isArray(rawRules)) out.error(lines.keyLine('rule', undefined), undefined, `rule must be an array of tables ([[rule]]), got ${typeName(rawRules)}`);
  else {
    if (rawRules.length > PACK_LIMITS.maxRules) {
      out.error(lines.ruleLine(PACK_LIMITS.maxRules, undefined) ?? 1, undefined, `pack has ${rawRules.length} rules, more than the limit of ${PACK_LIMITS.maxRules}`);
    }
    // Duplicate ids are found on the raw ids, so a duplicate of an invalid rule is still reported.
    const rawIds = rawRules.map((r) => (isTable(r) && typeof r['id'] === 'string' ? r['id'] : undefined));
    const duplicates = new Set<number>();
    rawIds.forEach((id, i) => {
      if (id === undefined || id === '') return;
      const first = rawIds.indexOf(id);
      if (first === i) return;
      duplicates.add(i);
      out.error(lines.ruleLine(i, id), id, `duplicate rule id (first defined at line ${lines.ruleLine(first, id) ?? '?'})`);
    });
    for (const [index, raw] of rawRules.entries()) {
      const parsed = parseRule(raw, index, { carets }, lines, out);
      if (parsed === undefined || duplicates.has(index)) continue;
      if (parsed.kind === 'skipped') {
        skippedRules.push({ id: parsed.id, minEngineVersion: parsed.minEngineVersion, line: parsed.line });
        out.warn(parsed.line, parsed.id, `rule needs rule engine v${parsed.minEngineVersion}, this agentwrap has v${RULE_ENGINE_VERSION}; rule skipped`);
        continue;
      }
      rules.push(parsed.rule);
    }
    if (rawRules.length > 0 && rules.length === 0 && skippedRules.length === rawRules.length) {
      out.warn(undefined, undefined, 'every rule needs a newer rule engine; the pack matches nothing');
    }
  }

  return { rules, skippedRules };
}
