#!/usr/bin/env bash
# One-run mode chosen from the anchors (bad fails every run), and a race that bites three workers with a
# warm cache every other run from the seventh on, none before. The good anchor ran 5 times; a part of a cause
# held to that count passes, and the run would exit 0 on the interaction {caches, threads}, which says
# three workers alone are fine. "Each part alone is good" must hold against a part failing at half the
# bad anchor's rate with at most a fifth of the rate test's error: 8 passes. The race shows on the
# seventh run, the run leaves one-run mode, and failure rates name the race alone.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
fail = threads >= 3 and not warm
if threads >= 3 and warm:
    n = count_run("warm-race")
    fail = n >= 6 and n % 2 == 0
PY
system_state "\"threads\": {\"workers\": 1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"warm\"}}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 3}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"cold\"}}" >"$T/bad.json"
race_run "0 1" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "runs of part of the cause {threads/workers} disagreed"
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
names = sorted(d["name"] for d in result["cause"])
assert not (result["found"] and names == ["c", "workers"]), result["cause"]
assert result["found"] and names == ["workers"], result
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
