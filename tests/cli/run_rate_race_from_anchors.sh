#!/usr/bin/env bash
# A race the anchors already show as a rate: 3 workers with a cold cache fail every other run, 1 with
# a warm cache never; 3 workers with a warm cache fail one run in four. Anchors that differ only in
# failures and fail in some runs must make failure rates decide from the first candidate (one sequential
# test, every run counts), so the answer is the race itself, {threads/workers} -- the cold cache only
# raises its rate -- and never {caches/c, threads/workers}, which the statistics' "partial cause" for a
# rarer failure would give.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
if threads == 3 and not warm:
    fail = count_run("cold-3") % 2 == 1
elif threads == 3:
    fail = count_run("warm-3") % 4 == 1
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "anchors differ only in failures"
"$PY" - "$T/run/result.json" "$T/run/journal.jsonl" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
journal = [json.loads(l) for l in open(sys.argv[2])]
assert result["found"] and [d["name"] for d in result["cause"]] == ["workers"], result["cause"]
types = [r["type"] for r in journal]
modes = [r for r in journal if r["type"] == "mode"]
assert [m["mode"] for m in modes] == ["rate"], modes
assert types.index("mode") < types.index("decision"), "rates must decide from the first candidate"
assert result["mode"] == "rate", result["mode"]
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
