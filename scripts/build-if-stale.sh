#!/usr/bin/env bash
# `npm run build`, unless dist/ was built after every file the build reads changed: `npm ci` runs the build
# (the package's `prepare` script), and the test command, the demo and the benchmarks that follow it would
# otherwise build the same dist/ again (about 6 s). dist/.built is written by the build's last step
# (scripts/bundle-cli.js); any source, script, package file or installed package newer than it builds again.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
inputs=(src temporal scripts bin package.json package-lock.json tsconfig.json tsconfig.build.json node_modules/.package-lock.json)
if [ -f dist/.built ] && [ -z "$(find "${inputs[@]}" -newer dist/.built -print -quit 2>/dev/null)" ]; then
  exit 0
fi
npm run --silent build
