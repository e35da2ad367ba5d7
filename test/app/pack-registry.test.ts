import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { livePackSource, PackRegistry, RELOAD_CHECK_INTERVAL_MS } from '../../src/app/pack-registry.js';
import { packToml } from '../helpers/pack-toml.js';

function rule(id: string, needle: string): string {
  return `[[rule]]\nid = "${id}"\nstate = "working"\nregion = "screen"\nrequires_all = ["${needle}"]`;
}

let root: string;
let bundled: string;
let user: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agentwrap-registry-'));
  bundled = join(root, 'bundled');
  user = join(root, 'user');
  mkdirSync(bundled);
  mkdirSync(user);
  writeFileSync(join(bundled, 'claude.toml'), packToml(rule('bundled-rule', 'x'), { agent: 'claude', commands: '["claude"]' }));
  writeFileSync(join(bundled, 'codex.toml'), packToml(rule('codex-rule', 'x'), { agent: 'codex', commands: '["codex"]' }));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes a file and pushes its mtime forward, so a same-millisecond rewrite still looks edited. */
function edit(path: string, text: string, secondsLater: number): void {
  writeFileSync(path, text);
  const at = new Date(Date.now() + secondsLater * 1000);
  utimesSync(path, at, at);
}

function ruleIds(registry: PackRegistry, agent: string): string[] {
  return registry.packForAgent(agent)?.compiled.rules.map((r) => r.rule.id) ?? [];
}

describe('PackRegistry.load', () => {
  it('loads bundled packs and finds them by agent and by command', () => {
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    expect(registry.packs().map((p) => p.agent)).toEqual(['claude', 'codex']);
    expect(registry.packForCommand('/usr/local/bin/codex')?.agent).toBe('codex');
    expect(registry.packForCommand('vim')).toBeUndefined();
  });

  it('a user pack replaces the bundled pack for the same agent', () => {
    writeFileSync(join(user, 'mine.toml'), packToml(rule('user-rule', 'x'), { agent: 'claude', commands: '["claude"]' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    expect(registry.packForAgent('claude')?.origin).toBe('user');
    expect(ruleIds(registry, 'claude')).toEqual(['user-rule']);
    expect(registry.entries().map((e) => [e.origin, e.status])).toEqual([
      ['bundled', 'replaced'],
      ['bundled', 'live'],
      ['user', 'live'],
    ]);
  });

  it('a bad user pack is skipped with a note naming file, line and rule; the bundled one stays live', () => {
    const bad = join(user, 'claude.toml');
    writeFileSync(bad, packToml(`${rule('broken', 'x')}\nregex = ['(?<=a)b']`, { agent: 'claude' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    expect(registry.packForAgent('claude')?.origin).toBe('bundled');
    expect(registry.notes()).toContain(`skipped ${bad}: invalid pack`);
    expect(registry.notes()).toContainEqual(expect.stringMatching(new RegExp(`^${bad}:12: rule broken: regex: regex '\\(\\?<=a\\)b' uses look-behind`)));
    expect(registry.entries().find((e) => e.path === bad)?.status).toBe('invalid');
  });

  it('a pack needing a newer engine is skipped with a note', () => {
    const future = join(user, 'claude.toml');
    writeFileSync(future, packToml(rule('r', 'x'), { agent: 'claude', extra: 'min_engine_version = 99' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    expect(registry.packForAgent('claude')?.origin).toBe('bundled');
    expect(registry.entries().find((e) => e.path === future)?.status).toBe('needs-newer-engine');
    expect(registry.notes()).toContain(`skipped ${future}: needs a newer agentwrap`);
  });

  it('a user pack for a new agent adds it, and its commands select it', () => {
    writeFileSync(join(user, 'kimi.toml'), packToml(rule('k', 'x'), { agent: 'kimi', commands: '["kimi", "kimi-cli"]' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    expect(registry.packForCommand('kimi-cli')?.agent).toBe('kimi');
  });

  it('a missing user directory is fine', () => {
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: join(root, 'nope') });

    expect(registry.packs()).toHaveLength(2);
    expect(registry.notes()).toEqual([]);
  });
});

describe('PackRegistry.load for one agent (mentioning)', () => {
  it('reads only the packs that name it: the others are neither listed nor parsed', () => {
    const broken = join(user, 'other.toml');
    writeFileSync(broken, packToml(`${rule('broken', 'x')}\nregex = ['(?<=a)b']`, { agent: 'claude' }));
    writeFileSync(join(user, 'mine.toml'), packToml(rule('user-rule', 'x'), { agent: 'codex', commands: '["codex"]' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user, mentioning: 'codex' });

    expect(registry.packs().map((p) => [p.agent, p.origin])).toEqual([['codex', 'user']]);
    expect(ruleIds(registry, 'codex')).toEqual(['user-rule']);
    // The broken claude pack was never parsed: no note about it.
    expect(registry.notes()).toEqual([]);
  });

  it('finds a pack by a command it lists under another agent name', () => {
    writeFileSync(join(user, 'kimi.toml'), packToml(rule('k', 'x'), { agent: 'kimi', commands: '["kimi", "kimi-cli"]' }));

    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user, mentioning: 'kimi-cli' });

    expect(registry.packForCommand('kimi-cli')?.agent).toBe('kimi');
    expect(registry.packs().map((p) => p.agent)).toEqual(['kimi']);
  });

  it('hot reload keeps the filter: an edited pack that now names the agent is picked up', () => {
    const mine = join(user, 'mine.toml');
    writeFileSync(mine, packToml(rule('r', 'x'), { agent: 'claude', commands: '["claude"]' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user, mentioning: 'codex' });
    expect(registry.packForAgent('claude')).toBeUndefined();

    edit(mine, packToml(rule('mine-codex', 'x'), { agent: 'codex', commands: '["codex"]' }), 5);

    expect(registry.refresh(0)).toEqual(['codex']);
    expect(ruleIds(registry, 'codex')).toEqual(['mine-codex']);
  });

  it('an edit that breaks a live pack and cuts the name keeps the last good version live', () => {
    const mine = join(user, 'mine.toml');
    writeFileSync(mine, packToml(rule('mine-codex', 'x'), { agent: 'codex', commands: '["codex"]' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user, mentioning: 'codex' });

    edit(mine, '[[rule', 5);
    registry.refresh(0);

    expect(ruleIds(registry, 'codex')).toEqual(['mine-codex']);
    expect(registry.notes()).toContain(`${mine} is invalid after an edit; keeping the last good version live`);
  });
});

describe('PackRegistry.refresh (hot reload)', () => {
  it('picks up an edited user pack', () => {
    const path = join(user, 'claude.toml');
    writeFileSync(path, packToml(rule('v1', 'x'), { agent: 'claude' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    edit(path, packToml(rule('v2', 'x'), { agent: 'claude' }), 5);
    const changed = registry.refresh(10_000);

    expect(changed).toEqual(['claude']);
    expect(ruleIds(registry, 'claude')).toEqual(['v2']);
  });

  it('looks at the directory at most once per interval', () => {
    const path = join(user, 'claude.toml');
    writeFileSync(path, packToml(rule('v1', 'x'), { agent: 'claude' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });
    registry.refresh(10_000);

    edit(path, packToml(rule('v2', 'x'), { agent: 'claude' }), 5);

    expect(registry.refresh(10_000 + RELOAD_CHECK_INTERVAL_MS - 1)).toEqual([]);
    expect(ruleIds(registry, 'claude')).toEqual(['v1']);
    expect(registry.refresh(10_000 + RELOAD_CHECK_INTERVAL_MS)).toEqual(['claude']);
    expect(ruleIds(registry, 'claude')).toEqual(['v2']);
  });

  it('an edit to garbage keeps the last good version live, with a warning', () => {
    const path = join(user, 'claude.toml');
    writeFileSync(path, packToml(rule('good', 'x'), { agent: 'claude' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });

    edit(path, 'this is [not toml', 5);
    const changed = registry.refresh(10_000);

    expect(changed).toEqual([]);
    expect(ruleIds(registry, 'claude')).toEqual(['good']);
    expect(registry.entries().find((e) => e.path === path)?.status).toBe('stale');
    expect(registry.notes()).toContain(`${path} is invalid after an edit; keeping the last good version live`);
  });

  it('a new user file is picked up and a deleted one gives the bundled pack back', () => {
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });
    const path = join(user, 'claude.toml');

    writeFileSync(path, packToml(rule('added', 'x'), { agent: 'claude' }));
    expect(registry.refresh(10_000)).toEqual(['claude']);
    expect(registry.packForAgent('claude')?.origin).toBe('user');

    rmSync(path);
    expect(registry.refresh(20_000)).toEqual(['claude']);
    expect(registry.packForAgent('claude')?.origin).toBe('bundled');
  });

  it('a user directory created after start is picked up, and its removal gives the bundled pack back', () => {
    const later = join(root, 'later');
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: later });
    const quiet = registry.refresh(10_000);

    mkdirSync(later);
    writeFileSync(join(later, 'claude.toml'), packToml(rule('added', 'x'), { agent: 'claude' }));
    const added = registry.refresh(20_000);
    const origin = registry.packForAgent('claude')?.origin;
    rmSync(later, { recursive: true });
    const removed = registry.refresh(30_000);

    expect([quiet, added, origin, removed]).toEqual([[], ['claude'], 'user', ['claude']]);
    expect(registry.packForAgent('claude')?.origin).toBe('bundled');
  });

  it('reports nothing when nothing changed', () => {
    writeFileSync(join(user, 'claude.toml'), packToml(rule('v1', 'x'), { agent: 'claude' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });
    const before = registry.packForAgent('claude');

    expect(registry.refresh(10_000)).toEqual([]);
    expect(registry.packForAgent('claude')).toBe(before);
  });
});

describe('livePackSource', () => {
  it('returns the live pack each tick and passes reload notes on once', () => {
    const path = join(user, 'claude.toml');
    writeFileSync(path, packToml(rule('v1', 'x'), { agent: 'claude', commands: '["claude"]' }));
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });
    const notes: string[] = [];
    const source = livePackSource(registry, { command: 'claude' }, (n) => notes.push(n));

    expect(source(0)?.compiled.rules[0]?.rule.id).toBe('v1');
    edit(path, packToml(rule('v2', 'x'), { agent: 'claude', commands: '["claude"]' }), 5);

    expect(source(RELOAD_CHECK_INTERVAL_MS)?.compiled.rules[0]?.rule.id).toBe('v2');
    expect(notes).toEqual([`reloaded ${path} (agent claude)`]);
    expect(source(2 * RELOAD_CHECK_INTERVAL_MS)?.compiled.rules[0]?.rule.id).toBe('v2');
    expect(notes).toHaveLength(1);
  });

  it('finds a pack for its command that a user adds while the session runs, and loses it when removed', () => {
    const registry = PackRegistry.load({ bundledDir: bundled, userDir: user });
    const source = livePackSource(registry, { command: 'newcli' });
    const before = source(0);
    const path = join(user, 'newagent.toml');

    writeFileSync(path, packToml(rule('n1', 'x'), { agent: 'newagent', commands: '["newcli"]' }));
    const added = source(RELOAD_CHECK_INTERVAL_MS)?.agent;
    rmSync(path);
    const removed = source(2 * RELOAD_CHECK_INTERVAL_MS);

    expect([before, added, removed]).toEqual([undefined, 'newagent', undefined]);
  });
});
