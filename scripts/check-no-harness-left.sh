#!/bin/sh
# Lists the harness tries still running that this checkout's tests started: fake-harness processes and
# the `sleep 3600` children of hanging scenarios, when their command line, environment, process group
# leader (the try's wrapper) or launch directory's try record names this checkout.
# Exits 1 when there is one (a cancelled or closed run left its try running), 0 otherwise.
# Run it after the suite (.ci/run); Linux only (reads /proc).
root=$(cd "$(dirname "$0")/.." && pwd -P)
left=0
for proc in /proc/[0-9]*; do
  pid=${proc#/proc/}
  [ "$pid" = "$$" ] && continue
  cmdline=$( (tr '\0' ' ' <"$proc/cmdline") 2>/dev/null) || continue
  case "$cmdline" in
    *fake-harness.js*|"sleep 3600 ") ;;
    *) continue ;;
  esac
  state=$(sed 's/.*) \(.\).*/\1/' "$proc/stat" 2>/dev/null)
  [ "$state" = Z ] && continue
  pgid=$(sed 's/.*) . [0-9]* \([0-9]*\).*/\1/' "$proc/stat" 2>/dev/null)
  leader=$( (tr '\0' ' ' <"/proc/$pgid/cmdline") 2>/dev/null)
  if printf '%s\n%s' "$cmdline" "$leader" | grep -qF "$root" \
    || ( tr '\0' '\n' <"$proc/environ" ) 2>/dev/null | grep -q "=$root\(/\|\$\)" \
    || grep -qF "$root" "$proc/cwd/.launch/current.json" 2>/dev/null; then
    echo "harness left running: pid $pid (parent $(sed 's/.*) . \([0-9]*\).*/\1/' "$proc/stat" 2>/dev/null)): $cmdline"
    left=1
  fi
done
if [ "$left" = 1 ]; then
  echo "check-no-harness-left: harness tries outlived their runs (above); end them with kill -- -<pid> and find the test that left them" >&2
  exit 1
fi
echo "check-no-harness-left: no harness try left running under $root"
