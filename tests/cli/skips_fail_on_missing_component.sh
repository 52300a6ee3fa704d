#!/usr/bin/env bash
# scripts/skips, as scripts/test runs it on ctest's log: prints `skipped: N` and each skipped test with
# its reason; fails when a test skipped because a program scripts/install-deps installs is missing
# (ENVBISECT_ALLOW_MISSING=1 excuses that, and only that) or skipped without saying why; passes a skip
# for another reason (not root). Real ctest output of a small project whose tests skip through common.sh.
source "$(dirname "$0")/common.sh"
need cmake cmake
P="$T/proj"
mkdir -p "$P"
cat >"$P/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(skips NONE)
enable_testing()
foreach(name IN ITEMS passes skips_other skips_missing skips_silently)
  add_test(NAME cli.${name} COMMAND bash ${CMAKE_SOURCE_DIR}/${name}.sh)
  set_tests_properties(cli.${name} PROPERTIES SKIP_RETURN_CODE 125)
endforeach()
CMAKE
echo "source '$SRC/tests/cli/common.sh'; true" >"$P/passes.sh"
echo "source '$SRC/tests/cli/common.sh'; skip 'needs root'" >"$P/skips_other.sh"
echo "source '$SRC/tests/cli/common.sh'; need envbisect-no-such-program no-such-package" >"$P/skips_missing.sh"
echo "exit 125" >"$P/skips_silently.sh"
cmake -S "$P" -B "$P/build" >/dev/null

# check NAME [ENV...] -- CTEST_ARGS...: run ctest (its own skip folder) then scripts/skips; rc in $T/NAME.rc.
check() {
  local name="$1" rc=0
  shift
  local -a vars=()
  while [[ "$1" != -- ]]; do vars+=("$1"); shift; done
  shift
  rm -rf "$T/skips"
  (cd "$P/build" && env ENVBISECT_SKIP_DIR="$T/skips" ctest "$@" >"$T/$name.log" 2>&1) || true
  env -u ENVBISECT_ALLOW_MISSING "${vars[@]}" "$SRC/scripts/skips" "$T/$name.log" "$T/skips" >"$T/$name.out" 2>&1 || rc=$?
  echo "$rc" >"$T/$name.rc"
}

check other -- -R 'passes|skips_other'
[[ $(<"$T/other.rc") -eq 0 ]] || { cat "$T/other.out"; exit 1; }
expect_contains "$T/other.out" "skipped: 1"
expect_contains "$T/other.out" "cli.skips_other: other: needs root"

check missing -- -R 'passes|skips_other|skips_missing'
[[ $(<"$T/missing.rc") -eq 1 ]] || { echo "a skip for a missing program passed"; cat "$T/missing.out"; exit 1; }
expect_contains "$T/missing.out" "skipped: 2"
expect_contains "$T/missing.out" "cli.skips_missing: missing: envbisect-no-such-program is missing (Debian package no-such-package"

check allowed ENVBISECT_ALLOW_MISSING=1 -- -R 'passes|skips_other|skips_missing'
[[ $(<"$T/allowed.rc") -eq 0 ]] || { cat "$T/allowed.out"; exit 1; }

check all ENVBISECT_ALLOW_MISSING=1 --
[[ $(<"$T/all.rc") -eq 1 ]] || { echo "a skip without a reason passed"; cat "$T/all.out"; exit 1; }
expect_contains "$T/all.out" "skipped: 3"
expect_contains "$T/all.out" "cli.skips_silently: unknown: the test skipped without saying why"
