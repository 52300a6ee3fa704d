#!/usr/bin/env bash
# Simulate verdicts with the real src/stats code and a noisy scripted oracle, then whole bisections
# through the product's own run loop (bench_verdict_families: `envbisect run`'s walk with a simulated
# machine answering the benchmark) on planted families and thread races. Prints the per-decision table
# and its headline lines (wrong_rate_5x, wrong_rate_1_5x, runs_per_decision_5x), the per-family table
# (its in-240s column: the share of bisections verified within 240 simulated GPU seconds) and, last,
# null_blame_rate, confident_wrong_rate, right_rate, race_undecided_rate, runs_to_verified_cause,
# gpu_seconds_to_verified_cause and both against the oracle's floor (the worst family's ratio, then that
# ratio's 95 % interval: worst_family_*_vs_oracle_95ci).
# Usage: bench/verdicts/run.sh [--smoke] [decisions per scenario, default 1000] [bisections per family,
#        default 200] [seed] [workers, default nproc]
#   --smoke: 100 decisions and 3 bisections per family (CI: ctest bench_smoke.verdicts).
# Builds the targets in $BUILD (default build); a bisection takes about 0.3 s of one core.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
smoke=no
if [[ "${1:-}" == --smoke ]]; then smoke=yes; shift; fi
[[ -z "${BENCH_SMOKE:-}" ]] || smoke=yes  # CI: ctest bench_smoke.*
decisions="${1:-1000}" families="${2:-200}" seed="${3:-20261129}" threads="${4:-$(nproc)}"
if [[ $smoke == yes ]]; then decisions=100 families=3; fi
bench_build "$build" --target bench_verdicts bench_verdict_families -j1 >/dev/null
exe="$build/bench/bench_verdicts" fam="$build/bench/bench_verdict_families"
"$exe" "$decisions" "$seed"
echo
"$fam" "$families" "$seed" "$threads"
