/**
 * Validating a pack's `[[dialog]]` tables: how to read a blocked dialog's question and options
 * from the screen, and which keys choose each option (docs/packs.md, "Dialogs"). Each problem
 * names the dialog and the line of its `[[dialog]]` header. Reading the screen is core/dialog/.
 */
import { unknownKeyMessage } from './lines.js';
import { checkRegex } from './regex.js';
import { parseRegion, type RegionSpec } from './regions.js';
import { Collector, isTable, stringList, typeName } from './toml-values.js';
import { PACK_LIMITS, type DialogSpec } from './types.js';

const DIALOG_KEYS = new Set(['id', 'description', 'rules', 'region', 'question', 'option', 'continuation', 'keys']);
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Named keys a `keys` template may use, as `<name>`. */
export const DIALOG_KEY_NAMES = ['esc', 'enter', 'tab', 'up', 'down', 'left', 'right', 'space'] as const;
/** `keys` when the table has none: the option's own `key` group, typed as it is shown. */
export const DEFAULT_DIALOG_KEYS = '{key}';

/** 1-based lines of each `[[dialog]]` header, for messages. */
function dialogHeaderLines(text: string): number[] {
  const out: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*\[\[\s*dialog\s*\]\]/.test(line)) out.push(i + 1);
  });
  return out;
}

/** Checks a `keys` template: literal text, `{key}`, `{n}` and `<name>` keys; the reason when it is not one. */
export function checkKeysTemplate(template: string): string | undefined {
  if (template === '') return 'keys is empty';
  if ([...template].length > PACK_LIMITS.maxDialogKeysChars) return `keys is longer than ${PACK_LIMITS.maxDialogKeysChars} characters`;
  for (const match of template.matchAll(/<([^>]*)>|\{([^}]*)\}/g)) {
    const named = match[1];
    const field = match[2];
    if (named !== undefined && !(DIALOG_KEY_NAMES as readonly string[]).includes(named.toLowerCase())) {
      return `keys: unknown key <${named}> (expected ${DIALOG_KEY_NAMES.map((k) => `<${k}>`).join(', ')})`;
    }
    if (field !== undefined && field !== 'key' && field !== 'n') return `keys: unknown field {${field}} (expected {key} or {n})`;
  }
  return undefined;
}

interface DialogContext {
  readonly index: number;
  readonly line: number | undefined;
  readonly out: Collector;
}

function regexKey(raw: Record<string, unknown>, key: string, id: string, ctx: DialogContext, isRequired: boolean): string | undefined {
  const value = raw[key];
  if (value === undefined) {
    if (isRequired) ctx.out.error(ctx.line, id, `dialog needs ${key} (an RE2 line regex)`);
    return undefined;
  }
  if (typeof value !== 'string') {
    ctx.out.error(ctx.line, id, `dialog ${key} must be a string, got ${typeName(value)}`);
    return undefined;
  }
  if (value.length > PACK_LIMITS.maxPatternChars) {
    ctx.out.error(ctx.line, id, `dialog ${key} is longer than ${PACK_LIMITS.maxPatternChars} characters`);
    return undefined;
  }
  const problem = checkRegex(value);
  if (problem !== undefined) {
    ctx.out.error(ctx.line, id, `dialog ${key}: ${problem}`);
    return undefined;
  }
  return value;
}

/** The option regex must name its label: without it there is nothing to show or to digest. */
function checkOptionGroups(pattern: string, id: string, ctx: DialogContext): boolean {
  // RE2 reports named groups only on a match; the names are read from the pattern instead.
  const names = [...pattern.matchAll(/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]);
  if (!names.includes('label')) {
    ctx.out.error(ctx.line, id, 'dialog option regex needs a (?P<label>…) group: the option text shown and digested');
    return false;
  }
  return true;
}

function parseDialog(raw: unknown, ctx: DialogContext): DialogSpec | undefined {
  const { out, line } = ctx;
  if (!isTable(raw)) {
    out.error(line, undefined, `dialog must be a table ([[dialog]]), got ${typeName(raw)}`);
    return undefined;
  }
  const id = typeof raw['id'] === 'string' ? raw['id'] : `dialog #${ctx.index + 1}`;
  const before = out.errors.length;
  if (raw['id'] === undefined) out.error(line, undefined, 'dialog needs an id');
  else if (typeof raw['id'] !== 'string' || !ID_PATTERN.test(raw['id']) || raw['id'].length > PACK_LIMITS.maxIdChars) {
    out.error(line, undefined, `dialog id must be letters, digits, "_", "." or "-" (at most ${PACK_LIMITS.maxIdChars})`);
  }
  for (const key of Object.keys(raw)) {
    if (!DIALOG_KEYS.has(key)) out.error(line, id, unknownKeyMessage(key, DIALOG_KEYS, 'dialog keys'));
  }
  const rules = stringList(raw['rules'], 'rules', (m) => out.error(line, id, `dialog ${m}`)) ?? [];
  let region: RegionSpec = { kind: 'screen' };
  const rawRegion = raw['region'];
  if (rawRegion !== undefined) {
    if (typeof rawRegion !== 'string') out.error(line, id, `dialog region must be a string, got ${typeName(rawRegion)}`);
    else {
      const parsed = parseRegion(rawRegion);
      if (parsed.ok) region = parsed.spec;
      else out.error(line, id, `dialog ${parsed.reason}`);
    }
  }
  const question = regexKey(raw, 'question', id, ctx, true);
  const option = regexKey(raw, 'option', id, ctx, true);
  const continuation = regexKey(raw, 'continuation', id, ctx, false);
  if (option !== undefined) checkOptionGroups(option, id, ctx);
  const rawKeys = raw['keys'] ?? DEFAULT_DIALOG_KEYS;
  let keys = DEFAULT_DIALOG_KEYS;
  if (typeof rawKeys !== 'string') out.error(line, id, `dialog keys must be a string like "{key}", got ${typeName(rawKeys)}`);
  else {
    const problem = checkKeysTemplate(rawKeys);
    if (problem === undefined) keys = rawKeys;
    else out.error(line, id, `dialog ${problem}`);
  }
  const description = typeof raw['description'] === 'string' ? raw['description'] : undefined;
  if (out.errors.length > before || question === undefined || option === undefined) return undefined;
  return { id, rules, region, question, option, ...(continuation === undefined ? {} : { continuation }), keys, description, line };
}

/**
 * The `[[dialog]]` tables (optional): each validated; a dialog naming a rule the pack does not
 * have, or one that is not `blocked`, is an error (it would never be read).
 */
export function parseDialogs(raw: unknown, text: string, blockedRuleIds: ReadonlySet<string>, allRuleIds: ReadonlySet<string>, out: Collector): DialogSpec[] {
  if (raw === undefined) return [];
  const headers = dialogHeaderLines(text);
  if (!Array.isArray(raw)) {
    out.error(headers[0], undefined, `dialog must be an array of tables ([[dialog]]), got ${typeName(raw)}`);
    return [];
  }
  if (raw.length > PACK_LIMITS.maxDialogs) out.error(headers[PACK_LIMITS.maxDialogs], undefined, `pack has ${raw.length} dialogs, more than the limit of ${PACK_LIMITS.maxDialogs}`);
  const dialogs: DialogSpec[] = [];
  for (const [index, entry] of raw.entries()) {
    const line = headers[index];
    const spec = parseDialog(entry, { index, line, out });
    if (spec === undefined) continue;
    if (dialogs.some((d) => d.id === spec.id)) {
      out.error(line, spec.id, 'duplicate dialog id');
      continue;
    }
    for (const rule of spec.rules) {
      if (!allRuleIds.has(rule)) out.error(line, spec.id, `dialog rules: no rule "${rule}" in this pack`);
      else if (!blockedRuleIds.has(rule)) out.error(line, spec.id, `dialog rules: rule "${rule}" is not a blocked rule`);
    }
    dialogs.push(spec);
  }
  return dialogs;
}
