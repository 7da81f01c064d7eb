#!/usr/bin/env bash
# The test command: installs what the tests need (scripts/install.sh), builds, runs jest on real
# Temporal servers, prints the slowest files, and ends with one line "N passed, N failed".
# The static checks (tsc, ESLint, the formatter) are scripts/static-checks.sh; .ci/run runs them beside this.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh || exit 1
npm run --silent build || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p .commonplace
results=.commonplace/jest-results.json
rm -f "$results"
node --experimental-vm-modules node_modules/jest/bin/jest.js --json --outputFile="$results" "$@"
status=$?
node scripts/summarize-jest.js "$results"
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
