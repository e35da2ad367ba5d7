/**
 * Pack → CompiledPack, once, at load: every RE2 pattern compiled, substrings lower-cased, rules
 * sorted by priority (stable, so ties keep file order), and for each distinct region an RE2.Set
 * holding every pattern rules on that region run over the joined text.
 *
 * Why the Set: RE2 converts a JS string to UTF-8 on every call, so 40 separate `test` calls on a
 * fresh screen cost ~130 µs; one Set scan of a Buffer answers all of them at once. For `regex`
 * clauses the Set answer is exact. For `line_regex`/`forbids_regex` the Set holds the pattern
 * in multi-line mode over the joined text — a line that matches on its own also matches there,
 * so "no Set hit" proves "no line matches", and only a hit is confirmed line by line.
 */
import RE2 from 're2';
import { PACK_REGEX_FLAGS, type GateNode, type Pack, type PackRule } from './schema.js';
import { packRegex } from './regex.js';
import { regionLabel, type RegionSpec } from './regions.js';

export interface CompiledRegex {
  readonly source: string;
  readonly re: RE2;
  /** Index in the region's Set, or undefined when this pattern is always run directly. */
  readonly setIndex: number | undefined;
}

export type CompiledGate =
  | { readonly kind: 'all' | 'any'; readonly gates: readonly CompiledGate[] }
  | { readonly kind: 'not'; readonly gate: CompiledGate }
  | { readonly kind: 'contains'; readonly text: string; readonly lower: string }
  | { readonly kind: 'regex' | 'line_regex'; readonly regex: CompiledRegex };

export interface CompiledRule {
  readonly rule: PackRule;
  /** Position in the file (0-based), the tie-breaker after priority. */
  readonly fileOrder: number;
  /** Index into `CompiledPack.regions`. */
  readonly regionIndex: number;
  readonly requiresAll: readonly string[];
  readonly requiresAny: readonly string[];
  readonly forbids: readonly string[];
  readonly regex: readonly CompiledRegex[];
  readonly lineRegex: readonly CompiledRegex[];
  readonly forbidsRegex: readonly CompiledRegex[];
  readonly gate: CompiledGate | undefined;
}

export interface RegionPlan {
  readonly label: string;
  readonly spec: RegionSpec;
  /** Every Set-able pattern of the rules on this region; undefined when there is none. */
  readonly set: InstanceType<typeof RE2.Set> | undefined;
}

export interface CompiledPack {
  readonly pack: Pack;
  /** Highest priority first; ties in file order. */
  readonly rules: readonly CompiledRule[];
  readonly regions: readonly RegionPlan[];
}

/** A pattern that survived validation but not compilation (should not happen; names the rule). */
export class PackCompileError extends Error {
  override readonly name = 'PackCompileError';
  constructor(
    message: string,
    readonly ruleId: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Multi-line prefiltering is sound only if a standalone-line match implies a match in the
 * joined text. `\A`/`\z` and inline flag groups (which could turn `m` off) break that, so such
 * patterns skip the Set and always run line by line.
 */
function isLinePrefilterable(pattern: string): boolean {
  return !/\\[Az]|\(\?[a-zA-Z-]+[):]/.test(pattern);
}

interface SetBuilder {
  readonly sources: string[];
}

function compileRegex(pattern: string, lineMode: boolean, builder: SetBuilder, ruleId: string): CompiledRegex {
  // Usually compiled already, by parsePack's check of the same pattern.
  const re = packRegex(pattern);
  if (re instanceof Error) throw new PackCompileError(`rule ${ruleId}: regex '${pattern}' does not compile`, ruleId, { cause: re });
  if (lineMode && !isLinePrefilterable(pattern)) return { source: pattern, re, setIndex: undefined };
  const setIndex = builder.sources.length;
  builder.sources.push(lineMode ? `(?m:${pattern})` : pattern);
  return { source: pattern, re, setIndex };
}

function compileGate(gate: GateNode, builder: SetBuilder, ruleId: string): CompiledGate {
  switch (gate.kind) {
    case 'all':
    case 'any':
      return { kind: gate.kind, gates: gate.gates.map((g) => compileGate(g, builder, ruleId)) };
    case 'not':
      return { kind: 'not', gate: compileGate(gate.gate, builder, ruleId) };
    case 'contains':
      return { kind: 'contains', text: gate.text, lower: gate.text.toLowerCase() };
    case 'regex':
      return { kind: 'regex', regex: compileRegex(gate.pattern, false, builder, ruleId) };
    case 'line_regex':
      return { kind: 'line_regex', regex: compileRegex(gate.pattern, true, builder, ruleId) };
    default: {
      const never: never = gate;
      return never;
    }
  }
}

/** Strips Set indices when a region's Set cannot be built, so every pattern runs directly. */
function withoutSet(rule: CompiledRule): CompiledRule {
  const plain = (r: CompiledRegex): CompiledRegex => ({ ...r, setIndex: undefined });
  const gate = (g: CompiledGate): CompiledGate => {
    switch (g.kind) {
      case 'all':
      case 'any':
        return { kind: g.kind, gates: g.gates.map(gate) };
      case 'not':
        return { kind: 'not', gate: gate(g.gate) };
      case 'contains':
        return g;
      case 'regex':
      case 'line_regex':
        return { kind: g.kind, regex: plain(g.regex) };
      default: {
        const never: never = g;
        return never;
      }
    }
  };
  return {
    ...rule,
    regex: rule.regex.map(plain),
    lineRegex: rule.lineRegex.map(plain),
    forbidsRegex: rule.forbidsRegex.map(plain),
    gate: rule.gate === undefined ? undefined : gate(rule.gate),
  };
}

/** Compiles a validated pack. Throws PackCompileError (naming the rule) only on a pattern RE2 rejects. */
export function compilePack(pack: Pack): CompiledPack {
  const labels: string[] = [];
  const specs: RegionSpec[] = [];
  const builders: SetBuilder[] = [];
  let rules: CompiledRule[] = pack.rules.map((rule, fileOrder) => {
    const label = regionLabel(rule.region);
    let regionIndex = labels.indexOf(label);
    if (regionIndex < 0) {
      regionIndex = labels.length;
      labels.push(label);
      specs.push(rule.region);
      builders.push({ sources: [] });
    }
    const builder = builders[regionIndex] ?? { sources: [] };
    return {
      rule,
      fileOrder,
      regionIndex,
      requiresAll: rule.requiresAll.map((s) => s.toLowerCase()),
      requiresAny: rule.requiresAny.map((s) => s.toLowerCase()),
      forbids: rule.forbids.map((s) => s.toLowerCase()),
      regex: rule.regex.map((p) => compileRegex(p, false, builder, rule.id)),
      lineRegex: rule.lineRegex.map((p) => compileRegex(p, true, builder, rule.id)),
      forbidsRegex: rule.forbidsRegex.map((p) => compileRegex(p, true, builder, rule.id)),
      gate: rule.gate === undefined ? undefined : compileGate(rule.gate, builder, rule.id),
    };
  });

  const regions: RegionPlan[] = builders.map((builder, i) => {
    const label = labels[i] ?? '';
    const spec = specs[i] ?? { kind: 'screen' };
    if (builder.sources.length === 0) return { label, spec, set: undefined };
    try {
      return { label, spec, set: new RE2.Set(builder.sources, PACK_REGEX_FLAGS) };
    } catch {
      // A Set can refuse what single patterns accept (its program-size budget); the region then
      // runs each pattern on its own — slower, same answers. Marked below so no index is trusted.
      return { label, spec, set: undefined };
    }
  });
  rules = rules.map((rule) => (regions[rule.regionIndex]?.set === undefined ? withoutSet(rule) : rule));

  // Array.prototype.sort is stable, so equal priorities keep file order.
  rules.sort((a, b) => b.rule.priority - a.rule.priority);
  return { pack, rules, regions };
}

/** Regions that read what the agent says out of band (its title, OSC 9;4 progress), not what it draws. */
const SIGNAL_REGIONS: ReadonlySet<string> = new Set(['osc_title', 'osc_progress']);

/**
 * The pack with every screen rule off: only the rules on the title and progress regions stay,
 * so signals, titles and process evidence decide alone (`eval --no-screen-rules`, docs/signals.md).
 */
export function withoutScreenRules(compiled: CompiledPack): CompiledPack {
  return { ...compiled, rules: compiled.rules.filter((rule) => SIGNAL_REGIONS.has(compiled.regions[rule.regionIndex]?.spec.kind ?? '')) };
}
