#!/usr/bin/env bash
# The floor under bench/search's evals_vs_info_bound: the exact optimal isolation trees (a cause of 1..3
# interacting deltas among D, found and verified both ways, the cause not known in advance) from
# bench_optimal_tree, whose fast solver is first checked against a plain exhaustive one (D = 5).
# Prints each tree's rows, then, last, for D = 8 (the rows of bench/search that miss 1.25):
#   d8_optimum_equal: X         (least mean(1) + mean(2) + mean(3) any strategy reaches)
#   d8_goal_equal: G            (the same sum at the goal, 1.25 x the information bound per row)
#   d8_every_row_within_goal: no | not ruled out   (no: X > G, so some row must be above its goal)
#   d8_optimum_vs_bound: Y      (the optimum of the rows' ratios to their bounds, weighted equally:
#                                their mean, a floor under the worst row of any strategy)
# Usage: bench/optimum/run.sh [--smoke]   (about 45 minutes, most of it the second D = 8 tree; BUILD=build dir, default build)
#   --smoke: the check and D = 6 only, a few seconds (CI: ctest bench_smoke.optimum).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
source "$root/bench/lib.sh"
bench_build_type "$build"
smoke=no
if [[ "${1:-}" == --smoke ]]; then smoke=yes; shift; fi
[[ -z "${BENCH_SMOKE:-}" ]] || smoke=yes
bench_build "$build" --target bench_optimal_tree -j1 >/dev/null
exe="$build/bench/bench_optimal_tree"

"$exe" check 5
echo
"$exe" tree 6 1 1 1
[[ $smoke == yes ]] && exit 0
echo
"$exe" tree 7 1 1 1
echo
equal=$("$exe" tree 8 1 1 1)
printf '%s\n\n' "$equal"
# Weighting each row by 1 / its bound makes the weighted sum the sum of the rows' ratios.
ratios=$("$exe" tree 8 0.25 0.16666666666666666 0.14285714285714285)
printf '%s\n\n' "$ratios"
value() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; }
printf 'd8_optimum_equal: %s\n' "$(value "$equal" optimum_weighted)"
printf 'd8_goal_equal: %s\n' "$(value "$equal" goal_weighted)"
printf 'd8_every_row_within_goal: %s\n' "$(value "$equal" every_row_within_goal_possible)"
printf 'd8_optimum_vs_bound: %.3f\n' "$(awk -v s="$(value "$ratios" optimum_weighted)" 'BEGIN { print s / 3 }')"
