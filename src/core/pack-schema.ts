/**
 * Pack schema: TOML text → a validated `Pack`, or every problem found, each naming the file,
 * the line where it can be found, the rule id and the reason. Strict on purpose: an unknown key
 * is an error, not silently ignored, because a misspelt `forbid` would otherwise quietly turn
 * a rule into an over-matching one. Limits are fail-loudly guards against a malformed pack,
 * not a security boundary (packs are operator-authored).
 */
import RE2 from 're2';
import semver from 'semver';
import { parse, TomlError } from 'smol-toml';
import { CARET_REGIONS, parseRegion, regionLabel, type RegionSpec } from './regions.js';
import type { RuleState, Strength } from './types.js';

/**
 * Version of this rule engine. A pack (or a single rule) declaring a higher
 * `min_engine_version` is skipped, not misread. Bump it when the engine gains something a pack
 * can depend on (a new region, gate form or key) that an older engine would reject or misread.
 * - v1: flat matchers, line_regex/forbids_regex, nested gates, every region in docs/packs.md.
 */
export const RULE_ENGINE_VERSION = 1;
export const PACK_SCHEMA_VERSION = 1;

/** Limits, each far beyond what a real pack needs; see docs/packs.md "Limits". */
export const PACK_LIMITS = {
  /** Bytes of TOML per pack file. */
  maxPackBytes: 256 * 1024,
  maxRules: 128,
  /** Matchers per rule: every list entry of every clause plus every gate leaf. */
  maxMatchersPerRule: 32,
  /** Characters per substring or regex pattern. */
  maxPatternChars: 512,
  /** Nesting depth of a gate (the outermost table is depth 1). */
  maxGateDepth: 16,
  maxCommands: 16,
  maxPromptCarets: 8,
  maxCaretChars: 4,
  maxIdChars: 64,
} as const;

export type GateNode =
  | { readonly kind: 'all'; readonly gates: readonly GateNode[] }
  | { readonly kind: 'any'; readonly gates: readonly GateNode[] }
  | { readonly kind: 'not'; readonly gate: GateNode }
  | { readonly kind: 'contains'; readonly text: string }
  | { readonly kind: 'regex'; readonly pattern: string }
  | { readonly kind: 'line_regex'; readonly pattern: string };

export interface PackRule {
  readonly id: string;
  readonly state: RuleState;
  readonly priority: number;
  readonly region: RegionSpec;
  readonly strength: Strength;
  readonly requiresAll: readonly string[];
  readonly requiresAny: readonly string[];
  readonly forbids: readonly string[];
  readonly regex: readonly string[];
  readonly lineRegex: readonly string[];
  readonly forbidsRegex: readonly string[];
  readonly gate: GateNode | undefined;
  readonly minEngineVersion: number;
  readonly description: string | undefined;
  /** 1-based line of the rule's `[[rule]]` header, for messages. */
  readonly line: number | undefined;
}

export interface Pack {
  readonly schemaVersion: number;
  readonly agent: string;
  readonly commands: readonly string[];
  readonly validatedVersions: string;
  readonly minEngineVersion: number;
  readonly promptCarets: readonly string[];
  /** Written from public facts, not checked against recordings of the agent. */
  readonly unverified: boolean;
  readonly description: string | undefined;
  /** Rules in file order (pack-compile sorts them). */
  readonly rules: readonly PackRule[];
  /** Rules this engine is too old for: skipped, and said so. */
  readonly skippedRules: readonly { readonly id: string; readonly minEngineVersion: number; readonly line: number | undefined }[];
}

/** One problem in a pack file. Printed as `FILE:LINE: rule ID: reason` (parts omitted when unknown). */
export interface PackIssue {
  readonly path: string;
  readonly line: number | undefined;
  readonly ruleId: string | undefined;
  readonly message: string;
}

export type PackParseResult =
  | { readonly kind: 'ok'; readonly pack: Pack; readonly warnings: readonly PackIssue[] }
  | {
      readonly kind: 'invalid';
      readonly errors: readonly PackIssue[];
      /** The `agent` value when it could be read, so listings can say whose pack is broken. */
      readonly agent: string | undefined;
    }
  | {
      readonly kind: 'needs-newer-engine';
      readonly agent: string | undefined;
      readonly minEngineVersion: number;
      readonly issue: PackIssue;
    };

export function formatPackIssue(issue: PackIssue): string {
  const where = issue.line === undefined ? issue.path : `${issue.path}:${issue.line}`;
  const rule = issue.ruleId === undefined ? '' : ` rule ${issue.ruleId}:`;
  return `${where}:${rule} ${issue.message}`;
}

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
]);
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
]);
const GATE_KEYS = ['all', 'any', 'not', 'contains', 'regex', 'line_regex'] as const;
const RULE_STATES: readonly RuleState[] = ['working', 'blocked', 'idle', 'freeze'];
const STRENGTHS: readonly Strength[] = ['strong', 'weak'];
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const AGENT_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** RE2 flags every pack regex is compiled with: case-insensitive, Unicode. */
export const PACK_REGEX_FLAGS = 'iu';

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a float';
  return `a ${typeof value}`;
}

/**
 * Why RE2 rejects a pattern, naming the construct when it is one RE2 never supports
 * (RE2 guarantees linear time, so it has no look-around and no backreferences).
 */
export function explainRegexError(pattern: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  const constructs: readonly [RegExp, string][] = [
    [/\(\?<[=!]/, 'look-behind'],
    [/\(\?[=!]/, 'look-ahead'],
    [/\\[1-9]|\\k</, 'a backreference'],
    [/\(\?>/, 'an atomic group'],
    [/[*+?}][+]/, 'a possessive quantifier'],
  ];
  for (const [probe, name] of constructs) {
    const found = probe.exec(pattern);
    if (found !== null) {
      return `regex '${pattern}' uses ${name} \`${found[0]}\`, which RE2 does not support (${detail})`;
    }
  }
  return `regex '${pattern}' is not valid RE2: ${detail}`;
}

/** Compiles once to check; returns the reason when RE2 rejects the pattern. */
export function checkRegex(pattern: string): string | undefined {
  try {
    new RE2(pattern, PACK_REGEX_FLAGS);
    return undefined;
  } catch (error) {
    return explainRegexError(pattern, error);
  }
}

/**
 * The `validated_versions` range parsed with semver, or why it is refused. Commas between
 * comparators (Cargo style, as in `">=2.1.0, <2.3.0"`) mean AND, like spaces. Every `||`
 * alternative needs an upper bound (`<`, `<=`, an exact version, `^`, `~`, `2.x`), so a pack
 * never claims to be validated for versions nobody has seen.
 */
export function parseVersionRange(text: string): { ok: true; range: semver.Range } | { ok: false; reason: string } {
  const normalized = text.replace(/\s*,\s*/g, ' ').trim();
  if (normalized === '') return { ok: false, reason: 'validated_versions is empty' };
  let range: semver.Range;
  try {
    range = new semver.Range(normalized);
  } catch (error) {
    return { ok: false, reason: `validated_versions "${text}" is not a semver range: ${error instanceof Error ? error.message : String(error)}` };
  }
  for (const alternative of range.set) {
    const bounded = alternative.some(
      (c) => c.operator === '<' || c.operator === '<=' || (c.operator === '' && c.value !== ''),
    );
    if (!bounded) {
      return {
        ok: false,
        reason: `validated_versions "${text}" has no upper bound (write e.g. ">=2.1.0, <2.3.0")`,
      };
    }
  }
  return { ok: true, range };
}

/** Where a detected agent version sits relative to the pack's `validated_versions`. */
export function versionStatus(version: string, validatedVersions: string): 'inside' | 'outside' | 'unparsable' {
  const parsed = parseVersionRange(validatedVersions);
  const clean = semver.valid(semver.coerce(version, { includePrerelease: true }));
  if (!parsed.ok || clean === null) return 'unparsable';
  return semver.satisfies(clean, parsed.range, { includePrerelease: true }) ? 'inside' : 'outside';
}

// --- line finding -----------------------------------------------------------------------------

/**
 * smol-toml reports positions only for syntax errors, so semantic errors find their line by
 * scanning: the n-th `[[rule]]` header is rule n, and a key is the first `key =` after it.
 */
class LineIndex {
  private readonly lines: readonly string[];
  private readonly ruleHeaders: readonly number[];

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    const headers: number[] = [];
    this.lines.forEach((line, i) => {
      if (/^\s*\[\[\s*rule\s*\]\]/.test(line)) headers.push(i);
    });
    this.ruleHeaders = headers;
  }

  /** 1-based line of the rule's header; falls back to the line of `id = "<id>"`. */
  ruleLine(index: number, id: string | undefined): number | undefined {
    const header = this.ruleHeaders[index];
    if (header !== undefined) return header + 1;
    if (id === undefined) return undefined;
    const found = this.lines.findIndex((line) => new RegExp(`^\\s*id\\s*=\\s*["']${escapeRegExp(id)}["']`).test(line));
    return found >= 0 ? found + 1 : undefined;
  }

  /** 1-based line of `key =` inside rule `index` (or at top level when index is undefined). */
  keyLine(key: string, index: number | undefined): number | undefined {
    const start = index === undefined ? 0 : this.ruleHeaders[index];
    if (start === undefined) return undefined;
    const end = index === undefined ? (this.firstTableLine() ?? this.lines.length) : (this.ruleHeaders[index + 1] ?? this.lines.length);
    const pattern = new RegExp(`^\\s*(?:"${escapeRegExp(key)}"|${escapeRegExp(key)})\\s*[=.]`);
    const tablePattern = new RegExp(`^\\s*\\[\\s*rule\\.${escapeRegExp(key)}\\s*\\]`);
    for (let i = start; i < end; i++) {
      const line = this.lines[i] ?? '';
      if (pattern.test(line) || tablePattern.test(line)) return i + 1;
    }
    return index === undefined ? undefined : start + 1;
  }

  /** 1-based line where `needle` first occurs inside rule `index`, for gate leaves. */
  textLine(needle: string, index: number): number | undefined {
    const start = this.ruleHeaders[index];
    if (start === undefined) return undefined;
    const end = this.ruleHeaders[index + 1] ?? this.lines.length;
    for (let i = start; i < end; i++) if ((this.lines[i] ?? '').includes(needle)) return i + 1;
    return undefined;
  }

  private firstTableLine(): number | undefined {
    const found = this.lines.findIndex((line) => /^\s*\[/.test(line));
    return found >= 0 ? found : undefined;
  }
}

/** Edit distance, for "did you mean" on unknown keys (keys are short, so O(n·m) is nothing). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function unknownKeyMessage(key: string, known: ReadonlySet<string>, what: string): string {
  const close = [...known].filter((k) => k !== 'rule' && editDistance(key, k) <= 2);
  const hint = close.length > 0 ? `did you mean "${close[0]}"?` : `${what}: ${[...known].filter((k) => k !== 'rule').join(', ')}`;
  return `unknown ${what === 'rule keys' ? '' : 'top-level '}key "${key}" (${hint})`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// --- validation -------------------------------------------------------------------------------

class Collector {
  readonly errors: PackIssue[] = [];
  readonly warnings: PackIssue[] = [];
  constructor(readonly path: string) {}
  error(line: number | undefined, ruleId: string | undefined, message: string): void {
    this.errors.push({ path: this.path, line, ruleId, message });
  }
  warn(line: number | undefined, ruleId: string | undefined, message: string): void {
    this.warnings.push({ path: this.path, line, ruleId, message });
  }
}

function stringList(
  value: unknown,
  key: string,
  report: (message: string) => void,
): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report(`${key} must be an array of strings, got ${typeName(value)}`);
    return undefined;
  }
  const out: string[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string') {
      report(`${key}[${i}] must be a string, got ${typeName(item)}`);
      return undefined;
    }
    out.push(item);
  }
  return out;
}

function engineVersion(value: unknown, key: string, report: (message: string) => void): number | undefined {
  if (value === undefined) return 1;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    report(`${key} must be a positive integer, got ${typeName(value)}${typeof value === 'number' ? ` ${value}` : ''}`);
    return undefined;
  }
  return value;
}

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
      line: headerLine,
    },
  };
}

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
      const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? error.message;
      out.error(error.line, undefined, `TOML syntax error at column ${error.column}: ${reason}`);
    } else {
      out.error(undefined, undefined, `TOML could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
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

  const rawRules = doc['rule'];
  const rules: PackRule[] = [];
  const skippedRules: { id: string; minEngineVersion: number; line: number | undefined }[] = [];
  if (rawRules === undefined) out.error(undefined, undefined, 'pack has no [[rule]] tables');
  else if (!Array.isArray(rawRules)) topErr('rule', `rule must be an array of tables ([[rule]]), got ${typeName(rawRules)}`);
  else {
    if (rawRules.length > PACK_LIMITS.maxRules) {
      out.error(undefined, undefined, `pack has ${rawRules.length} rules, more than the limit of ${PACK_LIMITS.maxRules}`);
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

  if (out.errors.length > 0 || minEngine === undefined) return { kind: 'invalid', errors: out.errors, agent: agentName };
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
      skippedRules,
    },
    warnings: out.warnings,
  };
}
