#!/usr/bin/env bash
# The test command: installs what the tests need (scripts/install.sh), builds, runs jest on real
# Temporal servers, prints the slowest files, and ends with one line "N passed, N failed".
# The static checks (tsc, ESLint, the formatter) are scripts/static-checks.sh; .ci/run runs them beside this.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install.sh || exit 1
bash scripts/build-if-stale.sh || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p .commonplace
results=.commonplace/jest-results.json
rm -f "$results"
# The tests reach nothing past 127.0.0.1, so a CA bundle the machine adds for its registry's proxy
# (NODE_EXTRA_CA_CERTS) is only a cost to them: every Node process parses it as it starts (60-90 ms of CPU
# here), and a run starts about two thousand (CLI commands, harness launches, workers). The install keeps it.
env -u NODE_EXTRA_CA_CERTS node --experimental-vm-modules node_modules/jest/bin/jest.js --json --outputFile="$results" "$@"
status=$?
node scripts/summarize-jest.js "$results"
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
