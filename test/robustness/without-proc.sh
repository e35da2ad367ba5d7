#!/usr/bin/env bash
# The tests that exercise detection, the watchdog, job control and a wrapped demo agent end to
# end, run again with /proc hidden (an empty tmpfs over it) and then restricted (a fresh procfs
# mounted hidepid=2,subset=pid in a new pid namespace, as a hardened container has), each in a
# private mount namespace: nothing outside these test runs loses /proc. dist/ must be built first:
# tsc cannot run without /proc (typescript-go needs /proc/self/exe), so the suite's own build
# step is skipped (AGENTWRAP_TEST_PREBUILT=1). As root (CI) plain namespaces do; otherwise a
# user namespace maps us to root. Where namespaces are not allowed the runs are skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/../.."
userns=()
[ "$(id -u)" -eq 0 ] || userns=(--map-root-user)
if ! unshare --mount "${userns[@]}" true 2>/dev/null; then
  echo "without-proc: unshare --mount is not allowed here; the runs without /proc are skipped" >&2
  exit 0
fi
[ -f dist/src/cli/main.js ] || npx tsc -p tsconfig.json
detection=(test/core/detector test/adapters/process test/adapters/pty test/app/live test/app/launch
  test/app/session-cadence.test.ts test/app/unanswered-dialog.test.ts test/cli/live-session.test.ts
  test/robustness/without-proc.test.ts)
echo "without-proc: /proc hidden"
unshare --mount "${userns[@]}" sh -c 'mount -t tmpfs -o ro,size=4k agentwrap-no-proc /proc && exec "$@"' sh \
  env AGENTWRAP_TEST_PREBUILT=1 npx vitest run "${detection[@]}"
echo "without-proc: /proc restricted (hidepid=2,subset=pid)"
unshare --mount --pid --fork "${userns[@]}" sh -c 'mount -t proc -o hidepid=2,subset=pid proc /proc && exec "$@"' sh \
  env AGENTWRAP_TEST_PREBUILT=1 npx vitest run test/adapters/process test/app/live test/cli/live-session.test.ts test/cli/doctor.test.ts
