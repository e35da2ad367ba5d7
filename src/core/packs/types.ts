/** The pack's vocabulary: engine and schema versions, limits, the validated Pack and its rules, issues. */
import type { RegionSpec } from './regions.js';
import type { RuleState, Strength } from '../types.js';

/**
 * Version of this rule engine. A pack (or a single rule) declaring a higher
 * `min_engine_version` is skipped, not misread. Bump it when the engine gains something a pack
 * can depend on (a new region, gate form or key) that an older engine would reject or misread.
 * - v1: flat matchers, line_regex/forbids_regex, nested gates, every region in docs/packs.md.
 * - v2: a rule's `reason`, published in the record with the state the rule decides.
 * - v3: a strong idle rule's `idle_hold_ms`, its own (shorter) hold before it publishes.
 * - v4: `[[dialog]]` tables: a blocked dialog's question, options and the keys that answer it.
 */
export const RULE_ENGINE_VERSION = 4;
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
  maxDialogs: 16,
  /** Characters of a dialog's `keys` template. */
  maxDialogKeysChars: 32,
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
  /** Published with the state this rule decides (record `reason`), e.g. "api-error". */
  readonly reason?: string;
  /**
   * A strong idle rule's own hold before it publishes (default IDLE_HOLD_STRONG_MS): for a screen
   * the agent draws only once its turn is over, never in a gap between tool calls.
   */
  readonly idleHoldMs?: number;
  /** 1-based line of the rule's `[[rule]]` header, for messages. */
  readonly line: number | undefined;
}

/**
 * How to read a blocked dialog from the screen (`[[dialog]]`, docs/packs.md "Dialogs"): line
 * regexes for the question and the options, and the keys that choose an option.
 */
export interface DialogSpec {
  readonly id: string;
  /** The blocked rules whose dialog this reads; empty: every blocked rule of the pack. */
  readonly rules: readonly string[];
  readonly region: RegionSpec;
  /** Line regex; its first group (else the whole match) is the question. */
  readonly question: string;
  /** Line regex with a `label` group and optionally a `key` group. */
  readonly option: string;
  /** Line regex for a wrapped option's further lines; its first group (else the line) is appended. */
  readonly continuation?: string;
  /** Keys template: literal text, `{key}`, `{n}`, `<esc>` and the other named keys. */
  readonly keys: string;
  readonly description: string | undefined;
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
  /** `[[dialog]]` tables: how to read and answer a blocked dialog (none: blocked dialogs are not read). */
  readonly dialogs?: readonly DialogSpec[];
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
