#!/usr/bin/env bash
# The parts of an interaction are good sides of the answer, each held to several passing runs. Of about
# one run time, they run side by side, a run each per round: a race that bites one of them shows after
# a few rounds, not after every part before it has passed all its runs alone (on one GPU, four parts of
# a wrong interaction held one after another cost their 10 passes each before the fourth refuted it).
# Here three workers fail only with a cold cache, every run: the cause is the interaction, its two
# parts pass, and their verification runs alternate.
source "$(dirname "$0")/common.sh"
need /usr/bin/python3 python3
race_bench cache <<'PY'
import time
fail = threads >= 3 and not warm
time.sleep(0.4)  # one run time for every candidate, whatever the machine's load adds to it
PY
race_state 1 warm >"$T/good.json"
race_state 3 cold >"$T/bad.json"
race_run "0" --no-probe
expect_contains "$T/out.txt" "anchors look deterministic"
expect_contains "$T/out.txt" "good sides side by side, about equal seconds each"
"$PY" - "$T/run" <<'PY'
import json, sys
run = sys.argv[1]
journal = [json.loads(l) for l in open(f"{run}/journal.jsonl")]
result = json.load(open(f"{run}/result.json"))
assert result["found"] and sorted(d["name"] for d in result["cause"]) == ["c", "workers"], result["cause"]
parts = {d["candidate"]: d["label"] for d in journal
         if d["type"] == "decision" and d["label"].startswith("part of the cause")}
assert len(parts) == 2, parts
# The parts' attempts after the search's last look at either (their verification runs), in order.
last_search = max((i for i, r in enumerate(journal) if r["type"] == "decision" and r["candidate"] in parts
                   and not r["label"].startswith("part of the cause")), default=-1)
order = [r["candidate"] for r in journal[last_search + 1:] if r["type"] == "attempt" and r["candidate"] in parts]
assert all(order.count(c) >= 3 for c in parts), (order, parts)
longest, streak = 1, 1
for a, b in zip(order, order[1:]):
    streak = streak + 1 if a == b else 1
    longest = max(longest, streak)
# Side by side: never more than two runs of one part in a row (the last run of each comes with its
# decision); one after another, each part's runs come in one block.
assert longest <= 2, ("runs of one part in a row", longest, [parts[c] for c in order])
PY
[[ -n "${SHOW:-}" ]] && cat "$T/out.txt"; true
