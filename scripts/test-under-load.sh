#!/usr/bin/env bash
# Runs the test command while another process keeps every core busy (a CPU hog per core), as a
# shared CI machine would: the suite must pass this way, since its tests wait for states, not for
# durations. Prints the suite's own summary line last.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cores=$(nproc)
hogs=()
for _ in $(seq "$cores"); do
  ( while :; do :; done ) &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
echo "test-under-load: $cores busy loops running beside the suite" >&2
bash scripts/test.sh "$@"
