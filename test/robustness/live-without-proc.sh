#!/usr/bin/env bash
# Claude Code live with /proc hidden from agentwrap (docs/robustness.md#without-proc): the e2e
# harness against the capture lab's mock, run in a mount namespace whose /proc is an empty tmpfs.
# Claude refuses to start without /proc, so a private capture cache holds a `claude` that takes
# the tmpfs off in its own mount namespace; agentwrap and its job-control helper stay without.
# The private cache also keeps these cells out of the shared e2e results. Needs root (or
# --map-root-user), the pinned Claude in the shared cache, and the live lock (a real agent runs).
# Usage: test/robustness/live-without-proc.sh [CACHE_DIR]   (then: git checkout E2E.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
shared=${AGENTWRAP_CAPTURE_CACHE:-$HOME/.cache/agentwrap-capture}/@anthropic-ai+claude-code@2.1.332
cache=${1:-$(mktemp -d)}
private=$cache/@anthropic-ai+claude-code@2.1.332
mkdir -p "$private/node_modules/.bin"
cp "$shared/package.json" "$shared/package-lock.json" "$private/"
ln -sfn "$shared/node_modules/@anthropic-ai" "$private/node_modules/@anthropic-ai"
cat > "$private/node_modules/.bin/claude" <<WRAPPER
#!/bin/sh
exec unshare --mount sh -c 'umount /proc 2>/dev/null; exec "\$0" "\$@"' $shared/node_modules/@anthropic-ai/claude-code/bin/claude.exe "\$@"
WRAPPER
chmod +x "$private/node_modules/.bin/claude"
flock /tmp/agentwrap-live.lock unshare --mount sh -c 'mount -t tmpfs -o ro,size=4k agentwrap-no-proc /proc && exec "$@"' sh \
  env AGENTWRAP_CAPTURE_CACHE="$cache" node test/e2e/run.mjs --agent claude --habitat tmux --scenario simple,approve --hooks on,off --first-screen-runs 0
echo "events and recordings: $cache/e2e/runs"
