#!/usr/bin/env bash
# Installs what the tests and the static checks need: npm packages, the pinned Temporal binaries, the
# pinned harness CLIs, and headless Chromium. Each step is skipped when it is already done.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund || exit 1
fi
bash temporal/install.sh || exit 1
# The real harness CLIs (pinned), whose --help the command-line tests check the profiles' flags against.
if [ ! -d tools/harness-clis/node_modules ] || [ tools/harness-clis/package-lock.json -nt tools/harness-clis/node_modules/.package-lock.json ]; then
  npm ci --prefix tools/harness-clis --no-audit --no-fund --silent || exit 1
fi
# Headless Chromium opens the compare report's HTML page (test/review/compare/report.test.ts).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null || echo "could not install chromium: the compare report's browser test will fail" >&2
  else
    echo "chromium is missing (install Debian's chromium as root): the compare report's browser test will fail" >&2
  fi
fi
