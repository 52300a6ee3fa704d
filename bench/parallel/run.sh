#!/usr/bin/env bash
# Rounds and wall time of the k-ary bisection for k = 1, 2, 4 slots on a simulated oracle with a fixed
# run time (default 50 ms a run): N = 16, 64, 256, 1024 points, every culprit position. Target:
# ceil(log_{k+1} N) rounds. Then the same for commit DAGs with merges (bench/search's generator and
# seed; N = 64, 256, 1024 commits, every culprit) with dag_first_bad_k, k = 1 being git's bisection.
# Prints the tables, then, last, exactly one line:
#   rounds_k4_n256: X   (worst rounds over every culprit position, k = 4, N = 256; target 4)
# Usage: bench/parallel/run.sh [run_ms]   (BUILD=build dir, default build; builds target bench_parallel)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
cmake --build "$build" --target bench_parallel -j1 >/dev/null
run_ms="${1:-50}"
[[ -z "${BENCH_SMOKE:-}" ]] || run_ms=1  # CI: only proves the bench still runs
"$build/bench/bench_parallel" "$run_ms"
