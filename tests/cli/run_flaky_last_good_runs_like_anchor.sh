#!/usr/bin/env bash
# One-run mode chosen because the anchors looked deterministic: the candidate an answer calls good
# must pass as many runs as the good anchor did, not one more. Three workers fail every run; two fail
# every third run only (a race, as two drafter threads on one H200): its first two runs pass, and a
# second-run check used to end "first bad 3, last good 2" with exit 0. The thread count is now left
# to the rate probes, whose two-worker cells run until a failure shows (never "clean", no step named).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench <<'PY'
fail = threads >= 3
if threads == 2:
    fail = count_run("runs-2") % 3 == 0
PY
state() {
  system_state "\"threads\": {\"workers\": $1}"
}
state 1 >"$T/good.json"
state 3 >"$T/bad.json"
race_run "0 1"
expect_contains "$T/out.txt" "anchors look deterministic"
not grep -q "first bad 3" "$T/out.txt"
not grep -q "first bad count 3" "$T/out.txt"
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
for r in result.get("refinements", []):
    assert r.get("last_good") != "2", r
# The thread count is left to the rate probes: two workers fail in some runs, and say so.
two = [p for p in result["probes"] if p["value"] == 2]
assert two and all(p["failures"] >= 1 and p["call"] != "clean" for p in two), two
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
