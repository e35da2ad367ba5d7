/**
 * The pack registry: bundled packs first, then the user pack directory, a later pack replacing
 * an earlier one for the same `agent`. Failure is contained per file: a bad user pack is skipped
 * with a note naming file, line and rule, and whatever it would have replaced stays live, so one
 * typo never takes detection dark. Bundled packs are the floor.
 *
 * Hot reload: `refresh(nowMs)` is called from the session tick; at most once per
 * RELOAD_CHECK_INTERVAL_MS it stats the user directory and re-reads only files whose mtime or
 * size changed. An edit that breaks a pack keeps the last good version live, with a warning.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { BUNDLED_PACKS_DIR, userPacksDir } from '../adapters/paths.js';
import { sha256Hex } from '../adapters/crypto-on-demand.js';
import { describeReadFailure, FileTooLargeError, readRegularTextFileSync } from '../adapters/bounded-file.js';
import { PACK_LIMITS } from '../core/packs/types.js';
import { evaluatePack } from '../core/packs/evaluate.js';
import { checkFixture, fixtureInput, parseFixture, parseFixtureName } from '../core/packs/fixture.js';
import { compilePack, PackCompileError, type CompiledPack } from '../core/packs/compile.js';
import { compileIssue } from '../core/packs/lines.js';
import { formatPackIssue, parsePack, type PackIssue } from '../core/packs/schema.js';

/** Stat the user pack directory at most this often: an edit shows up within a second or two. */
export const RELOAD_CHECK_INTERVAL_MS = 1000;
/** Notes kept for explain; older ones drop off so a flapping file cannot grow memory. */
const MAX_NOTES = 50;

/** The bundled demo agent's pack (packs/demo.toml): `agentwrap demo` runs it; no agent CLI is found by it. */
export const DEMO_PACK_AGENT = 'demo';

export type PackOrigin = 'bundled' | 'user';

export interface LoadedPack {
  readonly agent: string;
  readonly origin: PackOrigin;
  readonly path: string;
  readonly compiled: CompiledPack;
  /** Non-fatal issues: rules skipped for a newer engine. */
  readonly warnings: readonly PackIssue[];
  /**
   * The first 16 hex digits of the file's SHA-256: a recording names the pack it was made with.
   * Computed when first read (withLazyDigest), as only a recording or a replay reads it.
   */
  readonly digest?: string;
}

/** What happened to one pack file, for `packs list`. */
export type PackFileStatus =
  | 'live'
  /** valid, but a later pack for the same agent replaced it */
  | 'replaced'
  | 'invalid'
  | 'needs-newer-engine'
  /** the file is broken now; its last good version stays live */
  | 'stale';

export interface PackFileEntry {
  readonly path: string;
  readonly origin: PackOrigin;
  readonly status: PackFileStatus;
  /** The pack in use for this file (for `stale`, the last good version). */
  readonly pack: LoadedPack | undefined;
  readonly agent: string | undefined;
  /** Errors, warnings and the engine note, each formatted `FILE:LINE: rule ID: reason`. */
  readonly problems: readonly string[];
}

export interface PackRegistryOptions {
  readonly bundledDir: string | undefined;
  readonly userDir: string | undefined;
  /**
   * Read only the pack files whose text contains this word (a live session's agent or command
   * name: its pack must name it, in `agent` or `commands`); the others are left unparsed and
   * unlisted. Parsing and compiling every bundled pack was a 60-77 ms block right after the
   * spawn, on the cores the agent's own start-up needs. (A name spelled with TOML escapes
   * would be missed; no pack does that.)
   */
  readonly mentioning?: string | undefined;
}

interface FileState {
  readonly path: string;
  readonly origin: PackOrigin;
  readonly mtimeMs: number;
  readonly size: number;
  readonly good: LoadedPack | undefined;
  readonly status: Exclude<PackFileStatus, 'live' | 'replaced'> | 'ok';
  readonly agent: string | undefined;
  readonly problems: readonly string[];
}

/**
 * A pack file's text: a regular file (a FIFO in the packs folder would hang every command that
 * loads packs), at most the pack size limit. Throws bounded-file's errors or the fs error.
 */
export function readPackText(path: string): string {
  return readRegularTextFileSync(path, PACK_LIMITS.maxPackBytes);
}

/** One line for a pack that could not be read, in the schema's words for an oversized one. */
export function describePackReadFailure(error: unknown): string {
  if (error instanceof FileTooLargeError) return `pack is ${error.size} bytes, more than the limit of ${error.maxBytes}`;
  const failure = describeReadFailure(error);
  return failure.startsWith('cannot read') ? failure.replace('cannot read', 'cannot read pack') : `pack file ${failure}`;
}

/** Reads and validates one pack file. Never throws; every failure becomes problems. */
export function loadPackFile(path: string, origin: PackOrigin): {
  pack: LoadedPack | undefined;
  status: 'ok' | 'invalid' | 'needs-newer-engine';
  agent: string | undefined;
  problems: string[];
  issues: PackIssue[];
} {
  let text: string;
  try {
    text = readPackText(path);
  } catch (error) {
    const issue: PackIssue = { path, line: undefined, ruleId: undefined, message: describePackReadFailure(error) };
    return { pack: undefined, status: 'invalid', agent: undefined, problems: [formatPackIssue(issue)], issues: [issue] };
  }
  const result = parsePack(text, path);
  switch (result.kind) {
    case 'invalid':
      return { pack: undefined, status: 'invalid', agent: result.agent, problems: result.errors.map(formatPackIssue), issues: [...result.errors] };
    case 'needs-newer-engine':
      return { pack: undefined, status: 'needs-newer-engine', agent: result.agent, problems: [formatPackIssue(result.issue)], issues: [result.issue] };
    case 'ok':
      try {
        const compiled = compilePack(result.pack);
        return {
          pack: withLazyDigest({ agent: result.pack.agent, origin, path, compiled, warnings: result.warnings }, text),
          status: 'ok',
          agent: result.pack.agent,
          problems: result.warnings.map(formatPackIssue),
          issues: [...result.warnings],
        };
      } catch (error) {
        const ruleId = error instanceof PackCompileError ? error.ruleId : undefined;
        const issue: PackIssue = { ...compileIssue(path, text, error), ruleId };
        return { pack: undefined, status: 'invalid', agent: result.pack.agent, problems: [formatPackIssue(issue)], issues: [issue] };
      }
    default: {
      const never: never = result;
      return never;
    }
  }
}

export function packDigest(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** The pack with `digest` as an enumerable getter that hashes `text` on first read and keeps the result. */
function withLazyDigest(pack: Omit<LoadedPack, 'digest'>, text: string): LoadedPack {
  let digest: string | undefined;
  return Object.defineProperty(pack, 'digest', { enumerable: true, get: () => (digest ??= packDigest(text)) });
}

/** `*.toml` files of a directory, sorted by name (the load order within one layer). */
export function listPackFiles(dir: string | undefined): { files: string[]; error: string | undefined } {
  if (dir === undefined) return { files: [], error: undefined };
  try {
    const names = readdirSync(dir).filter((name) => name.endsWith('.toml') && !name.startsWith('.'));
    names.sort();
    return { files: names.map((name) => join(dir, name)), error: undefined };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing user directory is the normal case (nobody wrote a pack yet), not a problem.
    if (code === 'ENOENT') return { files: [], error: undefined };
    return { files: [], error: `cannot read pack directory ${dir}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function statKey(path: string): { mtimeMs: number; size: number } | undefined {
  try {
    const st = statSync(path);
    return { mtimeMs: st.mtimeMs, size: st.size };
  } catch {
    // Deleted between readdir and stat: treated as gone; the next check sees the new listing.
    return undefined;
  }
}

function isPresent(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // Unreadable (EACCES on a parent, ENOTDIR): present in some form; the listing says what is wrong.
    return true;
  }
}

/** Whether the file's text contains `word`; an unreadable file does (loadPackFile says why). */
function mentions(path: string, word: string): boolean {
  try {
    return readPackText(path).includes(word);
  } catch {
    return true;
  }
}

export class PackRegistry {
  private readonly bundledDir: string | undefined;
  private readonly userDir: string | undefined;
  private readonly mentioning: string | undefined;
  private files: FileState[] = [];
  private live = new Map<string, LoadedPack>();
  private readonly noteList: string[] = [];
  private droppedNotes = 0;
  private lastCheckMs: number | undefined;

  private constructor(options: PackRegistryOptions) {
    this.bundledDir = options.bundledDir === undefined ? undefined : resolve(options.bundledDir);
    this.userDir = options.userDir === undefined ? undefined : resolve(options.userDir);
    this.mentioning = options.mentioning;
  }

  /** Loads both layers now. Never throws: every problem becomes a note. */
  static load(options: PackRegistryOptions): PackRegistry {
    const registry = new PackRegistry(options);
    const bundled = listPackFiles(registry.bundledDir);
    const user = listPackFiles(registry.userDir);
    for (const error of [bundled.error, user.error]) if (error !== undefined) registry.note(error);
    registry.files = [
      ...bundled.files.map((path) => registry.readFile(path, 'bundled', undefined)),
      ...user.files.map((path) => registry.readFile(path, 'user', undefined)),
    ];
    registry.rebuild();
    return registry;
  }

  /** The live pack for an agent name (`claude`), after layering. */
  packForAgent(agent: string): LoadedPack | undefined {
    return this.live.get(agent);
  }

  /**
   * The live pack whose `commands` lists this executable basename (`claude`, `agent.js`).
   * A user pack wins over a bundled one claiming the same command.
   */
  packForCommand(command: string): LoadedPack | undefined {
    const name = basename(command);
    let found: LoadedPack | undefined;
    for (const pack of this.live.values()) {
      if (!pack.compiled.pack.commands.includes(name)) continue;
      if (found === undefined || (found.origin === 'bundled' && pack.origin === 'user')) found = pack;
    }
    return found;
  }

  /** Live packs, sorted by agent. */
  packs(): readonly LoadedPack[] {
    return [...this.live.values()].sort((a, b) => a.agent.localeCompare(b.agent));
  }

  /** Every pack file seen, in load order, with what became of it. */
  entries(): readonly PackFileEntry[] {
    return this.files.map((file) => {
      const isLive = file.good !== undefined && this.live.get(file.good.agent) === file.good;
      let status: PackFileStatus;
      if (file.status === 'ok') status = isLive ? 'live' : 'replaced';
      else if (file.status === 'stale') status = isLive ? 'stale' : 'replaced';
      else status = file.status;
      return { path: file.path, origin: file.origin, status, pack: file.good, agent: file.agent, problems: file.problems };
    });
  }

  /** Load and reload messages, oldest first (bounded). */
  notes(): readonly string[] {
    return this.noteList;
  }

  /**
   * Notes added since position `from` of the registry's whole note history, and the position to
   * pass next time. Notes that already dropped off the bounded list are skipped.
   */
  notesSince(from: number): { notes: readonly string[]; next: number } {
    const next = this.droppedNotes + this.noteList.length;
    return { notes: this.noteList.slice(Math.max(0, from - this.droppedNotes)), next };
  }

  get userPacksDir(): string | undefined {
    return this.userDir;
  }

  /**
   * Re-reads changed user packs, at most once per RELOAD_CHECK_INTERVAL_MS. Returns the agents
   * whose live pack changed (empty when nothing did, or when it was too soon to look).
   */
  refresh(nowMs: number): readonly string[] {
    if (this.lastCheckMs !== undefined && nowMs - this.lastCheckMs < RELOAD_CHECK_INTERVAL_MS) return [];
    this.lastCheckMs = nowMs;
    if (this.userDir === undefined) return [];
    // The common case, checked without listing: no user directory now and no user pack before.
    // (A stat that says "absent" costs one syscall; a listing that throws ENOENT builds an Error
    // with its stack every second, a visible share of an idle session's CPU.)
    if (!this.files.some((f) => f.origin === 'user') && !isPresent(this.userDir)) return [];
    const listing = listPackFiles(this.userDir);
    if (listing.error !== undefined) return [];
    const previous = new Map(this.files.filter((f) => f.origin === 'user').map((f) => [f.path, f]));
    let changed = previous.size !== listing.files.length;
    const userFiles: FileState[] = [];
    for (const path of listing.files) {
      const before = previous.get(path);
      const now = statKey(path);
      if (now === undefined) {
        changed = true;
        continue;
      }
      if (before !== undefined && before.mtimeMs === now.mtimeMs && before.size === now.size) {
        userFiles.push(before);
        continue;
      }
      changed = true;
      userFiles.push(this.readFile(path, 'user', before));
    }
    if (!changed) return [];
    const oldLive = this.live;
    this.files = [...this.files.filter((f) => f.origin === 'bundled'), ...userFiles];
    this.rebuild();
    const agents = new Set([...oldLive.keys(), ...this.live.keys()]);
    return [...agents].filter((agent) => oldLive.get(agent) !== this.live.get(agent)).sort();
  }

  private readFile(path: string, origin: PackOrigin, before: FileState | undefined): FileState {
    const key = statKey(path) ?? { mtimeMs: 0, size: 0 };
    // A file that held a pack is read in full whatever it says now: a broken edit keeps the last
    // good version live, even one that cut the agent's name.
    if (this.mentioning !== undefined && before?.good === undefined && !mentions(path, this.mentioning)) {
      return { path, origin, ...key, good: undefined, status: 'ok', agent: undefined, problems: [] };
    }
    const loaded = loadPackFile(path, origin);
    if (loaded.pack !== undefined) {
      if (before !== undefined) this.note(`reloaded ${path} (agent ${loaded.pack.agent})`);
      for (const warning of loaded.problems) this.note(warning);
      return { path, origin, ...key, good: loaded.pack, status: 'ok', agent: loaded.agent, problems: loaded.problems };
    }
    const lastGood = before?.good;
    if (lastGood !== undefined && loaded.status === 'invalid') {
      this.note(`${path} is invalid after an edit; keeping the last good version live`);
      for (const problem of loaded.problems) this.note(problem);
      return { path, origin, ...key, good: lastGood, status: 'stale', agent: lastGood.agent, problems: loaded.problems };
    }
    this.note(loaded.status === 'needs-newer-engine' ? `skipped ${path}: needs a newer agentwrap` : `skipped ${path}: invalid pack`);
    for (const problem of loaded.problems) this.note(problem);
    return { path, origin, ...key, good: undefined, status: loaded.status, agent: loaded.agent, problems: loaded.problems };
  }

  private rebuild(): void {
    const live = new Map<string, LoadedPack>();
    for (const file of this.files) {
      if (file.good === undefined) continue;
      const earlier = live.get(file.good.agent);
      if (earlier !== undefined && earlier.origin === file.origin) {
        this.note(`${file.path} replaces ${earlier.path} for agent ${file.good.agent} (same directory; later file name wins)`);
      }
      live.set(file.good.agent, file.good);
    }
    this.live = live;
  }

  private note(message: string): void {
    this.noteList.push(message);
    if (this.noteList.length > MAX_NOTES) {
      const excess = this.noteList.length - MAX_NOTES;
      this.noteList.splice(0, excess);
      this.droppedNotes += excess;
    }
  }
}

/**
 * A per-tick pack lookup for a running session (matches session.ts `PackSource`): checks the user
 * directory for edits (rate-limited by `refresh`) and returns the live pack, so an edited user
 * pack takes effect without a restart. Reports each reload or kept-last-good once via `onNote`.
 */
export function livePackSource(
  registry: PackRegistry,
  select: { readonly agent: string } | { readonly command: string },
  onNote?: (message: string) => void,
): (nowMs: number) => LoadedPack | undefined {
  let cursor = registry.notesSince(0).next;
  const lookup = (): LoadedPack | undefined =>
    'agent' in select ? registry.packForAgent(select.agent) : registry.packForCommand(select.command);
  // The live packs change only when a refresh says so; until then every tick gets the same answer.
  let current = lookup();
  return (nowMs) => {
    if (registry.refresh(nowMs).length > 0) current = lookup();
    const fresh = registry.notesSince(cursor);
    if (fresh.next !== cursor) {
      cursor = fresh.next;
      if (onNote !== undefined) for (const note of fresh.notes) onNote(note);
    }
    return current;
  };
}

/** The registry as agentwrap uses it: bundled `packs/`, then the user pack directory from `env`. */
export function loadDefaultRegistry(env: NodeJS.ProcessEnv, mentioning?: string): PackRegistry {
  return PackRegistry.load({ bundledDir: BUNDLED_PACKS_DIR, userDir: userPacksDir(env), mentioning });
}

// --- fixture sweep (shared by `packs test` and test/core/packs/fixtures.test.ts) ----------------

export interface FixtureResult {
  /** Path relative to the fixtures root, e.g. `demo/working_spinner.txt`. */
  readonly name: string;
  readonly path: string;
  readonly agent: string;
  readonly passed: boolean;
  /** One line: what was wanted and what the pack said, or why the fixture could not run. */
  readonly summary: string;
}

/**
 * Runs every `<root>/<agent>/*.txt` fixture (or `<root>/*.txt` when root is one agent's
 * directory) against `packFor(agent)`. A `.txt` whose name breaks the convention fails rather
 * than being silently skipped, so a typo in a name cannot hide a fixture.
 */
export function sweepFixtures(root: string, packFor: (agent: string) => CompiledPack | undefined): FixtureResult[] {
  const results: FixtureResult[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (error) {
    throw new Error(`cannot read fixtures directory ${root}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const groups: { agent: string; dir: string; prefix: string }[] = entries.some((e) => e.isFile() && e.name.endsWith('.txt'))
    ? [{ agent: basename(root), dir: root, prefix: '' }]
    : entries.filter((e) => e.isDirectory()).map((e) => ({ agent: e.name, dir: join(root, e.name), prefix: `${e.name}/` }));
  groups.sort((a, b) => a.agent.localeCompare(b.agent));
  for (const group of groups) {
    const names = readdirSync(group.dir).filter((n) => n.endsWith('.txt')).sort();
    const compiled = packFor(group.agent);
    for (const fileName of names) {
      const path = join(group.dir, fileName);
      const name = `${group.prefix}${fileName}`;
      const expectation = parseFixtureName(fileName);
      if (expectation === undefined) {
        results.push({ name, path, agent: group.agent, passed: false, summary: 'name must be <working|blocked|idle|false_positive>_<slug>.txt' });
        continue;
      }
      if (compiled === undefined) {
        results.push({ name, path, agent: group.agent, passed: false, summary: `no live pack for agent ${group.agent}` });
        continue;
      }
      const fixture = parseFixture(readFileSync(path, 'utf8'));
      const verdict = evaluatePack(compiled, fixtureInput(fixture));
      const check = checkFixture(expectation.expected, fixture, verdict);
      const said = `${check.got}${check.ruleId === undefined ? '' : ` (rule ${check.ruleId})`}`;
      const problems = check.problems.length === 0 ? '' : `; ${check.problems.join('; ')}`;
      results.push({
        name,
        path,
        agent: group.agent,
        passed: check.passed,
        summary: check.passed ? `${check.wanted}: ${said}` : `wanted ${check.wanted}, got ${said}${problems}`,
      });
    }
  }
  return results;
}
