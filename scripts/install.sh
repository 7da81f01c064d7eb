#!/usr/bin/env bash
# Installs what the tests and the static checks need: npm packages, the pinned Temporal binaries, the
# pinned harness CLIs, and headless Chromium. Each step is skipped when it is already done.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The installs run at once (each mostly waits on the registry or the disk); each is skipped when done.
# Headless Chromium opens the compare report's HTML page (test/review/compare/report.test.ts); without it
# only that test fails, so its install is waited for but never stops the others.
install_chromium() {
  if command -v chromium >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null || echo "could not install chromium: the compare report's browser test will fail" >&2
  else
    echo "chromium is missing (install Debian's chromium as root): the compare report's browser test will fail" >&2
  fi
}
install_chromium &
chromium_pid=$!
# The real harness CLIs (pinned), whose --help the command-line tests check the profiles' flags against.
install_harness_clis() {
  if [ -d tools/harness-clis/node_modules ] && [ ! tools/harness-clis/package-lock.json -nt tools/harness-clis/node_modules/.package-lock.json ]; then return 0; fi
  npm ci --prefix tools/harness-clis --no-audit --no-fund --silent
}
temporal_log=$(mktemp) harness_log=$(mktemp)
bash temporal/install.sh >"$temporal_log" 2>&1 &
temporal_pid=$!
install_harness_clis >"$harness_log" 2>&1 &
harness_pid=$!
status=0
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund || status=1
fi
wait "$temporal_pid" || { echo "scripts/install.sh: the Temporal binaries could not be installed (temporal/install.sh):" >&2; status=1; }
cat "$temporal_log" >&2
wait "$harness_pid" || { echo "scripts/install.sh: the harness CLIs could not be installed (npm ci --prefix tools/harness-clis):" >&2; status=1; }
cat "$harness_log" >&2
rm -f "$temporal_log" "$harness_log"
wait "$chromium_pid"
[ "$status" -eq 0 ] || exit 1
