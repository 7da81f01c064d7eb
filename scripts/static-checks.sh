#!/usr/bin/env bash
# The static checks, outside jest: the typecheck (tsc --noEmit), ESLint, and the formatter's check when
# package.json has a format:check script. Each check is one result: its name, passed or failed, and its
# seconds, then the output of any that failed; the last line is "N passed, N failed" over the checks.
# .ci/run runs this beside the test command (scripts/install.sh first: it needs node_modules).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
checks=("typecheck:node_modules/.bin/tsc -p tsconfig.json --noEmit" "lint:node_modules/.bin/eslint .")
if node -e 'process.exit(require("./package.json").scripts?.["format:check"] ? 0 : 1)'; then
  checks+=("format:npm run --silent format:check")
fi
mkdir -p .commonplace/static
passed=0
failed=0
for check in "${checks[@]}"; do
  name=${check%%:*}
  command=${check#*:}
  log=.commonplace/static/$name.txt
  start=$(date +%s)
  bash -c "$command" >"$log" 2>&1
  status=$?
  # tsc and ESLint print only findings (an ESLint warning exits 0): for them, any output is a failure too.
  if [ "$status" -eq 0 ] && { [ "$name" = format ] || ! [ -s "$log" ]; }; then
    echo "static check $name passed ($(($(date +%s) - start)) s)"
    passed=$((passed + 1))
  else
    echo "static check $name FAILED ($(($(date +%s) - start)) s): $command"
    sed 's/^/  /' "$log"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
