// Installs pinned agent CLIs into a cache outside the repo, one npm prefix per package@version:
//   ${AGENTWRAP_CAPTURE_CACHE:-~/.cache/agentwrap-capture}/<pkg-with-slash-as-+>@<version>/
// Idempotent: a prefix whose binary already reports a version is reused as is.
// npm 11 skips dependency install scripts unless approved, and these CLIs fetch or select their
// native binary in a postinstall script, so each prefix gets a package.json whose `allowScripts`
// approves the CLI by name (npm 11 refuses `--allow-scripts` in a project-scoped install:
// EALLOWSCRIPTS, so the field is the only way).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { AGENTS } from './agents.mjs';

export function cacheRoot() {
  return process.env.AGENTWRAP_CAPTURE_CACHE ?? join(homedir(), '.cache', 'agentwrap-capture');
}

export function latestVersion(pkg) {
  return execFileSync('npm', ['view', pkg, 'version'], { encoding: 'utf8' }).trim();
}

export function prefixFor(pkg, version) {
  return join(cacheRoot(), `${pkg.replace('/', '+')}@${version}`);
}

export function binPath(agent, version) {
  const a = AGENTS[agent];
  return join(prefixFor(a.pkg, version), 'node_modules', '.bin', a.bin);
}

/** Runs `<bin> --version` with a throwaway HOME; returns the first output line or undefined. */
export function probeVersion(bin) {
  if (!existsSync(bin)) return undefined;
  const home = join(cacheRoot(), 'probe-home');
  mkdirSync(home, { recursive: true });
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    // Its own .bin folder on PATH, as the driver's PTY has it (Oh My Pi's script runs on the Bun
    // installed beside it).
    env: { ...process.env, HOME: home, CI: '1', NO_COLOR: '1', PATH: `${dirname(bin)}:${process.env.PATH}` },
  });
  // pi prints its version on stderr.
  const out = (`${r.stdout ?? ''}`.trim() || `${r.stderr ?? ''}`.trim());
  if (r.status !== 0 || out === '') return undefined;
  return out.split('\n')[0];
}

/**
 * Ensures `agent` is installed at `version` (default: the pin; 'latest' asks the registry).
 * Returns { agent, pkg, version, bin, reported }.
 */
export function ensureInstalled(agent, version, log = console.error) {
  const a = AGENTS[agent];
  if (!a) throw new Error(`unknown agent ${agent}`);
  const v = version === 'latest' ? latestVersion(a.pkg) : (version ?? a.version);
  const prefix = prefixFor(a.pkg, v);
  const bin = binPath(agent, v);
  let reported = probeVersion(bin);
  if (reported === undefined) {
    log(`[install] ${a.pkg}@${v} -> ${prefix}`);
    mkdirSync(prefix, { recursive: true });
    const manifest = join(prefix, 'package.json');
    const pj = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {};
    pj.name = 'agentwrap-capture-prefix';
    pj.private = true;
    // A name-only approval, so `--latest` reuses the same manifest.
    pj.allowScripts = { ...(pj.allowScripts ?? {}), [a.pkg]: true };
    // A runtime the CLI needs and npm carries (Oh My Pi's Bun), approved as the CLI is.
    for (const extra of a.extraPkgs ?? []) pj.allowScripts[extra.replace(/(.)@.*$/, '$1')] = true;
    const npmFlags = applyInstallFix(a.install, prefix, pj);
    writeFileSync(manifest, JSON.stringify(pj, null, 2) + '\n');
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', ...npmFlags, `${a.pkg}@${v}`, ...(a.extraPkgs ?? [])],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    reported = probeVersion(bin);
    if (reported === undefined) throw new Error(`${a.pkg}@${v}: ${bin} --version failed after install`);
  }
  const extra = a.configTemplate ? ensureConfigTemplate(a, v, log) : undefined;
  return { agent, pkg: a.pkg, version: v, bin, reported, ...(extra ? { configTemplate: extra } : {}) };
}

/**
 * An agent's `install` fix for a dependency tree this registry cannot resolve as published:
 * `overrides` (npm's field: another version of a dependency), `absent` (dependencies the
 * registry lacks and the CLI's bundle never loads: each becomes an empty local package the
 * overrides point at) and `legacyPeerDeps`. Returns the extra npm flags.
 */
export function applyInstallFix(fix, prefix, pj) {
  if (!fix) return [];
  const overrides = { ...(pj.overrides ?? {}), ...(fix.overrides ?? {}) };
  for (const name of fix.absent ?? []) {
    const dir = join('absent', name.replace('/', '+'));
    mkdirSync(join(prefix, dir), { recursive: true });
    writeFileSync(join(prefix, dir, 'package.json'), JSON.stringify({ name, version: '0.0.0-absent' }) + '\n');
    overrides[name] = `file:./${dir}`;
  }
  pj.overrides = overrides;
  return fix.legacyPeerDeps ? ['--legacy-peer-deps'] : [];
}

/**
 * Some CLIs install packages into their config directory at startup (OpenCode fetches
 * @opencode-ai/plugin into ~/.config/opencode), which fails inside the lab's network namespace
 * after a long timeout. Install them once here, outside the namespace; seeding copies them.
 */
export function configTemplateDir(agent, version) {
  return join(prefixFor(AGENTS[agent].pkg, version), 'config-template');
}

function ensureConfigTemplate(a, v, log) {
  const dir = join(prefixFor(a.pkg, v), 'config-template');
  const pkgs = a.configTemplate.map((p) => p.replace('{version}', v));
  if (existsSync(join(dir, 'node_modules'))) return dir;
  log(`[install] config template ${pkgs.join(' ')} -> ${dir}`);
  mkdirSync(dir, { recursive: true });
  execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--ignore-scripts', ...pkgs], { stdio: ['ignore', 'inherit', 'inherit'] });
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const latest = args.includes('--latest');
  const names = args.filter((x) => !x.startsWith('--'));
  for (const name of names.length ? names : Object.keys(AGENTS)) {
    const r = ensureInstalled(name, latest ? 'latest' : undefined);
    console.log(`${name}\t${r.version}\t${r.reported}\t${r.bin}`);
  }
}
