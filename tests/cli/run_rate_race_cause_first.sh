#!/usr/bin/env bash
# The incident's race on one GPU, in miniature: anchors that look deterministic (1 worker with a warm
# cache always passes, 3 with a cold one always fail), yet 3 workers with a warm cache fail every other
# run and 2 workers every fourth. Runs that disagree must switch the run to failure rates with every
# run kept (no second search on statistics), the verified cause {threads/workers} must be written
# (result.json, a "verified_cause" record, a printed line) before any probe, and "when it bites" must be rates
# with intervals per cell, with no first bad count claimed where the rates show no step.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
if threads >= 4 or (threads == 3 and not warm):
    fail = True
elif threads == 3:
    fail = count_run("warm-3") % 2 == 1
elif threads == 2:
    fail = count_run("two") % 4 == 1
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0"
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "failure rates decide from here on"
not grep -q "search starts again" "$T/out.txt"
# The cause is printed before the probes start.
cause_line=$(grep -m 1 -n "verified cause after" "$T/out.txt" | cut -d: -f1)
probe_line=$(grep -m 1 -n "when it bites: failure rates" "$T/out.txt" | cut -d: -f1)
[[ -n $cause_line && -n $probe_line && $cause_line -lt $probe_line ]] || { cat "$T/out.txt"; exit 1; }
expect_contains "$T/out.txt" "95 % CI"
"$PY" - "$T/run/result.json" "$T/run/journal.jsonl" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
journal = [json.loads(l) for l in open(sys.argv[2])]
assert result["found"] and [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
assert [m["mode"] for m in journal if m["type"] == "mode"] == ["pass-fail", "rate"], journal
types = [r["type"] for r in journal]
assert types.index("verified_cause") < types.index("probe"), "the cause was not journaled before the probes"
probes = result["probes"]
assert probes and all({"failures", "runs", "low", "high"} <= set(p) for p in probes), probes
# Every run a cell holds counts: 1 worker warm is the good anchor, whose runs are all there.
one_warm = [p for p in probes if p["value"] == 1 and p["cache"] == "c:warm"][0]
assert one_warm["runs"] >= 5 and one_warm["failures"] == 0, one_warm
# The warm cache reached each attempt as a private view of the warm-up's snapshot, and the journal
# says how (reflink, overlay or copy).
methods = {r["method"] for r in journal if r["type"] == "warm_cache"}
assert methods and methods <= {"reflink", "overlay", "copy"}, methods
assert result["mode"] == "rate", result["mode"]
three_warm = [p for p in probes if p["value"] == 3 and p["cache"] == "c:warm"][0]
assert 0 < three_warm["failures"] < three_warm["runs"], three_warm
assert three_warm["low"] < 0.5 < three_warm["high"], three_warm
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
