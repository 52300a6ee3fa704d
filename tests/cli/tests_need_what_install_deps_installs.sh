#!/usr/bin/env bash
# A CLI test that finds a program or Python module missing says so through `need` or
# `need_python_module`, which name the Debian package scripts/install-deps installs: scripts/test then
# fails the run instead of counting a skip as a pass. A bare `... || skip` after a presence check
# (`command -v`, `[[ -x`, `import`) would let CI pass without running the test. Checks every test here.
source "$(dirname "$0")/common.sh"
bad=0
for test in "$SRC"/tests/cli/*.sh; do
  while IFS= read -r line; do
    echo "$(basename "$test"): $line"
    bad=1
  done < <(grep -E '\|\|[[:space:]]*skip([[:space:]]|$)' "$test" | grep -E 'command -v|\[\[ -x|import ' || true)
done
[[ $bad -eq 0 ]] || { echo "presence checks above skip; use need PROGRAM PACKAGE or need_python_module MODULE PACKAGE"; exit 1; }
