#!/usr/bin/env bash
# Failure rates decide from the anchors (3 workers with a cold cache fail every other run, 1 worker
# never). Three workers with a warm cache pass their first 11 runs and fail from then on: the sequential
# test at its own 5 % calls them good, and the search would name the interaction {caches, threads}.
# "Each part alone is good" is held to a fifth of that level: the part's further runs fail, the
# search asks again with every run kept, and the answer is {threads/workers}. The parts run side by side,
# a run each per round, so the cold part has not paid for its stricter bar alone (35 runs when the parts
# were checked one after the other) by the time the warm part refutes the interaction.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
if threads == 3 and not warm:
    fail = count_run("cold-3") % 2 == 1
elif threads == 3:
    fail = count_run("warm-3") >= 12
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "a part of the cause was not shown good"
"$PY" - "$T/run/result.json" "$T/run/journal.jsonl" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
journal = [json.loads(l) for l in open(sys.argv[2])]
assert result["found"] and [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
parts = [r for r in journal if r["type"] == "parts"]
assert parts and not parts[0]["hold"], parts
checked = {p["label"]: p for p in parts[0]["parts"]}
warm, cold = checked["part of the cause {threads/workers}"], checked["part of the cause {caches/c}"]
assert warm["verdict"] in ("bad", "carries the failure") and warm["runs"] <= 14, warm
assert cold["verdict"] == "undecided" and cold["runs"] <= warm["runs"] + 1, (cold, warm)
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
