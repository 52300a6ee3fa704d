#!/usr/bin/env bash
# `run --dry-run --run-seconds S --budget D` says whether the worst case fits in the budget: at the
# first runs of each verdict and at the cap on runs; without --run-seconds it says how to know.
source "$(dirname "$0")/common.sh"
echo '{"format": 1, "command": ["{python}", "-c", "pass"], "metric": "m", "repeats": 3}' >"$T/recipe.json"
eight_var_state a >"$T/good.json"
eight_var_state b >"$T/bad.json"
plan() {
  "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" --dry-run "$@"
}
plan --run-seconds 1 --budget 2h >"$T/fits.txt"
expect_contains "$T/fits.txt" "budget 2 h 00 min: the worst case fits, even if every verdict needs the most runs"
plan --run-seconds 1 --budget 2m >"$T/first.txt"
expect_contains "$T/first.txt" "budget 2 min 00 s: the worst case fits at the first runs of each verdict, not if"
plan --run-seconds 20 --budget 90s >"$T/not.txt"
expect_contains "$T/not.txt" "budget 1 min 30 s: the worst case does not fit: the run may stop at the budget"
plan --budget 30m >"$T/unknown.txt"
expect_contains "$T/unknown.txt" "--run-seconds S gives a time estimate and whether it fits in the budget"
[[ ! -e "$T/run" ]]  # a dry run writes nothing
rc=0
plan --budget 30min 2>"$T/err.txt" || rc=$?
# Each check stands alone: under set -e a failing `[[ ]] && ...` list stops nothing unless it is last.
[[ $rc -eq 2 ]] || { echo "--budget 30min: expected exit 2, got $rc" >&2; exit 1; }
expect_contains "$T/err.txt" "--budget: expected a duration such as 90s, 30m or 2h, not '30min'"
