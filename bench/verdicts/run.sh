#!/usr/bin/env bash
# Simulate verdicts with the real src/stats code and a noisy scripted oracle; print a table and, last,
# the headline lines wrong_rate_5x, wrong_rate_1_5x, runs_per_decision_5x.
# Usage: bench/verdicts/run.sh [decisions per scenario, default 1000] [seed]
# Builds target bench_verdicts in $BUILD (default build) when bench/ is part of the CMake project,
# else compiles the few sources it needs directly with g++.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
if [[ -f "$build/build.ninja" || -f "$build/Makefile" ]] && cmake --build "$build" --target bench_verdicts -j1 >/dev/null 2>&1; then
  exe="$build/bench/bench_verdicts"
else
  exe="$(mktemp -d)/bench_verdicts"
  g++ -std=c++20 -O2 -I"$root/src" "$root/bench/verdicts/simulate.cpp" "$root/src/stats/samples.cpp" \
    "$root/src/stats/mann_whitney.cpp" "$root/src/stats/verdict.cpp" "$root/src/core/outcome.cpp" -o "$exe"
fi
decisions="${1:-1000}"
[[ -z "${BENCH_SMOKE:-}" ]] || decisions=50  # CI: only proves the bench still runs
"$exe" "$decisions" "${2:-20261129}"
