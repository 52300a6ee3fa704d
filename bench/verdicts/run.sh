#!/usr/bin/env bash
# Simulate verdicts with the real src/stats code and a noisy scripted oracle, then whole bisections
# (preflight, isolate(), anchor refreshes, re-checks) on the planted families of issue 19. Prints the
# per-decision table and its headline lines (wrong_rate_5x, wrong_rate_1_5x, runs_per_decision_5x),
# the per-family table and, last, null_blame_rate, confident_wrong_rate and right_rate.
# Usage: bench/verdicts/run.sh [--smoke] [decisions per scenario, default 1000] [bisections per family,
#        default 2000] [seed] [threads, default nproc]
#   --smoke: 100 decisions and 40 bisections per family (CI: ctest bench_smoke.verdicts).
# Builds the targets in $BUILD (default build) when bench/ is part of the CMake project, else compiles
# the few sources they need directly with g++.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
smoke=no
if [[ "${1:-}" == --smoke ]]; then smoke=yes; shift; fi
[[ -z "${BENCH_SMOKE:-}" ]] || smoke=yes  # CI: ctest bench_smoke.*
decisions="${1:-1000}" families="${2:-2000}" seed="${3:-20261129}" threads="${4:-$(nproc)}"
if [[ $smoke == yes ]]; then decisions=100 families=40; fi
if [[ -f "$build/build.ninja" || -f "$build/Makefile" ]] &&
  bench_build "$build" --target bench_verdicts bench_verdict_families -j1 >/dev/null 2>&1; then
  exe="$build/bench/bench_verdicts" fam="$build/bench/bench_verdict_families"
else
  dir="$(mktemp -d)"
  stats=("$root/src/stats/samples.cpp" "$root/src/stats/mann_whitney.cpp" "$root/src/stats/verdict.cpp"
         "$root/src/stats/pass_fail.cpp" "$root/src/core/outcome.cpp")
  g++ -std=c++20 -O2 -I"$root/src" "$root/bench/verdicts/simulate.cpp" "${stats[@]}" -o "$dir/bench_verdicts"
  g++ -std=c++20 -O2 -pthread -I"$root/src" "$root/bench/verdicts/families.cpp" "${stats[@]}" \
    "$root/src/search/isolate.cpp" "$root/src/search/verify.cpp" "$root/src/search/informed.cpp" \
    "$root/src/search/kary.cpp" "$root/src/search/bisect.cpp" -o "$dir/families"
  exe="$dir/bench_verdicts" fam="$dir/families"
fi
"$exe" "$decisions" "$seed"
echo
"$fam" "$families" "$seed" "$threads"
