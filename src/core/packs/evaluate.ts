/**
 * Evaluates a compiled pack against one screen. `evaluatePack` is the tick's hot path (short-
 * circuits, each distinct region computed once, one RE2.Set scan per region); `explainPack`
 * runs every clause of every rule and says which passed and which failed. Both share the clause
 * semantics below and never throw.
 *
 * Semantics (docs/packs.md "Matching"): a region is a list of lines; its text is the lines
 * joined by "\n". Substring matchers compare lower-cased text (Unicode `toLowerCase`);
 * `requires_all` all present, `requires_any` at least one, `forbids` none. `regex` runs on the
 * text; `line_regex` must match some single line; `forbids_regex` must match no line. A gate is
 * a recursive all/any/not over contains/regex/line_regex leaves. All clauses are ANDed.
 */
import type { CompiledGate, CompiledPack, CompiledRegex, CompiledRule } from './compile.js';
import { analyzeScreen, extractRegion, progressText, regionLabel, type PackInput, type ScreenAnalysis } from './regions.js';
import type { EvidenceSnapshot, PackVerdict, RuleMatch, RuleState, Strength } from '../types.js';

export type { PackInput } from './regions.js';

/** Builds the pack input from a tick's snapshot (title text, progress as `osc_progress` text). */
export function packInputFromSnapshot(snapshot: EvidenceSnapshot): PackInput {
  return { screen: snapshot.screen, title: snapshot.title?.text, progress: progressText(snapshot.progress) };
}

/**
 * A reusable byte arena for region text. RE2 converts a JS string to UTF-8 on every call, and
 * `Buffer.from` allocates (above 4 KiB outside the pool, which costs GC time on every tick), so
 * each region is encoded once into this arena and RE2 reads a view of it. Safe because an
 * evaluation is synchronous and its views are dropped before the next one starts.
 */
class ByteArena {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;

  reset(): void {
    this.used = 0;
  }

  encode(text: string): Buffer {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    const need = text.length * 3;
    if (this.used + need > this.bytes.length) {
      // Grow for this evaluation; views handed out earlier keep the old arena alive until dropped.
      this.bytes = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, need * 2));
      this.used = 0;
    }
    const written = this.bytes.write(text, this.used, 'utf8');
    const view = this.bytes.subarray(this.used, this.used + written);
    this.used += written;
    return view;
  }
}

const ARENA = new ByteArena();

/** One region, computed at most once per evaluation. Derived forms are filled lazily. */
class RegionData {
  private joinedLower: string | undefined;
  private utf8: Buffer | undefined;
  private setHits: Uint8Array | undefined;
  private lineViews: Buffer[] | undefined;

  constructor(
    readonly lines: readonly string[],
    readonly text: string,
    private readonly set: CompiledPack['regions'][number]['set'],
  ) {}

  get lower(): string {
    this.joinedLower ??= this.text.toLowerCase();
    return this.joinedLower;
  }

  private get buffer(): Buffer {
    // One UTF-8 conversion shared by every RE2 call on this region.
    this.utf8 ??= ARENA.encode(this.text);
    return this.utf8;
  }

  private hit(index: number): boolean {
    if (this.setHits === undefined) {
      const hits = new Uint8Array(this.set?.size ?? 0);
      if (this.set !== undefined) for (const i of this.set.match(this.buffer)) hits[i] = 1;
      this.setHits = hits;
    }
    return this.setHits[index] === 1;
  }

  /** `regex`: the pattern matches the joined text. */
  matchesText(regex: CompiledRegex): boolean {
    return regex.setIndex === undefined ? regex.re.test(this.buffer) : this.hit(regex.setIndex);
  }

  /**
   * Each line as a view of the region's UTF-8 bytes (screen rows hold no "\n", so splitting the
   * joined text at newline bytes gives exactly the lines, with no second conversion).
   */
  private get lineBuffers(): readonly Buffer[] {
    if (this.lineViews === undefined) {
      const buffer = this.buffer;
      const views: Buffer[] = [];
      let start = 0;
      for (let i = 0; i < this.lines.length; i++) {
        const end = buffer.indexOf(0x0a, start);
        const stop = end < 0 ? buffer.length : end;
        views.push(buffer.subarray(start, stop));
        start = stop + 1;
      }
      this.lineViews = views;
    }
    return this.lineViews;
  }

  /** `line_regex`: the pattern matches some single line. */
  matchesSomeLine(regex: CompiledRegex): boolean {
    if (regex.setIndex !== undefined && !this.hit(regex.setIndex)) return false;
    return this.lineBuffers.some((line) => regex.re.test(line));
  }

  /** The first line the pattern matches, for explain; undefined when none does. */
  firstMatchingLine(regex: CompiledRegex): string | undefined {
    if (regex.setIndex !== undefined && !this.hit(regex.setIndex)) return undefined;
    const index = this.lineBuffers.findIndex((line) => regex.re.test(line));
    return index < 0 ? undefined : this.lines[index];
  }
}

class Evaluation {
  private readonly cache: (RegionData | undefined)[];
  private analysisMemo: ScreenAnalysis | undefined;

  constructor(
    private readonly compiled: CompiledPack,
    private readonly input: PackInput,
  ) {
    this.cache = new Array<RegionData | undefined>(compiled.regions.length);
    ARENA.reset();
  }

  region(index: number): RegionData {
    const cached = this.cache[index];
    if (cached !== undefined) return cached;
    const plan = this.compiled.regions[index];
    this.analysisMemo ??= analyzeScreen(this.input.screen.rows, this.compiled.pack.promptCarets);
    const lines = plan === undefined ? [] : extractRegion(plan.spec, this.input, this.analysisMemo);
    const data = new RegionData(lines, lines.join('\n'), plan?.set);
    this.cache[index] = data;
    return data;
  }
}

function gateMatches(gate: CompiledGate, data: RegionData): boolean {
  switch (gate.kind) {
    case 'all':
      return gate.gates.every((g) => gateMatches(g, data));
    case 'any':
      return gate.gates.some((g) => gateMatches(g, data));
    case 'not':
      return !gateMatches(gate.gate, data);
    case 'contains':
      return data.lower.includes(gate.lower);
    case 'regex':
      return data.matchesText(gate.regex);
    case 'line_regex':
      return data.matchesSomeLine(gate.regex);
    default: {
      const never: never = gate;
      return never;
    }
  }
}

/** The fast path: false at the first failing clause, cheapest clauses first. */
function ruleMatches(rule: CompiledRule, data: RegionData): boolean {
  if (rule.requiresAll.length > 0 || rule.requiresAny.length > 0 || rule.forbids.length > 0) {
    const lower = data.lower;
    for (const s of rule.requiresAll) if (!lower.includes(s)) return false;
    if (rule.requiresAny.length > 0 && !rule.requiresAny.some((s) => lower.includes(s))) return false;
    for (const s of rule.forbids) if (lower.includes(s)) return false;
  }
  for (const r of rule.regex) if (!data.matchesText(r)) return false;
  for (const r of rule.lineRegex) if (!data.matchesSomeLine(r)) return false;
  for (const r of rule.forbidsRegex) if (data.matchesSomeLine(r)) return false;
  return rule.gate === undefined || gateMatches(rule.gate, data);
}

function toMatch(rule: CompiledRule): RuleMatch {
  return {
    ruleId: rule.rule.id,
    state: rule.rule.state,
    priority: rule.rule.priority,
    strength: rule.rule.strength,
    region: regionLabel(rule.rule.region),
    ...(rule.rule.reason === undefined ? {} : { reason: rule.rule.reason }),
    ...(rule.rule.idleHoldMs === undefined ? {} : { idleHoldMs: rule.rule.idleHoldMs }),
  };
}

/**
 * Every matching rule, highest priority first (ties in file order), and the winner: the first
 * strong match. Weak matches are reported but never win. Never throws: a failure inside RE2 is
 * treated as "no verdict" rather than taking the session down (the soft-fail law).
 */
export function evaluatePack(compiled: CompiledPack, input: PackInput): PackVerdict {
  const agent = compiled.pack.agent;
  try {
    const evaluation = new Evaluation(compiled, input);
    const matches: RuleMatch[] = [];
    let winner: RuleMatch | undefined;
    for (const rule of compiled.rules) {
      if (!ruleMatches(rule, evaluation.region(rule.regionIndex))) continue;
      const match = toMatch(rule);
      matches.push(match);
      if (winner === undefined && match.strength === 'strong') winner = match;
    }
    return { agent, matches, winner };
  } catch {
    // RE2 throws only on resource exhaustion; a tick must survive it and report nothing matched.
    return { agent, matches: [], winner: undefined };
  }
}

// --- explain ----------------------------------------------------------------------------------

export interface ClauseResult {
  /** The clause as written, e.g. `requires_all "enter to confirm"`, `gate`. */
  readonly clause: string;
  readonly passed: boolean;
  /** Why it failed (or, for a gate, which branch decided); empty when it passed plainly. */
  readonly detail: string;
}

export interface RuleEvaluation {
  readonly id: string;
  readonly state: RuleState;
  readonly priority: number;
  readonly region: string;
  readonly strength: Strength;
  readonly matched: boolean;
  /** `<clause>: <reason>` of the first failing clause in evaluation order; undefined when matched. */
  readonly failedClause: string | undefined;
  readonly clauses: readonly ClauseResult[];
  /** The region text, at most REGION_PREVIEW_CHARS characters (then `…`). */
  readonly regionPreview: string;
  readonly regionLineCount: number;
  readonly description: string | undefined;
}

export const REGION_PREVIEW_CHARS = 1000;

function preview(text: string): string {
  const chars = [...text];
  return chars.length <= REGION_PREVIEW_CHARS ? text : `${chars.slice(0, REGION_PREVIEW_CHARS).join('')}…`;
}

const q = (s: string): string => JSON.stringify(s);
const slashes = (s: string): string => `'${s}'`;

function describeGate(gate: CompiledGate): string {
  switch (gate.kind) {
    case 'all':
    case 'any':
      return `${gate.kind}(${gate.gates.map(describeGate).join(', ')})`;
    case 'not':
      return `not(${describeGate(gate.gate)})`;
    case 'contains':
      return `contains ${q(gate.text)}`;
    case 'regex':
      return `regex ${slashes(gate.regex.source)}`;
    case 'line_regex':
      return `line_regex ${slashes(gate.regex.source)}`;
    default: {
      const never: never = gate;
      return never;
    }
  }
}

/** Evaluates a gate and says why it failed, by path (`gate.all[1].not`). */
function explainGate(gate: CompiledGate, data: RegionData, path: string): { passed: boolean; detail: string } {
  switch (gate.kind) {
    case 'all': {
      for (const [i, child] of gate.gates.entries()) {
        const result = explainGate(child, data, `${path}.all[${i}]`);
        if (!result.passed) return result;
      }
      return { passed: true, detail: '' };
    }
    case 'any': {
      for (const [i, child] of gate.gates.entries()) {
        if (explainGate(child, data, `${path}.any[${i}]`).passed) return { passed: true, detail: `${path}.any[${i}] passed` };
      }
      return { passed: false, detail: `${path}.any: none of ${gate.gates.map(describeGate).join(', ')} matched` };
    }
    case 'not': {
      const inner = explainGate(gate.gate, data, `${path}.not`);
      return inner.passed
        ? { passed: false, detail: `${path}.not: ${describeGate(gate.gate)} matched` }
        : { passed: true, detail: '' };
    }
    case 'contains':
      return data.lower.includes(gate.lower)
        ? { passed: true, detail: '' }
        : { passed: false, detail: `${path}.contains ${q(gate.text)}: absent` };
    case 'regex':
      return data.matchesText(gate.regex)
        ? { passed: true, detail: '' }
        : { passed: false, detail: `${path}.regex ${slashes(gate.regex.source)}: no match` };
    case 'line_regex':
      return data.matchesSomeLine(gate.regex)
        ? { passed: true, detail: '' }
        : { passed: false, detail: `${path}.line_regex ${slashes(gate.regex.source)}: no line matches` };
    default: {
      const never: never = gate;
      return never;
    }
  }
}

function explainRule(rule: CompiledRule, data: RegionData): RuleEvaluation {
  const clauses: ClauseResult[] = [];
  const add = (clause: string, passed: boolean, failDetail: string): void => {
    clauses.push({ clause, passed, detail: passed ? '' : failDetail });
  };
  const r = rule.rule;
  r.requiresAll.forEach((s, i) => add(`requires_all ${q(s)}`, data.lower.includes(rule.requiresAll[i] ?? ''), 'absent'));
  if (r.requiresAny.length > 0) {
    add(`requires_any [${r.requiresAny.map(q).join(', ')}]`, rule.requiresAny.some((s) => data.lower.includes(s)), 'none present');
  }
  r.forbids.forEach((s, i) => add(`forbids ${q(s)}`, !data.lower.includes(rule.forbids[i] ?? ''), 'present'));
  for (const re of rule.regex) add(`regex ${slashes(re.source)}`, data.matchesText(re), 'no match');
  for (const re of rule.lineRegex) add(`line_regex ${slashes(re.source)}`, data.matchesSomeLine(re), 'no line matches');
  for (const re of rule.forbidsRegex) {
    const hit = data.firstMatchingLine(re);
    add(`forbids_regex ${slashes(re.source)}`, hit === undefined, `matches line ${q(hit ?? '')}`);
  }
  if (rule.gate !== undefined) {
    const result = explainGate(rule.gate, data, 'gate');
    clauses.push({ clause: 'gate', passed: result.passed, detail: result.detail });
  }
  const failed = clauses.find((c) => !c.passed);
  return {
    id: r.id,
    state: r.state,
    priority: r.priority,
    region: regionLabel(r.region),
    strength: r.strength,
    matched: failed === undefined,
    failedClause: failed === undefined ? undefined : `${failed.clause}: ${failed.detail}`,
    clauses,
    regionPreview: preview(data.text),
    regionLineCount: data.lines.length,
    description: r.description,
  };
}

/**
 * Every rule (priority order, ties in file order) with every clause's result. Agrees with
 * `evaluatePack` on `matched` by construction (same clause code). Never throws.
 */
export function explainPack(compiled: CompiledPack, input: PackInput): readonly RuleEvaluation[] {
  const evaluation = new Evaluation(compiled, input);
  return compiled.rules.map((rule) => {
    try {
      return explainRule(rule, evaluation.region(rule.regionIndex));
    } catch (error) {
      // Same soft-fail as evaluatePack, but visible: the failure becomes the rule's failed clause.
      return {
        id: rule.rule.id,
        state: rule.rule.state,
        priority: rule.rule.priority,
        region: regionLabel(rule.rule.region),
        strength: rule.rule.strength,
        matched: false,
        failedClause: `error: ${error instanceof Error ? error.message : String(error)}`,
        clauses: [],
        regionPreview: '',
        regionLineCount: 0,
        description: rule.rule.description,
      };
    }
  });
}

/** The explain result reduced to a verdict, for callers that explain and still need the winner. */
export function verdictFromExplain(agent: string, rules: readonly RuleEvaluation[]): PackVerdict {
  const matches: RuleMatch[] = rules
    .filter((r) => r.matched)
    .map((r) => ({ ruleId: r.id, state: r.state, priority: r.priority, strength: r.strength, region: r.region }));
  return { agent, matches, winner: matches.find((m) => m.strength === 'strong') };
}
