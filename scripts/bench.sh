#!/usr/bin/env bash
# Runs every benchmark under bench/ (each prints its figures), after the set-up the tests use.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -d node_modules ]; then npm ci --no-audit --no-fund; fi
bash temporal/install.sh
bash scripts/build-if-stale.sh
node -e "import('./test/helpers/global-setup.js').then((setup) => setup.default())"
for bench in bench/*.ts; do
  echo "== $bench"
  npx tsx "$bench"
done
