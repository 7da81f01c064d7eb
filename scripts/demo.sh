#!/usr/bin/env bash
# The main job on the embedded default: set-up, a local Temporal dev server and a worker
# (`commonplace dev`), a probe of the fake worker profile through a real workflow, then a clean stop.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
bash temporal/install.sh
npm run --silent build

state=.commonplace/demo
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
cat <<EOT
== where to look
  Web UI:   http://localhost:$ui_port  (while a server runs: start one with  npx commonplace dev)
  CLI:      temporal workflow list --address 127.0.0.1:$port --query 'CommonplaceKind="probe"'
  The same probe with a real CLI:  npx commonplace probe --profile claude   (needs claude on PATH and a login)
EOT
