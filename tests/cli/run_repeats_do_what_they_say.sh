#!/usr/bin/env bash
# --repeats, --max-runs and --dry-run do what they say: a metric run refuses one run per candidate and a
# --max-runs below the first runs (exit 2, nothing written) instead of raising them silently; a pass/fail
# run (--deterministic) plans and makes exactly --repeats runs of each candidate.
source "$(dirname "$0")/common.sh"
cat >"$T/recipe.json" <<'JSON'
{"format": 1, "command": ["sh", "-c", "exit 0"], "metric": "m", "repeats": 3}
JSON
state() {
  printf '{"format": 1, "python": {"interpreter": "/usr/bin/python3", "venv": "none"}, "env": {"A": "%s"}}\n' "$1"
}
state old >"$T/good.json"
state new >"$T/bad.json"
run() { "$ENVBISECT" run "$T/good.json" "$T/bad.json" --recipe "$T/recipe.json" --out "$T/run" "$@"; }

rc=0; run --repeats 1 >/dev/null 2>"$T/err1.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "--repeats 1: expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err1.txt" "--repeats 1: a metric verdict needs at least 2 runs of each candidate"
rc=0; run --max-runs 1 >/dev/null 2>"$T/err2.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "--max-runs 1: expected exit 2, got $rc"; exit 1; }
expect_contains "$T/err2.txt" "--max-runs 1 is below the 3 first runs of each candidate ($T/recipe.json: /repeats)"
rc=0; run --deterministic --repeats 2 --max-runs 1 >/dev/null 2>"$T/err3.txt" || rc=$?
[[ $rc -eq 2 ]] || { echo "--deterministic --repeats 2 --max-runs 1: expected exit 2, got $rc"; exit 1; }
[[ ! -e "$T/run" ]] || { echo "a refused run wrote its directory"; exit 1; }

run --dry-run --repeats 5 >"$T/plan_metric.txt"
expect_contains "$T/plan_metric.txt" "each candidate: 5 runs first, more while undecided, at most 40"
run --dry-run --deterministic --repeats 1 >"$T/plan_det.txt"
expect_contains "$T/plan_det.txt" "anchors: good and bad, 1 run each"
expect_contains "$T/plan_det.txt" "each candidate: exactly 1 run"
not grep -q "more while undecided" "$T/plan_det.txt"
[[ ! -e "$T/run" ]]
