#!/usr/bin/env bash
# The parts of an interaction are held against a quarter of the low end of the bad anchor's failure
# rate, so a bad anchor with few runs makes every part pass more (38 passes at 1 % where bad failed 3 of
# 3, 31 where it failed 4 of 4, 27 where it failed 5 of 5). Here the race bites three workers only with a cold cache, every bad run
# crashes after 0.45 s, a good one passes in 0.15 s: the anchors run by value per second (bad gets 3
# or 4 runs). The parts are held to the bar the bad anchor would set with the runs that save more part
# runs than they cost, and those bad runs are made once both parts passed (a part that a race fails
# would spend none of them). Each part passes fewer runs than the preflight's bad runs alone would ask.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
fail = threads >= 3 and not warm
time.sleep(0.45 if fail else 0.15)
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
result = json.load(open(f"{run}/result.json"))
assert sorted(d["name"] for d in result["cause"]) == ["c", "workers"], result["cause"]
# The anchors as completed for statistics (their first two runs each were taken as deterministic).
preflight = next(r for r in journal if r["type"] == "preflight" and not r.get("provisional"))
bad_before = preflight["bad_runs"]
assert bad_before <= 4 and preflight["good_runs"] > bad_before, preflight
attempts = [r for r in journal if r["type"] == "attempt"]
bad = attempts[1]["candidate"]
parts = [d for d in journal if d["type"] == "decision" and d["label"].startswith("part of the cause")]
assert len(parts) == 2, [d["label"] for d in parts]
# The bad anchor got more runs, after both parts had passed theirs, and each part passed fewer runs
# than the bad anchor's preflight runs alone would have asked.
last_part = max(i for i, r in enumerate(journal) if r["type"] == "decision" and r["label"].startswith("part of the cause"))
bad_runs = [i for i, r in enumerate(journal) if r["type"] == "attempt" and r["candidate"] == bad]
assert len(bad_runs) > bad_before + 1, (len(bad_runs), bad_before)
assert bad_runs[-1] > last_part, "the bad anchor's extra runs came before the parts passed"
asked = {3: 38, 4: 31}[bad_before]
for d in parts:
    assert d["verdict"] == "good" and d["runs"] < asked, (d["label"], d["runs"], asked)
verify = next(r["verify"] for r in journal if r["type"] == "verify")
assert verify["ok"], verify
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
