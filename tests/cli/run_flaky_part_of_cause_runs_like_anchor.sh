#!/usr/bin/env bash
# One-run mode chosen from the anchors, and a race that bites three workers in some runs only with a
# warm cache, every run with a cold one (as on one H200). Its first two runs pass, so the one-run
# search calls {threads} good and names the pair {caches, threads} as the cause. That answer says
# three workers alone are fine: the parts of a cause the search found good are held to the good
# anchor's run count like the answer's other good sides, and the race must show there, sending the
# run back to statistics instead of exit 0 on an interaction that is not one.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3 and not warm
if threads >= 3 and warm:
    fail = count_run("warm-race") % 3 == 0
PY
system_state "\"threads\": {\"workers\": 1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 3}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}" >"$T/bad.json"
race_run "0 1" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "runs of part of the cause {threads/workers} disagreed"
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["mode"] == "rate", result["mode"]  # failure rates decide after the fallback
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
