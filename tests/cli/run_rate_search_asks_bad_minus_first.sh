#!/usr/bin/env bash
# On failure rates a good verdict takes many clean runs and a bad one a few failures. The race (3
# workers fail every other run with a cold cache, one run in four warm; 1 worker never) sits among four
# differences, after the cache in the search's order. The search pins it by asking "bad minus
# {threads/workers}" first: that candidate is good, and it is also the reverse check of the answer, so
# the answer rests on one good candidate besides the anchor rather than two (the shorter prefix,
# {caches/c}, is never asked).
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
if threads == 3 and not warm:
    fail = count_run("cold-3") % 2 == 1
elif threads == 3:
    fail = count_run("warm-3") % 4 == 1
PY
state() {
  system_state "\"threads\": {\"workers\": $1}, \"caches\": {\"c\": {\"role\": \"inductor\", \"state\": \"$2\"}}, \"env\": {\"E0\": \"$3\", \"E1\": \"$3\"}"
}
state 1 warm a >"$T/good.json"
state 3 cold b >"$T/bad.json"
race_run "0" --no-probe
"$PY" - "$T/run/result.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
assert result["found"] and [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
steps = [s for s in result["steps"] if "measured by the caller" not in s["why"]]
first = [s for s in steps if s["why"].startswith("is {threads/workers} needed? bad minus it")]
assert first and first[0]["verdict"] == "good", [s["why"] for s in steps]
# The reverse check is that very candidate: a memo hit, no step of its own, verified.
assert result["verified"]["reverse"], result["verified"]
assert not [s for s in steps if s["why"].startswith("verify reverse")], steps
good = {json.dumps(s["applied"]) for s in steps if s["verdict"] == "good"}
assert good == {json.dumps(first[0]["applied"])}, [(s["why"], s["verdict"]) for s in steps]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
