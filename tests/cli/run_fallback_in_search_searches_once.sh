#!/usr/bin/env bash
# Runs that disagree during the search send a one-run run back to statistics, and the search is made
# again on them there and then (failure rates: every run kept). It must not be made a third time after
# the cause is verified and the probes run (the
# redo meant for a disagreement found only after the search): on one H200 that repeated every
# isolation question with more runs each and the run spent its budget before the answer. Here three
# workers fail every run; a cold cache with one worker fails its second run only.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3
if not fail and not warm:
    fail = count_run("cold-runs") == 2
PY
system_state "\"threads\": {\"workers\": 1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 4}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}" >"$T/bad.json"
race_run "0 1"
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "disagreed: the test is not deterministic after all"
"$PY" - "$T/run/journal.jsonl" <<'PY'
import json, sys
journal = [json.loads(l) for l in open(sys.argv[1])]
types = [r["type"] for r in journal]
assert "verified_cause" in types, types
after = [r["stage"] for r in journal[types.index("verified_cause"):] if r["type"] == "decision"]
assert "isolate" not in after and "recheck" not in after, after
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
