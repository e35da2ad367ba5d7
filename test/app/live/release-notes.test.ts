/**
 * A release newer than its pack's span is said once per release, an older one every session:
 * a fake `showcase` CLI (versioned by its package.json, as an npm-installed agent is) wrapped by
 * the built agentwrap in a real pty, with the showcase pack as the user's pack.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, openOuterTerminal, REPO_ROOT, shellQuote } from '../../helpers/pty-outer.js';
import { isFirstMention } from '../../../src/app/live/release-notes.js';

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'aw-release-notes-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** Installs `showcase` at `version` the way npm would: a bin symlink into its package. */
function installShowcase(version: string): string {
  const bin = join(home, `bin-${version}`);
  if (existsSync(bin)) return bin;
  const pkg = join(bin, 'node_modules', 'showcase');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'showcase', version }));
  writeFileSync(join(pkg, 'cli.sh'), '#!/bin/sh\necho "showcase ready"\nsleep 0.3\n', { mode: 0o755 });
  symlinkSync(join(pkg, 'cli.sh'), join(bin, 'showcase'));
  return bin;
}

async function wrapShowcase(bin: string): Promise<string> {
  const packs = join(home, 'packs');
  mkdirSync(packs, { recursive: true });
  cpSync(join(REPO_ROOT, 'test/fixtures-packs/showcase/showcase.toml'), join(packs, 'showcase.toml'));
  const env = {
    HOME: home,
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CONFIG_HOME: join(home, 'config'),
    AGENTWRAP_PACKS: packs,
    AGENT_STATUS_DIR: join(home, 'status'),
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
  };
  const outer = openOuterTerminal(`node ${shellQuote(CLI)} showcase; echo "exit=$?"`, { env });
  await outer.waitFor(/exit=\d+/, 20_000);
  return outer.output();
}

describe('the version note', () => {
  it('says a newer release once, then not again for that release, and again for the next one', async () => {
    const first = await wrapShowcase(installShowcase('3.0.0'));
    const second = await wrapShowcase(installShowcase('3.0.0'));
    const next = await wrapShowcase(installShowcase('3.0.1'));

    expect(first).toContain('showcase 3.0.0 is newer than the releases its pack was checked on');
    expect(first).toContain('(said once for this release)');
    expect(second).toContain('showcase ready');
    expect(second).not.toContain('newer than the releases');
    expect(next).toContain('showcase 3.0.1 is newer than the releases');
    expect(statSync(join(home, 'state', 'agentwrap', 'noted-releases')).mode & 0o777).toBe(0o600);
  });

  it('warns about an older release in every session', async () => {
    const first = await wrapShowcase(installShowcase('0.5.0'));
    const second = await wrapShowcase(installShowcase('0.5.0'));

    for (const output of [first, second]) expect(output).toContain('showcase 0.5.0 is older than every release its pack was checked on');
  });
});

describe('isFirstMention', () => {
  it('is true once per release and survives a hostile file by saying the note again', () => {
    const env = { HOME: home, XDG_STATE_HOME: join(home, 'state') };

    expect([isFirstMention(env, 'claude', '2.1.337'), isFirstMention(env, 'claude', '2.1.337'), isFirstMention(env, 'codex', '2.1.337')]).toEqual([true, false, true]);
    expect(readFileSync(join(home, 'state', 'agentwrap', 'noted-releases'), 'utf8')).toBe('claude 2.1.337\ncodex 2.1.337\n');

    rmSync(join(home, 'state', 'agentwrap', 'noted-releases'));
    symlinkSync('/etc/passwd', join(home, 'state', 'agentwrap', 'noted-releases'));
    expect([isFirstMention(env, 'claude', '2.1.337'), isFirstMention(env, 'claude', '2.1.337')]).toEqual([true, true]);
    expect(isFirstMention({}, 'claude', '2.1.337')).toBe(true);
  });
});
