#!/usr/bin/env bash
# Before a found cause is withdrawn because the anchors, judged on all their runs at the end, are not
# told apart, the anchor with fewer runs runs again while the look says more runs would tell. Here
# the bad anchor fails often while the preflight looks (6 of 10) and less often later, as the rate
# decisions top it up (every sixth run): at the end good has passed 10 of 10, bad failed 10 of 30,
# and the look at that count cannot tell them apart (p 0.035). A few more good runs can: the cause
# {workers} is reported, not retracted for want of four good runs.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench <<'PY'
if threads >= 3:
    key = os.environ.get("X", "0") + os.environ.get("Y", "0")
    n = count_run("runs-" + key)
    if key == "11":  # the bad anchor: fails often while the preflight looks, less often after
        fail = n <= 2 or (n <= 10 and n % 2 == 1) or (n > 10 and n % 6 == 0)
    else:
        fail = n % 7 == 3
PY
system_state "\"threads\": {\"workers\": 1}, \"env\": {\"X\": \"0\", \"Y\": \"0\"}" >"$T/good.json"
system_state "\"threads\": {\"workers\": 3}, \"env\": {\"X\": \"1\", \"Y\": \"1\"}" >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "more runs would tell: the anchor with fewer runs runs again"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
result = json.load(open(f"{run}/result.json"))
assert result["outcome"] == "found", result["outcome"]
assert [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
good = [r for r in journal if r["type"] == "attempt"][0]["candidate"]
last_decision = max(i for i, r in enumerate(journal) if r["type"] == "decision")
grown = sum(1 for r in journal[last_decision + 1:] if r["type"] == "attempt" and r["candidate"] == good)
assert 1 <= grown <= 10, grown  # good runs after the last decision: the top-up, a few
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
