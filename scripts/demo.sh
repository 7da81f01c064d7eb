#!/usr/bin/env bash
# The main job on the embedded default: set-up, a local Temporal dev server and a worker
# (`commonplace dev`), a probe of the fake worker profile through a real workflow, then a clean stop.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# COMMONPLACE_DEMO_PREPARED=1 skips the set-up (the test suite, which has just done it, sets it so the
# demo never rebuilds dist/ under other tests' feet).
if [ "${COMMONPLACE_DEMO_PREPARED:-}" != 1 ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
  bash temporal/install.sh
  npm run --silent build
fi

state=${COMMONPLACE_DEMO_STATE:-.commonplace/demo}
port=${COMMONPLACE_DEMO_PORT:-7233}
ui_port=${COMMONPLACE_DEMO_UI_PORT:-8233}
mkdir -p "$state"
log="$state/dev.log"
node bin/commonplace.js dev --state "$state" --port "$port" --ui-port "$ui_port" >"$log" 2>&1 &
dev=$!
trap 'kill -INT $dev 2>/dev/null; wait $dev 2>/dev/null || true' EXIT
for _ in $(seq 1 180); do
  grep -q 'Ctrl-C stops' "$log" && break
  kill -0 $dev 2>/dev/null || { cat "$log"; echo "demo: commonplace dev exited early (is port $port or $ui_port in use?)" >&2; exit 1; }
  sleep 0.5
done
grep -q 'Ctrl-C stops' "$log" || { cat "$log"; echo "demo: commonplace dev did not become ready" >&2; exit 1; }
sed -n '/^Temporal dev server:/,/^Ctrl-C/p' "$log"
echo
echo "== probe of the fake worker profile (the fake harness writes the output; no model is called)"
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js probe --profile fake

echo
echo "== a scratch KB checkout from examples/kb"
kb="$state/kb-checkout"
rm -rf "$kb" && mkdir -p "$kb" && cp -r examples/kb "$kb/kb"
git -C "$kb" init -q && git -C "$kb" add -A && git -C "$kb" -c user.name=demo -c user.email=demo@localhost commit -qm "example KB"
node bin/commonplace.js validate --kb "$kb" | tail -n 1
node bin/commonplace.js review status --kb "$kb"

echo
echo "== a gate sweep over it (the fake harness writes every review; no model is called)"
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js review run gates --kb "$kb" --profile fake \
  --scenario examples/scenarios/review-sweep.json --concurrency 4
echo
node bin/commonplace.js review status --kb "$kb"
echo "  a result file: $(find "$kb/kb/reports/state/review/results" -type f -name '*.md' | head -n 1)"

echo
cat <<EOT
== where to look
  Web UI:   http://localhost:$ui_port  (while a server runs: start one with  npx commonplace dev)
  CLI:      temporal workflow list --address 127.0.0.1:$port --query 'CommonplaceKind="gates"'
            (the demo's server state stays in $state/temporal.db: \`npx commonplace dev --state $state\` brings it back)
  Results:  $kb/kb/reports/state/review/results/
  With a real model:  npx commonplace review run gates --kb $kb --profile claude   (needs claude on PATH and a login)
                      npx commonplace probe --profile claude
EOT
