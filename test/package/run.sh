#!/usr/bin/env bash
# The package as a user gets it (npm run test:package; CI runs it after npm test).
#
#  1. clone this checkout's HEAD (committed files only), npm ci, npm pack: prepack builds dist/;
#  2. install the tarball globally into a temporary prefix with a fresh HOME and npm's default
#     configuration (env -i: none of the caller's npm_config_* or ~/.npmrc), compiling node-pty,
#     re2 and the relay addon as a user's machine would;
#  3. run agentwrap as a user would: --version, demo --auto (every state published),
#     doctor in a terminal (all ok), doctor inside a tmux pane, doctor with a broken user pack,
#     a broken config file, and npx;
#  4. break the relay addon's build (no C compiler) and check the event-loop relay takes over
#     quietly: the install still succeeds, --version and doctor name the relay and why, the demo
#     still publishes every state.
#
# Compiling takes minutes on 2 cores: on a shared machine run it under
# `flock /tmp/agentwrap-heavy.lock npm run test:package`. KEEP=1 keeps the temporary directory.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/install-package.XXXXXX")
tmux_socket="agentwrap-package-$$"
cleanup() {
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
expect_in() { # expect_in FILE PATTERN WHAT
  grep -Eq -- "$2" "$1" || { cat "$1" >&2; fail "$3"; }
}

# npm's defaults, except two things a machine behind a proxy or without nodejs.org may need,
# taken from the caller's npm config when set there: the CA file that trusts the registry's
# certificate (with --prefix, npm's global npmrc moves into the prefix, so the system one is
# not read), and where node's headers are (node-gyp downloads them from nodejs.org otherwise).
cafile=$(npm config get cafile 2>/dev/null || true)
[ "$cafile" != null ] || cafile=
nodedir=$(npm config get nodedir 2>/dev/null || true)
[ "$nodedir" != null ] || nodedir=
clean_env() { # clean_env HOME COMMAND…: a login-like environment, nothing of the caller's npm setup
  local home=$1
  shift
  env -i PATH="$work/prefix/bin:/usr/local/bin:/usr/bin:/bin" HOME="$home" TERM=xterm-256color LANG=C.UTF-8 \
    ${cafile:+npm_config_cafile=$cafile} ${nodedir:+npm_config_nodedir=$nodedir} "$@"
}

step "clean clone of $(git -C "$repo" rev-parse --short HEAD) and npm pack"
git clone -q "$repo" "$work/clone"
mkdir -p "$work/build-home" "$work/home" "$work/prefix"
# Packing needs only the TypeScript build (prepack), so the clone skips compiling native modules;
# the install below compiles them as a user's machine does.
(cd "$work/clone" && clean_env "$work/build-home" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >"$work/ci.log" 2>&1) || { tail -40 "$work/ci.log"; fail 'npm ci in the clean clone'; }
[ ! -e "$work/clone/dist" ] || fail 'dist/ exists before packing: the pack would not prove prepack builds it'
(cd "$work/clone" && clean_env "$work/build-home" npm pack --pack-destination "$work" >"$work/pack.log" 2>&1) || { cat "$work/pack.log"; fail 'npm pack'; }
tarball=$(ls "$work"/agentwrap-*.tgz)
tar -tzf "$tarball" >"$work/files.txt"
for f in package/dist/src/cli/main.js package/dist/src/demo/agent.js package/src/cli/bin/agentwrap package/src/native/relay.c package/binding.gyp package/packs/claude.toml package/README.md package/docs/config.md; do
  grep -qx "$f" "$work/files.txt" || fail "$f is missing from $(basename "$tarball")"
done
echo "$(basename "$tarball"): $(wc -l <"$work/files.txt") files"

step 'npm install -g --prefix (fresh HOME, default npm configuration)'
start=$(date +%s)
clean_env "$work/home" npm install -g --prefix "$work/prefix" "$tarball" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log"; fail 'global install of the tarball'; }
echo "installed in $(($(date +%s) - start)) s"
aw() { (cd "$work/home" && clean_env "$work/home" agentwrap "$@"); }
[ "$(cd "$work/home" && clean_env "$work/home" sh -c 'command -v agentwrap')" = "$work/prefix/bin/agentwrap" ] || fail 'agentwrap is not on PATH from the prefix'

step 'agentwrap --version (started from the bundle)'
(cd "$work/home" && clean_env "$work/home" sh -x "$work/prefix/bin/agentwrap" --version) >"$work/version.txt" 2>"$work/front.txt"
cat "$work/version.txt"
expect_in "$work/front.txt" 'exec node .*/dist/bundle/main\.cjs --version' 'the installed command starts the bundle (dist/bundle/main.cjs)'
expect_in "$work/version.txt" '^agentwrap [0-9]+\.[0-9]+\.[0-9]+ \(native relay; node v[0-9]' '--version names the version, the native relay and node'

step 'agentwrap demo --auto'
aw demo --auto >"$work/demo.txt" 2>&1 || { cat "$work/demo.txt"; fail 'demo --auto'; }
cat "$work/demo.txt"
expect_in "$work/demo.txt" '^published: idle → working → done → idle → working → blocked → working → done' 'the demo published every state'
expect_in "$work/demo.txt" 'done' 'the demo published done'

step 'agentwrap doctor in a terminal: all ok'
# script(1) gives doctor a terminal, as a user's shell has.
(cd "$work/home" && clean_env "$work/home" script -qec 'agentwrap doctor' /dev/null) | tr -d '\r' >"$work/doctor.txt" || { cat "$work/doctor.txt"; fail 'doctor exited non-zero'; }
cat "$work/doctor.txt"
if grep -Eq '^(warn|fail) ' "$work/doctor.txt"; then fail 'doctor is not all ok on a fresh install'; fi
expect_in "$work/doctor.txt" '^ok +relay: native relay thread' 'doctor names the native relay'

step 'agentwrap doctor --json'
aw doctor --json >"$work/doctor.json" || true
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (r.relay !== "native" || !Array.isArray(r.checks)) process.exit(1)' "$work/doctor.json" || fail 'doctor --json'

if command -v tmux >/dev/null; then
  step 'agentwrap doctor inside a tmux pane'
  # Its output goes to the pane's terminal, as a user sees it; read back with capture-pane.
  clean_env "$work/home" tmux -L "$tmux_socket" -f /dev/null new-session -d -x 250 -y 50 \
    "cd '$work/home' && agentwrap doctor; echo exit=\$?; sleep 60"
  for _ in $(seq 1 150); do
    tmux -L "$tmux_socket" capture-pane -p -J -t 0 >"$work/doctor-tmux.txt"
    grep -q '^exit=' "$work/doctor-tmux.txt" && break
    sleep 0.1
  done
  grep -v '^$' "$work/doctor-tmux.txt"
  expect_in "$work/doctor-tmux.txt" '^ok +tmux: inside tmux: socket .*, pane %[0-9]+' 'doctor names the tmux socket and pane'
  expect_in "$work/doctor-tmux.txt" '^exit=0' 'doctor exits 0 inside tmux'
  if grep -Eq '^(warn|fail) ' "$work/doctor-tmux.txt"; then fail 'doctor is not all ok inside tmux'; fi
  tmux -L "$tmux_socket" kill-server
fi

step 'agentwrap doctor with a broken user pack'
mkdir -p "$work/home/.config/agentwrap/packs"
printf 'schema_version = 1\nagent = "claude"\ncommands = ["claude"]\nvalidated_versions = ">=2.0.0, <3.0.0"\n\n[[rule]]\nid = "typo"\nstate = "working"\nregion = "bottom:5"\nrequires_al = ["esc to interrupt"]\n' >"$work/home/.config/agentwrap/packs/claude.toml"
if aw doctor >"$work/doctor-pack.txt"; then cat "$work/doctor-pack.txt"; fail 'doctor exited 0 with a broken user pack'; fi
grep -E '^(warn|fail)' "$work/doctor-pack.txt"
expect_in "$work/doctor-pack.txt" '^fail +pack: .*/packs/claude\.toml:[0-9]+: rule typo: .*requires_al' 'one fail line names the pack file, line and problem'
rm "$work/home/.config/agentwrap/packs/claude.toml"

step 'a broken config file: one line, and the agent still runs'
printf 'notify = true\nnotfy = false\n' >"$work/home/.config/agentwrap/config.toml"
if aw doctor >"$work/doctor-config.txt"; then fail 'doctor exited 0 with a broken config'; fi
grep -E '^(warn|fail)' "$work/doctor-config.txt"
expect_in "$work/doctor-config.txt" '^fail +config: .*config\.toml:2: unknown key "notfy" \(did you mean "notify"\?\)' 'doctor names config file and line'
aw demo --auto >"$work/demo-config.txt" 2>&1 || { cat "$work/demo-config.txt"; fail 'demo with a broken config'; }
expect_in "$work/demo-config.txt" 'config\.toml:2: unknown key "notfy".*built-in defaults in use' 'the launch warns about the broken config'
expect_in "$work/demo-config.txt" 'done' 'the demo ran with a broken config'
rm "$work/home/.config/agentwrap/config.toml"

step 'npx agentwrap (the installed package, no download)'
(cd "$work/home" && clean_env "$work/home" npm_config_prefix="$work/prefix" npx --no-install agentwrap --version) | tee "$work/npx.txt"
expect_in "$work/npx.txt" '^agentwrap [0-9]' 'npx runs the bin'

step 'the relay addon does not build (no C compiler): the event-loop relay takes over quietly'
installed="$work/prefix/lib/node_modules/agentwrap"
(cd "$installed" && clean_env "$work/home" CC=/nonexistent/cc CXX=/nonexistent/c++ npm run install >"$work/rebuild.log" 2>&1) || { cat "$work/rebuild.log"; fail 'the install script fails without a compiler (it must fall back)'; }
expect_in "$work/rebuild.log" 'the native relay did not build; the slower event-loop relay will be used' 'the install says the relay did not build'
[ ! -e "$installed/build/Release/agentwrap_relay.node" ] || fail 'the addon is still there: the no-compiler simulation did not take'
aw --version | tee "$work/version-js.txt"
expect_in "$work/version-js.txt" 'event-loop relay \(native addon not built' '--version names the event-loop relay and why'
(cd "$work/home" && clean_env "$work/home" script -qec 'agentwrap doctor' /dev/null) | tr -d '\r' >"$work/doctor-js.txt" || { cat "$work/doctor-js.txt"; fail 'doctor exited non-zero without the addon (a warning is not a failure)'; }
grep -E '^(warn|fail)' "$work/doctor-js.txt"
expect_in "$work/doctor-js.txt" '^warn +relay: event-loop relay: the native addon was not built' 'doctor says which relay and why'
aw demo --auto >"$work/demo-js.txt" 2>&1 || { cat "$work/demo-js.txt"; fail 'demo --auto without the addon'; }
expect_in "$work/demo-js.txt" '^published: idle → working → done → idle → working → blocked → working → done' 'the demo published every state on the event-loop relay'
expect_in "$work/demo-js.txt" 'done' 'the demo published done on the event-loop relay'
if grep -qi 'relay' "$work/demo-js.txt"; then cat "$work/demo-js.txt"; fail 'the launch talked about the relay: the fallback is meant to be quiet'; fi

step 'ok: the package installs and runs'
