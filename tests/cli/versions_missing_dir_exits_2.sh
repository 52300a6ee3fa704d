#!/usr/bin/env bash
# `envbisect versions` with a wheel directory that does not exist fails with exit 2 (bad input),
# names the directory, and prints no versions.
source "$(dirname "$0")/common.sh"

mkdir -p "$T/wheels"
: > "$T/wheels/fauxtorch-2.11.0-py3-none-any.whl"

rc=0
"$ENVBISECT" versions fauxtorch --wheels "$T/wheels" "$T/no-such-dir" > "$T/out" 2> "$T/err" || rc=$?
test "$rc" -eq 2
expect_contains "$T/err" "envbisect: error:"
expect_contains "$T/err" "$T/no-such-dir"
test ! -s "$T/out"
