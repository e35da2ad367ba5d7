/**
 * Regions: which rows of the live viewport (never scrollback) a pack rule reads. Each region is
 * a list of lines; matchers see them joined by "\n". The definitions here are the contract that
 * docs/packs.md spells out — change one and the other together.
 *
 * Screen structure (prompt box, rule lines, caret lines) is found once per evaluation by
 * `analyzeScreen`, because several regions share it and a tick must stay cheap.
 */
import type { ProgressEvidence, ScreenView } from '../types.js';

/** Largest N accepted in `bottom:N`, `bottom_nonempty:N`, `top:N` (far beyond any real terminal height). */
export const MAX_REGION_ROWS = 1000;

/** Regions that take no argument. */
export const SIMPLE_REGIONS = [
  'screen',
  'cursor_line',
  'prompt_box_body',
  'above_prompt_box',
  'after_last_rule',
  'last_nonempty_line',
  'last_prompt_marker',
  'after_last_prompt_marker',
  'before_current_prompt_marker',
  'osc_title',
  'osc_progress',
] as const;
export type SimpleRegionKind = (typeof SIMPLE_REGIONS)[number];

/** Regions that take a row count: `bottom:N`, `bottom_nonempty:N`, `top:N`. */
export const COUNTED_REGIONS = ['bottom', 'bottom_nonempty', 'top'] as const;
export type CountedRegionKind = (typeof COUNTED_REGIONS)[number];

export type RegionSpec =
  | { readonly kind: CountedRegionKind; readonly rows: number }
  | { readonly kind: SimpleRegionKind };

/** The caret family needs the pack's `prompt_carets`; lint rejects a pack that uses them without. */
export const CARET_REGIONS: ReadonlySet<string> = new Set([
  'last_prompt_marker',
  'after_last_prompt_marker',
  'before_current_prompt_marker',
]);

/** `bottom:12` → spec, or a reason the text is not a region. */
export function parseRegion(text: string): { ok: true; spec: RegionSpec } | { ok: false; reason: string } {
  const colon = text.indexOf(':');
  if (colon >= 0) {
    const kind = text.slice(0, colon);
    const count = text.slice(colon + 1);
    const counted = COUNTED_REGIONS.find((k) => k === kind);
    if (counted === undefined) {
      return { ok: false, reason: `unknown region "${text}" (only ${COUNTED_REGIONS.map((k) => `${k}:N`).join(', ')} take a count)` };
    }
    if (!/^[0-9]+$/.test(count)) return { ok: false, reason: `region "${text}": N must be a positive integer` };
    const rows = Number(count);
    if (rows < 1 || rows > MAX_REGION_ROWS) {
      return { ok: false, reason: `region "${text}": N must be between 1 and ${MAX_REGION_ROWS}` };
    }
    return { ok: true, spec: { kind: counted, rows } };
  }
  const simple = SIMPLE_REGIONS.find((k) => k === text);
  if (simple === undefined) {
    const counted = COUNTED_REGIONS.find((k) => k === text);
    if (counted !== undefined) return { ok: false, reason: `region "${text}" needs a row count, e.g. "${text}:10"` };
    return {
      ok: false,
      reason: `unknown region "${text}" (expected one of ${COUNTED_REGIONS.map((k) => `${k}:N`).join(', ')}, ${SIMPLE_REGIONS.join(', ')})`,
    };
  }
  return { ok: true, spec: { kind: simple } };
}

export function regionLabel(spec: RegionSpec): string {
  return 'rows' in spec ? `${spec.kind}:${spec.rows}` : spec.kind;
}

/** Everything a pack reads: the viewport plus the two virtual one-line regions. */
export interface PackInput {
  readonly screen: ScreenView;
  /** OSC 0/2 title; undefined when the agent never set one (the region is then empty). */
  readonly title: string | undefined;
  /** OSC 9;4 progress as text (see `progressText`); undefined when none was seen. */
  readonly progress: string | undefined;
}

/**
 * OSC 9;4 progress as the `osc_progress` region text: the state alone for 0 (removed) and 3
 * (indeterminate), where a value means nothing; `state;value` for 1 (normal), 2 (error) and
 * 4 (paused) when a value was sent. So `1;50`, `1;-1` (Grok), `3`, `0`.
 */
export function progressText(progress: ProgressEvidence | undefined): string | undefined {
  if (progress === undefined) return undefined;
  const showsValue = progress.state === 1 || progress.state === 2 || progress.state === 4;
  return showsValue && progress.value !== undefined ? `${progress.state};${progress.value}` : `${progress.state}`;
}

// --- screen structure -------------------------------------------------------------------------

/**
 * Character classes for rule detection, by char code (every glyph involved is below U+2600):
 * 1 = a horizontal line glyph (─ ━ ┄ ┅ ┈ ┉ ╌ ╍ ═, and ASCII - and = for plain TUIs),
 * 2 = a box corner (┌┐└┘┏┓┗┛╔╗╚╝╭╮╯╰: such a line is a box border, not a free-standing rule),
 * 3 = a space. A lookup table, because this runs on every row on every tick.
 */
const CHAR_CLASS = new Uint8Array(0x2600);
for (const code of [0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254c, 0x254d, 0x2550, 0x2d, 0x3d]) CHAR_CLASS[code] = 1;
for (const code of [0x250c, 0x2510, 0x2514, 0x2518, 0x250f, 0x2513, 0x2517, 0x251b, 0x2554, 0x2557, 0x255a, 0x255d, 0x256d, 0x256e, 0x256f, 0x2570]) {
  CHAR_CLASS[code] = 2;
}
for (const code of [0x20, 0x09, 0xa0]) CHAR_CLASS[code] = 3;
const BOX_TOP_LEFT = new Set(['╭', '┌', '╔', '┏']);
const BOX_BOTTOM_LEFT = new Set(['╰', '└', '╚', '┗']);
const BOX_SIDES = /^[\s│┃║]+|[\s│┃║]+$/g;
/** A rule needs this many line glyphs: short dashes in prose (`--flag`, `a - b`) are not rules. */
export const RULE_MIN_GLYPHS = 10;
/** …and they must be most of the line's visible characters, so a label inside the rule is allowed. */
const RULE_MIN_SHARE = 0.8;
/** Two rules further apart than this do not frame a prompt box (they are separators in output). */
export const RULE_BOX_MAX_BODY_ROWS = 20;

export function isBlank(line: string): boolean {
  return line.trim().length === 0;
}

/**
 * A rule line: no box corner, at least RULE_MIN_GLYPHS horizontal line glyphs, and those glyphs
 * are at least 80% of the row's non-space characters.
 */
export function isRuleLine(line: string): boolean {
  // Text rows bail out early, once non-glyphs exceed what the 80% share allows.
  if (line.length < RULE_MIN_GLYPHS) return false;
  const maxOther = line.length * (1 - RULE_MIN_SHARE);
  let glyphs = 0;
  let other = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    const kind = code < 0x2600 ? CHAR_CLASS[code] : 0;
    if (kind === 3) continue;
    if (kind === 1) glyphs++;
    else if (kind === 2) return false;
    else if (++other > maxOther) return false;
  }
  return glyphs >= RULE_MIN_GLYPHS && glyphs >= (glyphs + other) * RULE_MIN_SHARE;
}

function firstVisible(line: string): string | undefined {
  for (const ch of line) {
    if (ch !== ' ' && ch !== '\t' && ch !== '\u00a0') return ch;
  }
  return undefined;
}

/**
 * A prompt-caret line: after leading spaces (and a box side `│`, for carets drawn inside a
 * box), the row is exactly a caret glyph or starts with the glyph and a space.
 */
export function isPromptMarkerLine(line: string, carets: readonly string[]): boolean {
  const rest = line.replace(/^[\s│┃║]+/, '');
  for (const caret of carets) {
    if (rest === caret) return true;
    if (rest.startsWith(caret)) {
      const next = rest.charAt(caret.length);
      if (next === ' ' || next === '\u00a0') return true;
    }
  }
  return false;
}

/** Rows [top, bottom] of the prompt box (both borders included) and how the body is read. */
export interface PromptBox {
  readonly top: number;
  readonly bottom: number;
  readonly form: 'box' | 'rules';
}

/** Screen structure shared by several regions, computed lazily once per evaluation. */
export interface ScreenAnalysis {
  promptBox(): PromptBox | undefined;
  lastRuleRow(): number | undefined;
  lastPromptMarkerRow(): number | undefined;
}

function findBoxForm(rows: readonly string[]): PromptBox | undefined {
  // The last top-left corner that a bottom-left corner closes further down.
  for (let top = rows.length - 1; top >= 0; top--) {
    const first = firstVisible(rows[top] ?? '');
    if (first === undefined || !BOX_TOP_LEFT.has(first)) continue;
    for (let bottom = top + 1; bottom < rows.length; bottom++) {
      const b = firstVisible(rows[bottom] ?? '');
      if (b !== undefined && BOX_BOTTOM_LEFT.has(b)) return { top, bottom, form: 'box' };
      if (b !== undefined && BOX_TOP_LEFT.has(b)) break;
    }
  }
  return undefined;
}

function findRulesForm(rows: readonly string[], ruleRows: readonly number[]): PromptBox | undefined {
  // The lowest pair of rule lines with at least one row between them (Claude Code draws its
  // input line between two full-width rules).
  for (let i = ruleRows.length - 1; i >= 1; i--) {
    const bottom = ruleRows[i];
    const top = ruleRows[i - 1];
    if (bottom === undefined || top === undefined) continue;
    const body = bottom - top - 1;
    if (body >= 1 && body <= RULE_BOX_MAX_BODY_ROWS) return { top, bottom, form: 'rules' };
  }
  return undefined;
}

export function analyzeScreen(rows: readonly string[], carets: readonly string[]): ScreenAnalysis {
  let ruleRows: number[] | undefined;
  let box: PromptBox | undefined | null = null;
  let caretRow: number | undefined | null = null;
  const rules = (): number[] => {
    if (ruleRows === undefined) {
      ruleRows = [];
      for (let i = 0; i < rows.length; i++) if (isRuleLine(rows[i] ?? '')) ruleRows.push(i);
    }
    return ruleRows;
  };
  return {
    promptBox() {
      if (box === null) {
        const boxed = findBoxForm(rows);
        const ruled = findRulesForm(rows, rules());
        // Both forms on one screen: the lower one is the live input (the other is history).
        if (boxed === undefined) box = ruled;
        else if (ruled === undefined) box = boxed;
        else box = ruled.bottom > boxed.bottom ? ruled : boxed;
      }
      return box;
    },
    lastRuleRow() {
      const all = rules();
      return all.length === 0 ? undefined : all[all.length - 1];
    },
    lastPromptMarkerRow() {
      if (caretRow === null) {
        caretRow = undefined;
        if (carets.length > 0) {
          for (let i = rows.length - 1; i >= 0; i--) {
            if (isPromptMarkerLine(rows[i] ?? '', carets)) {
              caretRow = i;
              break;
            }
          }
        }
      }
      return caretRow;
    },
  };
}

/** The lines of one region. Never throws; a region that does not exist on this screen is empty. */
export function extractRegion(spec: RegionSpec, input: PackInput, analysis: ScreenAnalysis): readonly string[] {
  const rows = input.screen.rows;
  switch (spec.kind) {
    case 'bottom':
      return rows.slice(Math.max(0, rows.length - spec.rows));
    case 'top':
      return rows.slice(0, spec.rows);
    case 'bottom_nonempty': {
      const out: string[] = [];
      for (let i = rows.length - 1; i >= 0 && out.length < spec.rows; i--) {
        const line = rows[i] ?? '';
        if (!isBlank(line)) out.push(line);
      }
      return out.reverse();
    }
    case 'screen':
      return rows;
    case 'cursor_line': {
      const line = rows[input.screen.cursorRow];
      return line === undefined ? [] : [line];
    }
    case 'prompt_box_body': {
      const box = analysis.promptBox();
      if (box === undefined) return [];
      const body = rows.slice(box.top + 1, box.bottom);
      return box.form === 'box' ? body.map((line) => line.replace(BOX_SIDES, '')) : body;
    }
    case 'above_prompt_box': {
      const box = analysis.promptBox();
      return box === undefined ? rows : rows.slice(0, box.top);
    }
    case 'after_last_rule': {
      const row = analysis.lastRuleRow();
      return row === undefined ? rows : rows.slice(row + 1);
    }
    case 'last_nonempty_line': {
      for (let i = rows.length - 1; i >= 0; i--) {
        const line = rows[i] ?? '';
        if (!isBlank(line)) return [line];
      }
      return [];
    }
    case 'last_prompt_marker': {
      const row = analysis.lastPromptMarkerRow();
      const line = row === undefined ? undefined : rows[row];
      return line === undefined ? [] : [line];
    }
    case 'after_last_prompt_marker': {
      const row = analysis.lastPromptMarkerRow();
      return row === undefined ? [] : rows.slice(row + 1);
    }
    case 'before_current_prompt_marker': {
      const row = analysis.lastPromptMarkerRow();
      return row === undefined ? rows : rows.slice(0, row);
    }
    case 'osc_title':
      return input.title === undefined ? [] : [input.title];
    case 'osc_progress':
      return input.progress === undefined ? [] : [input.progress];
    default: {
      const never: never = spec;
      return never;
    }
  }
}
